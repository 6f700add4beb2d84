#include "daemon/tools/schema_validator.h"

// valijson reports errors by throwing when this is set (and aborts when it
// is not); every call into it below is wrapped. Only this file includes
// valijson, so the setting is the same wherever its inline functions exist.
#define VALIJSON_USE_EXCEPTIONS 1

#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/tools/schema_constraints.h"
#include "daemon/tools/schema_keywords.h"
#include "daemon/tools/schema_refs.h"
#include "valijson/adapters/nlohmann_json_adapter.hpp"
#include "valijson/schema.hpp"
#include "valijson/schema_parser.hpp"
#include "valijson/validation_results.hpp"
#include "valijson/validator.hpp"

namespace raw::tools {
namespace {

// valijson's validation recurses once per subschema it applies, with no
// bound of its own. CheckReferences (schema_refs.h) rejects the schemas
// whose loops or parse it can see would run away; as a second line, every
// step of the validation makes a new adapter (a nested validation holds its
// value by copy), so GuardedAdapter's constructors measure the stack used
// since Validate began, and past kMaxStackBytes throw: the check fails
// instead of the process. A step takes 1-2 KB; arguments nested as deep as
// a JSON document may be (512), under a recursive schema, need far less.
constexpr uintptr_t kMaxStackBytes = uintptr_t{1} << 20;

// References that branch without looping (each definition an allOf of two
// references to the one below, forty deep) make valijson apply 2^40
// subschemas: no loop for CheckReferences to refuse, no depth for the stack
// guard, only time, on a turn's thread that an interrupt cannot reach
// meanwhile. CheckReferences refuses the schemas that branch this often
// on one value; branching on the way down the value (each level of the
// arguments doubling the work) is bounded only by the arguments. So the
// steps are counted too, and timed (a step copies the value it stands on,
// so its cost grows with the value): past kMaxSteps or kMaxCheckTime the
// check fails instead of running on. Arguments of megabytes under ordinary
// schemas take a small part of either.
constexpr uint64_t kMaxSteps = 4'000'000;
constexpr std::chrono::milliseconds kMaxCheckTime{2000};
// The clock is read once every this many steps.
constexpr uint64_t kStepsPerClockRead = 256;

// Where the stack stood when the outermost StackBudget of this thread
// began (Validate makes one); 0 outside one.
thread_local uintptr_t stack_start = 0;
// The steps taken since then, and when the check must end.
thread_local uint64_t steps = 0;
thread_local std::chrono::steady_clock::time_point check_deadline;

uintptr_t StackHere() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

class StackBudget {
 public:
  StackBudget() : outer_(stack_start) {
    if (outer_ == 0) {
      stack_start = StackHere();
      steps = 0;
      check_deadline = std::chrono::steady_clock::now() + kMaxCheckTime;
    }
  }
  ~StackBudget() { stack_start = outer_; }
  StackBudget(const StackBudget&) = delete;
  StackBudget& operator=(const StackBudget&) = delete;

