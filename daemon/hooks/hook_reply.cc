#include "daemon/hooks/hook_reply.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"

namespace raw::hooks {
namespace {

constexpr size_t kSnippetBytes = 80;

std::string TypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::null:
      return "null";
    default:
      return "a number";
  }
}

// The string at `key`: nullopt when absent or null, an error for any other
// type.
absl::StatusOr<std::optional<std::string>> StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("stdout field \"", key, "\" must be a string, got ", TypeName(*it)));
  }
  return it->get<std::string>();
}

}  // namespace

std::string QuoteSnippet(std::string_view text, size_t max_bytes) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  bool cut = trimmed.size() > max_bytes;
  return absl::StrCat("\"", absl::CHexEscape(trimmed.substr(0, max_bytes)), cut ? "..." : "",
                      "\"");
}

absl::StatusOr<HookReply> ParseHookReply(std::string_view stdout_text) {
  HookReply reply;
  absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(stdout_text.data(), stdout_text.size()));
  if (trimmed.empty()) return reply;
  absl::StatusOr<Json> parsed = ParseJson(std::string_view(trimmed.data(), trimmed.size()));
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("stdout is not JSON: ", QuoteSnippet(stdout_text, kSnippetBytes)));
  }
  if (!parsed->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("stdout is JSON but not an object (got ",
                                                   TypeName(*parsed), "): ",
                                                   QuoteSnippet(stdout_text, kSnippetBytes)));
  }
  absl::StatusOr<std::optional<std::string>> decision = StringField(*parsed, "decision");
  if (!decision.ok()) return decision.status();
  absl::StatusOr<std::optional<std::string>> reason = StringField(*parsed, "reason");
  if (!reason.ok()) return reason.status();
  absl::StatusOr<std::optional<std::string>> context =
      StringField(*parsed, "additional_context");
  if (!context.ok()) return context.status();

  if (decision->has_value()) {
    const std::string& d = **decision;
    if (d == "allow") {
      reply.decision = HookDecision::kAllow;
    } else if (d == "ask") {
      reply.decision = HookDecision::kAsk;
    } else if (d == "deny" || d == "block") {
      reply.decision = HookDecision::kDeny;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("stdout field \"decision\" is ", QuoteSnippet(d, kSnippetBytes),
                       "; expected \"allow\", \"deny\", \"ask\" or \"block\""));
    }
  }
  reply.reason = std::string(absl::StripAsciiWhitespace(reason->value_or("")));
  reply.additional_context = std::string(absl::StripAsciiWhitespace(context->value_or("")));
  return reply;
}

}  // namespace raw::hooks
