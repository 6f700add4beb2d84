#include "daemon/hooks/hook_fields.h"

namespace raw::hooks {
namespace {

const char* ToolStatusName(events::ToolStatus status) {
  switch (status) {
    case events::ToolStatus::kOk:
      return "ok";
    case events::ToolStatus::kError:
      return "error";
    case events::ToolStatus::kCancelled:
      return "cancelled";
    case events::ToolStatus::kDenied:
      return "denied";
    case events::ToolStatus::kSkipped:
      return "skipped";
  }
  return "error";
}

const char* TurnEndReasonName(events::TurnEndReason reason) {
  switch (reason) {
    case events::TurnEndReason::kCompleted:
      return "completed";
    case events::TurnEndReason::kMaxSteps:
      return "max_steps";
    case events::TurnEndReason::kCancelled:
      return "cancelled";
    case events::TurnEndReason::kError:
      return "error";
  }
  return "error";
}

const char* LevelName(events::NoticeLevel level) {
  switch (level) {
    case events::NoticeLevel::kInfo:
      return "info";
    case events::NoticeLevel::kWarning:
      return "warning";
    case events::NoticeLevel::kError:
      return "error";
  }
  return "info";
}

}  // namespace

Json SessionStartFields() { return Json::object(); }

Json UserPromptSubmitFields(const std::string& prompt) { return {{"prompt", prompt}}; }

Json PreToolUseFields(const std::string& tool_name, const Json& tool_input,
                      const std::string& call_id) {
  return {{"tool_name", tool_name}, {"tool_input", tool_input}, {"call_id", call_id}};
}

Json PostToolUseFields(const std::string& tool_name, const Json& tool_input,
                       events::ToolStatus status, const std::string& content) {
  return {{"tool_name", tool_name},
          {"tool_input", tool_input},
          {"tool_result", {{"status", ToolStatusName(status)}, {"content", content}}}};
}

Json PreCompactFields(CompactTrigger trigger) {
  return {{"reason", trigger == CompactTrigger::kAuto ? "auto" : "manual"}};
}

Json TurnEndFields(events::TurnEndReason reason, const std::string& message) {
  return {{"reason", TurnEndReasonName(reason)}, {"message", message}};
}

Json NotificationFields(events::NoticeLevel level, const std::string& message) {
  return {{"level", LevelName(level)}, {"message", message}};
}

}  // namespace raw::hooks