 private:
  const uintptr_t outer_;
};

void CheckStack() {
  if (stack_start != 0 &&
      (++steps > kMaxSteps ||
       (steps % kStepsPerClockRead == 0 && std::chrono::steady_clock::now() > check_deadline))) {
    throw std::runtime_error(
        "checking these arguments against the schema takes too long (its references branch "
        "at every level of the arguments)");
  }
  uintptr_t here = StackHere();
  if (stack_start != 0 && here < stack_start && stack_start - here > kMaxStackBytes) {
    throw std::runtime_error("the schema and the arguments nest too deeply to be checked");
  }
}

class GuardedAdapter : public valijson::adapters::NlohmannJsonAdapter {
 public:
  explicit GuardedAdapter(const Json& value) : NlohmannJsonAdapter(value) { CheckStack(); }
  // Implicit: valijson hands over the values it iterates as the base type.
  GuardedAdapter(const NlohmannJsonAdapter& other)  // NOLINT(google-explicit-constructor)
      : NlohmannJsonAdapter(other) {
    CheckStack();
  }
  GuardedAdapter(const GuardedAdapter& other) : NlohmannJsonAdapter(other) { CheckStack(); }
};

constexpr size_t kMaxErrorLines = 20;

// "<root>", "[offset]", "[0]" (valijson's context) -> "/offset/0".
std::vector<std::string> ContextSegments(const std::vector<std::string>& context) {
  std::vector<std::string> segments;
  for (size_t i = 1; i < context.size(); ++i) {
    const std::string& part = context[i];
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') {
      segments.push_back(part.substr(1, part.size() - 2));
    } else {
      segments.push_back(part);
    }
  }
  return segments;
}

std::string PointerOf(const std::vector<std::string>& segments) {
  if (segments.empty()) return "/";
  std::string pointer;
  for (const std::string& segment : segments)
    pointer += "/" + schema_keywords::EscapePointer(segment);
  return pointer;
}

// The instance value at `segments`, or null when it cannot be found.
const Json* ValueAt(const Json& instance, const std::vector<std::string>& segments) {
  const Json* value = &instance;
  for (const std::string& segment : segments) {
    if (value->is_object()) {
      auto it = value->find(segment);
      if (it == value->end()) return nullptr;
      value = &*it;
    } else if (value->is_array()) {
      size_t index = 0;
      for (char c : segment) {
        if (c < '0' || c > '9') return nullptr;
        index = index * 10 + static_cast<size_t>(c - '0');
        if (index > value->size()) return nullptr;
      }
      if (segment.empty() || index >= value->size()) return nullptr;
      value = &(*value)[index];
    } else {
      return nullptr;
    }
  }
  return value;
}

bool ConsumePrefix(std::string& text, const std::string& prefix) {
  if (text.compare(0, prefix.size(), prefix) != 0) return false;
  text.erase(0, prefix.size());
  return true;
}

// The leading number of `text` ("10.000000 characters" -> "10").
std::string LeadingNumber(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return text;
  return absl::StrCat(value);
}

// The text between the first pair of single quotes ("'x'." -> "x").
std::string Quoted(const std::string& text) {
  size_t open = text.find('\'');
  size_t close = text.rfind('\'');
  if (open == std::string::npos || close <= open) return text;
  return text.substr(open + 1, close - open - 1);
}

size_t SizeOf(const Json& value) {
  if (value.is_string()) return schema_keywords::CodePoints(value.get_ref<const std::string&>());
  return value.size();
}

// valijson's description of one failure, in the words of the header; null
// `value` when the failing instance value could not be found.
std::string Rewrite(std::string text, const Json* value) {
  std::string got = value ? ", got " + schema_keywords::Brief(*value) : "";
  std::string size = value ? absl::StrCat(", got ", SizeOf(*value)) : "";
  struct Bound {
    const char* prefix;
    const char* words;
  };
  for (const Bound& bound : {Bound{"Expected number less than or equal to ", "<="},
                             Bound{"Expected number less than ", "<"},
                             Bound{"Expected number greater than or equal to ", ">="},
                             Bound{"Expected number greater than ", ">"}}) {
    if (ConsumePrefix(text, bound.prefix)) {
      return absl::StrCat("expected a number ", bound.words, " ", LeadingNumber(text), got);
    }
  }
  struct Count {
    const char* prefix;
    const char* words;
    const char* unit;
  };
  for (const Count& count :
       {Count{"String should be no more than ", "at most", "characters"},
        Count{"String should be no fewer than ", "at least", "characters"},
        Count{"Array should contain no more than ", "at most", "items"},
        Count{"Array should contain no fewer than ", "at least", "items"},
        Count{"Object should have no more than ", "at most", "properties"},
        Count{"Object should have no fewer than ", "at least", "properties"}}) {
    if (ConsumePrefix(text, count.prefix)) {
      return absl::StrCat("expected ", count.words, " ", LeadingNumber(text), " ", count.unit,
                          size);
    }
  }
  if (ConsumePrefix(text, "Value should be a multiple of ")) {
    return absl::StrCat("expected a multiple of ", LeadingNumber(text), got);
  }
  if (ConsumePrefix(text, "Missing required property ")) {
    return absl::StrCat("missing required property \"", Quoted(text), "\"");
  }
  if (ConsumePrefix(text, "Missing dependency ")) {
    return absl::StrCat("missing property \"", Quoted(text),
                        "\" (required by \"dependencies\" when another property is present)");
  }
  if (ConsumePrefix(text, "Elements at indexes #")) {
    std::string first = LeadingNumber(text);
    size_t second = text.find('#');
    return absl::StrCat("items ", first, " and ",
                        LeadingNumber(second == std::string::npos ? "?" : text.substr(second + 1)),
                        " are equal (items must be unique)");
  }
  if (ConsumePrefix(text, "Cannot validate item #")) {
    return absl::StrCat("item ", LeadingNumber(text), " and later are not allowed");
  }
  if (ConsumePrefix(text, "Object contains a property that could not be validated")) {
    return absl::StrCat("property \"", Quoted(text), "\" is not allowed");
  }
  static const std::pair<const char*, const char*> kFixed[] = {
      {"Array contains more items than allowed", "more items than the schema allows"},
      {"Failed to any values against subschema in 'contains'",
       "expected at least one item matching the \"contains\" schema"},
      {"Failed to validate against any schemas allowed by anyOf",
       "matches none of the \"anyOf\" alternatives"},
      {"Failed to validate against any child schemas allowed by oneOf",
       "matches none of the \"oneOf\" alternatives"},
      {"Failed to validate against exactly one child schema",
       "matches more than one of the \"oneOf\" alternatives"},
      {"Target should not validate against schema specified in 'not'",
       "must not match the \"not\" schema"},
  };
  for (const auto& [prefix, words] : kFixed) {
    // The alternatives' own lines already say what was given.
    bool alternatives = std::string(words).find("alternatives") != std::string::npos;
    if (text.compare(0, std::string(prefix).size(), prefix) == 0) {
      return alternatives ? std::string(words) : words + got;
    }
  }
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] + 32);
  return text;
}

