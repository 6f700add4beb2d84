#include "daemon/config/agent_entry.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/model_entry.h"
#include "daemon/config/package_ref.h"
#include "daemon/config/policy_entry.h"

namespace raw::config {
namespace {

constexpr char kPatternExamples[] =
    "a qualified tool name or glob such as \"builtin/read_file\", \"builtin/*\" or "
    "\"mcp/<server>/*\"";

bool IsPatternChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
         c == '*';
}

void ReadToolsUse(FieldReader& agent, AgentConfig& a, std::vector<ConfigProblem>& problems) {
  const Json* tools = agent.Find("tools");
  if (tools == nullptr) return;
  FieldReader r(*tools, agent.PathOf("tools"), problems);
  r.RejectUnknownKeys(kAgentToolsKeys);
  const Json* use = r.Find("use");
  if (use == nullptr) return;
  if (!use->is_array()) {
    r.Report("use",
             absl::StrCat("expected an array of tool names or globs, got ", DescribeValue(*use)));
    return;
  }
  a.tools_use.clear();
  std::set<std::string> seen;
  for (size_t i = 0; i < use->size(); ++i) {
    if (ProblemsFull(problems)) break;
    const Json& entry = (*use)[i];
    std::string path = IndexPath(r.PathOf("use"), i);
    if (!entry.is_string()) {
      problems.push_back(
          {path, absl::StrCat("expected ", kPatternExamples, ", got ", DescribeValue(entry))});
      continue;
    }
    const std::string& pattern = entry.get_ref<const std::string&>();
    if (auto error = CheckToolPattern(pattern)) {
      problems.push_back({path, *error});
    } else if (!seen.insert(pattern).second) {
      problems.push_back({path, absl::StrCat("\"", pattern, "\" is listed twice")});
    } else {
      a.tools_use.push_back(pattern);
    }
  }
}

void ReadCompact(FieldReader& agent, AgentConfig& a, std::vector<ConfigProblem>& problems) {
  const Json* compact = agent.Find("compact");
  if (compact == nullptr) return;
  FieldReader r(*compact, agent.PathOf("compact"), problems);
  r.RejectUnknownKeys(kAgentCompactKeys);
  a.compact.trigger_tokens = r.Integer("trigger_tokens", 1, kMaxTokenCount);
  if (auto n = r.Integer("keep_recent_turns", 0, kMaxKeepRecentTurns)) {
    a.compact.keep_recent_turns = static_cast<int>(*n);
  }
  if (auto n = r.Integer("max_output_tokens", 1, kMaxTokenCount)) {
    a.compact.max_output_tokens = *n;
  }
}

}  // namespace

AgentConfig ParseAgentEntry(const std::string& name, const Json& value, const std::string& path,
                            std::vector<ConfigProblem>& problems) {
  AgentConfig a;
  a.name = name;
  a.system_prompt = DefaultSystemPrompt();
  // An agent that extends a preset and sets no "tools" gets the preset's
  // (or the default, when the preset sets none either: package_resolver.cc),
  // so its own list stays empty and a listing shows nothing it does not get.
  const bool tools_from_preset =
      value.is_object() && value.contains("extends") && !value.contains("tools");
  if (!tools_from_preset) a.tools_use = DefaultToolsUse();
  FieldReader r(value, path, problems);
  if (!r.is_object()) return a;
  r.RejectUnknownKeys(kAgentKeys);
  // Only an agent that extends a preset needs to know what it set itself.
  if (value.contains("extends")) {
    for (const auto& [key, unused] : value.items()) a.explicit_keys.push_back(key);
  }

  if (auto model = r.String("model")) {
    if (IsPackageRef(*model)) {
      if (absl::StatusOr<PackageRef> ref = ParsePackageRef(*model, kExportModel); !ref.ok()) {
        r.Report("model", std::string(ref.status().message()));
      }
    }
    a.model = *model;
  }
  if (auto extends = r.String("extends")) {
    absl::StatusOr<PackageRef> ref = ParsePackageRef(*extends, kExportAgent);
    if (ref.ok()) {
      a.extends = *extends;
    } else {
      r.Report("extends", std::string(ref.status().message()));
    }
  }
  if (auto prompt = r.String("system_prompt")) a.system_prompt = *prompt;
  if (auto steps = r.Integer("max_steps", 1, kMaxSteps)) a.max_steps = static_cast<int>(*steps);
  ReadToolsUse(r, a, problems);
  ReadCompact(r, a, problems);
  ReadAgentPolicy(r, a, problems);
  return a;
}

std::optional<std::string> CheckToolPattern(absl::string_view pattern) {
  auto quoted = [&] { return DescribeValue(Json(std::string(pattern))); };
  if (absl::StripAsciiWhitespace(pattern).empty()) {
    return absl::StrCat("expected ", kPatternExamples, ", got ", quoted());
  }
  size_t slash = pattern.find('/');
  absl::string_view ns = pattern.substr(0, slash);
  if (ns == "pkg") {
    absl::StatusOr<PackageRef> ref = ParsePackageRef(pattern, kExportMcp, /*with_tool=*/true);
    if (!ref.ok()) return std::string(ref.status().message());
    return std::nullopt;
  }
  if (slash == absl::string_view::npos ||
      std::find(kToolNamespaces.begin(), kToolNamespaces.end(), ns) == kToolNamespaces.end()) {
    return absl::StrCat(quoted(), " does not start with builtin/ or mcp/ (expected ",
                        kPatternExamples, ")");
  }
  for (absl::string_view segment : absl::StrSplit(pattern.substr(slash + 1), '/')) {
    if (segment.empty() || !std::all_of(segment.begin(), segment.end(), IsPatternChar)) {
      return absl::StrCat(quoted(), " is not a valid tool name or glob (expected ",
                          kPatternExamples,
                          "; each part after the first '/' uses letters, digits, '_', '.', "
                          "'-' or '*')");
    }
  }
  return std::nullopt;
}

std::optional<std::string> CheckCompactFits(const AgentConfig& agent, const ModelConfig& model) {
  if (!agent.compact.trigger_tokens) return std::nullopt;
  int64_t trigger = *agent.compact.trigger_tokens;
  if (!model.context_window_tokens) {
    return absl::StrCat("automatic compaction needs the model's window: set models.", model.name,
                        ".context_window_tokens");
  }
  int64_t window = *model.context_window_tokens;
  int64_t reserve = CompactOutputReserve(model);
  int64_t margin = CompactSafetyMargin(window);
  if (trigger + reserve + margin <= window) return std::nullopt;
  std::string reserve_source =
      model.max_output_tokens ? "the model's max_output_tokens"
      : model.method == kMethodAnthropicMessages
          ? "the max_tokens anthropic-messages requests send when max_output_tokens is unset"
          : absl::StrCat(kDefaultOutputReserve, " when max_output_tokens is unset");
  int64_t room = std::max<int64_t>(0, window - reserve - margin);
  return absl::StrCat(trigger, " plus the output reserve (", reserve, ", ", reserve_source,
                      ") and a safety margin (", margin, ", ", kCompactMarginPercent,
                      "% of the window) exceeds the context window of model \"", model.name,
                      "\" (", window, "); at most ", room, " fits");
}

int64_t CompactOutputReserve(const ModelConfig& model) {
  if (model.max_output_tokens) return *model.max_output_tokens;
  return model.method == kMethodAnthropicMessages ? kAnthropicDefaultMaxTokens
                                                  : kDefaultOutputReserve;
}

int64_t CompactSafetyMargin(int64_t window) {
  return (window * kCompactMarginPercent + 99) / 100;
}

}  // namespace raw::config
