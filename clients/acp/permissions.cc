#include "clients/acp/permissions.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "clients/acp/tool_calls.h"

namespace raw::acp {
namespace {

constexpr char kRejectAlwaysMessage[] =
    "The user rejected this call and does not want it retried in this session.";

Json Option(const char* id, const std::string& name, const char* kind) {
  return {{"optionId", id}, {"name", name}, {"kind", kind}};
}

std::string SessionOptionName(const v1::SessionRuleOption& option) {
  return absl::StrCat("Allow for this session (", absl::StrJoin(option.rules(), "; "), ")");
}

v1::ApprovalAnswer Deny(const v1::ApprovalCall& call, const std::string& message) {
  v1::ApprovalAnswer answer;
  answer.set_call_id(call.call_id());
  answer.set_decision(v1::APPROVAL_DECISION_DENY);
  answer.set_message(message);
  return answer;
}

}  // namespace

Json PermissionRequest(const std::string& session_id, const v1::ApprovalCall& call,
                       const std::string& cwd, const std::string& tool_call_id) {
  v1::ToolCall tool_call;
  tool_call.set_call_id(call.call_id());
  tool_call.set_name(call.name());
  tool_call.set_tool(call.tool());
  tool_call.set_arguments(call.arguments());
  Json shown = ToolCallUpdate(tool_call, cwd);
  shown.erase("sessionUpdate");
  shown.erase("status");
  if (!tool_call_id.empty()) shown["toolCallId"] = tool_call_id;
  // The title is one line of at most 80 characters: what is decided on is
  // the call in full (an edit's diff, else its arguments) and why it asks.
  if (TitleIsShortened(call.arguments())) {
    shown["title"] = absl::StrCat(shown["title"].get<std::string>(), kShortenedTitleNote);
  }
  Json content = shown.contains("content") ? shown["content"] : Json::array();
  if (std::string full = FullCallText(call.tool(), call.arguments());
      content.empty() && !full.empty()) {
    content.push_back(TextContent(full));
  }
  if (!call.reason().empty()) {
    content.push_back(TextContent(absl::StrCat("Needs approval: ", call.reason())));
  }
  shown["content"] = std::move(content);

  Json options = Json::array({Option("allow_once", "Allow once", "allow_once")});
  if (call.session_rules_size() > 0) {
    options.push_back(
        Option("allow_session", SessionOptionName(call.session_rules(0)), "allow_always"));
  }
  if (call.session_rules_size() > 1) {
    options.push_back(
        Option("allow_session_wide", SessionOptionName(call.session_rules(1)), "allow_always"));
  }
  options.push_back(Option("reject_once", "Reject", "reject_once"));
  options.push_back(
      Option("reject_always", "Reject, and ask the agent not to retry it", "reject_always"));
  return {{"sessionId", session_id}, {"toolCall", std::move(shown)}, {"options", std::move(options)}};
}

v1::ApprovalAnswer PermissionAnswer(const v1::ApprovalCall& call, const RpcResponse& response) {
  if (!response.ok) {
    return Deny(call, absl::StrCat("the client's permission request failed: ",
                                   response.error.message));
  }
  const Json& outcome = response.result.is_object() && response.result.contains("outcome")
                            ? response.result["outcome"]
                            : Json();
  // Every field is checked for its type before it is read: a malformed
  // answer denies the call like a cancelled one.
  const auto kind = outcome.is_object() ? outcome.find("outcome") : outcome.end();
  if (!outcome.is_object() || kind == outcome.end() || !kind->is_string() ||
      kind->get_ref<const std::string&>() != "selected" || !outcome.contains("optionId") ||
      !outcome["optionId"].is_string()) {
    return Deny(call, "the permission request was cancelled");
  }
  const std::string id = outcome["optionId"].get<std::string>();
  v1::ApprovalAnswer answer;
  answer.set_call_id(call.call_id());
  if (id == "allow_once") {
    answer.set_decision(v1::APPROVAL_DECISION_ALLOW_ONCE);
  } else if (id == "allow_session" && call.session_rules_size() > 0) {
    answer.set_decision(v1::APPROVAL_DECISION_ALLOW_SESSION);
    answer.set_session_rule(0);
  } else if (id == "allow_session_wide" && call.session_rules_size() > 1) {
    answer.set_decision(v1::APPROVAL_DECISION_ALLOW_SESSION);
    answer.set_session_rule(1);
  } else if (id == "reject_once") {
    answer.set_decision(v1::APPROVAL_DECISION_DENY);
  } else if (id == "reject_always") {
    return Deny(call, kRejectAlwaysMessage);
  } else {
    return Deny(call, absl::StrCat("the client chose an option that was not offered: ", id));
  }
  return answer;
}

}  // namespace raw::acp