// Failures that only say a nested schema failed; the nested failure itself
// is reported at its own location.
bool IsWrapper(const std::string& text) {
  for (const char* prefix :
       {"Failed to validate item #", "Failed to validate against additional properties",
        "Failed to validate against schema associated with",
        "Failed to validate against a conditional schema",
        "Failed to validate against dependent schema", "Failed to validate against child schema"}) {
    if (text.compare(0, std::string(prefix).size(), prefix) == 0) return true;
  }
  return false;
}

struct Line {
  std::string pointer;
  std::string message;
};

// Merges "expected type A, got X" and "expected type B, got X" at one
// location (the alternatives of an anyOf) into "expected type A or B, got X".
void MergeTypeLines(std::vector<Line>& lines) {
  const std::string kPrefix = "expected type ";
  std::vector<Line> merged;
  for (Line& line : lines) {
    size_t got = line.message.rfind(", got ");
    bool is_type =
        line.message.compare(0, kPrefix.size(), kPrefix) == 0 && got != std::string::npos;
    bool joined = false;
    for (Line& earlier : merged) {
      if (!is_type || earlier.pointer != line.pointer) continue;
      size_t earlier_got = earlier.message.rfind(", got ");
      if (earlier.message.compare(0, kPrefix.size(), kPrefix) != 0 ||
          earlier_got == std::string::npos ||
          earlier.message.substr(earlier_got) != line.message.substr(got)) {
        continue;
      }
      std::string types = line.message.substr(kPrefix.size(), got - kPrefix.size());
      std::string known = earlier.message.substr(kPrefix.size(), earlier_got - kPrefix.size());
      if (known.find(types) == std::string::npos) {
        earlier.message.insert(earlier_got, " or " + types);
      }
      joined = true;
      break;
    }
    if (!joined) merged.push_back(std::move(line));
  }
  lines = std::move(merged);
}

std::string FormatErrors(const valijson::ValidationResults& results, const Json& instance,
                         const std::string& tool_name) {
  std::vector<Line> lines;
  std::vector<Line> wrappers;
  for (const auto& error : results) {
    std::vector<std::string> segments = ContextSegments(error.context);
    Line line{PointerOf(segments), Rewrite(error.description, ValueAt(instance, segments))};
    (IsWrapper(error.description) ? wrappers : lines).push_back(std::move(line));
  }
  if (lines.empty()) lines = std::move(wrappers);
  MergeTypeLines(lines);
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<std::string> out;
  size_t hidden = 0;
  for (const Line& line : lines) {
    if (!seen.emplace(line.pointer, line.message).second) continue;
    if (out.size() == kMaxErrorLines) {
      ++hidden;
      continue;
    }
    out.push_back(absl::StrCat("- ", line.pointer, ": ", line.message));
  }
  if (hidden > 0) out.push_back(absl::StrCat("- … and ", hidden, " more"));
  return absl::StrCat("arguments do not match the schema of ", tool_name, ":\n",
                      absl::StrJoin(out, "\n"));
}

// `id` resolved against `base` (both URIs; only the forms "$id" takes in
// practice: absolute, or a path relative to the base's directory).
std::string ResolveUri(const std::string& base, const std::string& id) {
  if (id.find("://") != std::string::npos || base.empty()) return id;
  size_t slash = base.rfind('/');
  return slash == std::string::npos ? id : base.substr(0, slash + 1) + id;
}

std::string WithoutFragment(const std::string& uri) { return uri.substr(0, uri.find('#')); }

// The subschemas that declare an absolute "$id", by that URI, so that a
// "$ref" to one is resolved within the schema instead of fetched.
void CollectEmbedded(const Json& node, const std::string& base,
                     std::map<std::string, const Json*>& out) {
  if (node.is_array()) {
    for (const Json& item : node) CollectEmbedded(item, base, out);
    return;
  }
  if (!node.is_object()) return;
  std::string scope = base;
  auto id = node.find("$id");
  if (id != node.end() && id->is_string()) {
    scope = ResolveUri(base, id->get<std::string>());
    if (scope.find("://") != std::string::npos) out.emplace(WithoutFragment(scope), &node);
  }
  for (const auto& item : node.items()) {
    const std::string& key = item.key();
    bool is_data = key == "enum" || key == "const" ||
                   key == std::string(schema_keywords::kPrivatePrefix) + "enum" ||
                   key == std::string(schema_keywords::kPrivatePrefix) + "const";
    if (!is_data) {
      CollectEmbedded(item.value(), scope, out);
    }
  }
}

// The embedded document `uri` names. valijson hands over a relative
// reference ("node") unresolved: it stands for the one embedded URI whose
// last path segments it is, if there is exactly one.
const Json* FindEmbedded(const std::map<std::string, const Json*>& embedded,
                         const std::string& uri) {
  std::string document = WithoutFragment(uri);
  auto exact = embedded.find(document);
  if (exact != embedded.end()) return exact->second;
  if (document.find("://") != std::string::npos) return nullptr;
  const Json* found = nullptr;
  for (const auto& [full, node] : embedded) {
    bool matches = full.size() > document.size() &&
                   full.compare(full.size() - document.size(), document.size(), document) == 0 &&
                   full[full.size() - document.size() - 1] == '/';
    if (!matches) continue;
    if (found != nullptr) return nullptr;  // ambiguous
    found = node;
  }
  return found;
}

}  // namespace

struct SchemaValidator::Impl {
  // Declared first: the schema's patternProperties constraints point at it.
  std::shared_ptr<schema_keywords::PatternSubschemas> pattern_subschemas;
  valijson::Schema schema;
};

SchemaValidator::SchemaValidator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SchemaValidator::~SchemaValidator() = default;

absl::StatusOr<std::shared_ptr<const SchemaValidator>> SchemaValidator::Compile(
    const Json& schema) {
  const std::string kInvalid = "not a valid JSON Schema (Draft 7)";
  Json rewritten = schema;
  std::vector<std::string> errors = schema_keywords::CheckAndRewrite(rewritten).errors;
  if (errors.empty()) {
    std::map<std::string, const Json*> given;
    CollectEmbedded(schema, "", given);
    errors = schema_refs::CheckReferences(
        schema, [&given](const std::string& uri) { return FindEmbedded(given, uri); });
  }
  if (!errors.empty()) {
    std::vector<std::string> lines;
    for (size_t i = 0; i < errors.size() && i < kMaxErrorLines; ++i) {
      lines.push_back("- " + errors[i]);
    }
    return absl::InvalidArgumentError(absl::StrCat(kInvalid, ":\n", absl::StrJoin(lines, "\n")));
  }
  auto impl = std::make_unique<Impl>();
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    impl->pattern_subschemas = schema_keywords::AddConstraintBuilders(parser);
    valijson::adapters::NlohmannJsonAdapter adapter(rewritten);
    std::map<std::string, const Json*> embedded;
    CollectEmbedded(rewritten, "", embedded);
    auto fetch = [&embedded](const std::string& uri) -> const Json* {
      const Json* document = FindEmbedded(embedded, uri);
      if (document == nullptr) {
        throw std::runtime_error(absl::StrCat(
            "\"$ref\" to \"", uri, "\" is not supported (only references within the schema are)"));
      }
      return new Json(*document);
    };
    auto free = [](const Json* document) { delete document; };
    parser.populateSchema(adapter, impl->schema, fetch, free);
    schema_keywords::LinkPatternProperties(impl->schema, *impl->pattern_subschemas);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(kInvalid, ": ", e.what()));
  }
  return std::shared_ptr<const SchemaValidator>(new SchemaValidator(std::move(impl)));
}

absl::Status SchemaValidator::Validate(const Json& instance, const std::string& tool_name) const {
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  bool valid = false;
  StackBudget budget;
  try {
    valid = validator.validate(impl_->schema, GuardedAdapter(instance), &results);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "arguments could not be checked against the schema of ", tool_name, ": ", e.what()));
  }
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(FormatErrors(results, instance, tool_name));
}

}  // namespace raw::tools
