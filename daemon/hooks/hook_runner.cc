#include "daemon/hooks/hook_runner.h"

#include <array>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/json_strings.h"
#include "common/pattern.h"
#include "daemon/hooks/hook_invocation.h"

namespace raw::hooks {
namespace {

using config::HookConfig;
using config::HookEvent;
using config::HookFailurePolicy;

constexpr std::array<std::pair<HookEvent, const char*>, 7> kEventNames = {{
    {HookEvent::kSessionStart, "session_start"},
    {HookEvent::kUserPromptSubmit, "user_prompt_submit"},
    {HookEvent::kPreToolUse, "pre_tool_use"},
    {HookEvent::kPostToolUse, "post_tool_use"},
    {HookEvent::kPreCompact, "pre_compact"},
    {HookEvent::kTurnEnd, "turn_end"},
    {HookEvent::kNotification, "notification"},
}};

bool EventHasTool(HookEvent event) {
  return event == HookEvent::kPreToolUse || event == HookEvent::kPostToolUse;
}

std::string Quoted(const std::string& name) { return absl::StrCat("\"", name, "\""); }

// "denied" for a tool call, "blocked" for a prompt.
const char* StopVerb(HookEvent event) {
  return event == HookEvent::kPreToolUse ? "denied" : "blocked";
}

// Whether the hook runs for this event and tool; a matcher that does not
// compile is reported in `error`.
bool Selected(const HookConfig& hook, HookEvent event, const std::string& tool_name,
              std::string& error) {
  if (hook.event != event) return false;
  if (!EventHasTool(event) || hook.matcher.empty()) return true;
  absl::StatusOr<Pattern> matcher = Pattern::Compile(hook.matcher, Pattern::Style::kText);
  if (!matcher.ok()) {
    error = absl::StrCat("has an invalid matcher: ", matcher.status().message());
    return true;
  }
  return matcher->Matches(tool_name);
}

// Folds one hook's answer into the outcome; returns true when it denied or
// blocked, which stops the remaining hooks.
class Folder {
 public:
  Folder(HookEvent event, HookOutcome& outcome) : event_(event), outcome_(outcome) {}

  bool Reply(const HookConfig& hook, const HookReply& reply) {
    if (EventTakesContext(event_) && !reply.additional_context.empty()) {
      if (!outcome_.additional_context.empty()) outcome_.additional_context += "\n\n";
      outcome_.additional_context += reply.additional_context;
    }
    if (!reply.decision.has_value() || !EventTakesDecisions(event_)) return false;
    const std::string suffix = reply.reason.empty() ? "" : absl::StrCat(": ", reply.reason);
    switch (*reply.decision) {
      case HookDecision::kDeny:
        return Stop(absl::StrCat(StopVerb(event_), " by hook ", Quoted(hook.name), suffix));
      case HookDecision::kAsk:
        // user_prompt_submit only blocks; ask and allow mean nothing there.
        if (event_ != HookEvent::kPreToolUse) return false;
        if (outcome_.decision != HookDecision::kAsk) {
          outcome_.decision = HookDecision::kAsk;
          outcome_.reason = absl::StrCat("hook ", Quoted(hook.name), " asks for approval", suffix);
        }
        return false;
      case HookDecision::kAllow:
        if (event_ != HookEvent::kPreToolUse) return false;
        if (outcome_.decision == HookDecision::kNone) {
          outcome_.decision = HookDecision::kAllow;
          outcome_.reason = absl::StrCat("allowed by hook ", Quoted(hook.name), suffix);
        }
        return false;
      case HookDecision::kNone:
        return false;
    }
    return false;
  }

  bool Block(const HookConfig& hook, const std::string& stderr_reason) {
    if (!EventTakesDecisions(event_)) {
      outcome_.warnings.push_back(absl::StrCat(
          "hook ", Quoted(hook.name), " exited with code 2",
          stderr_reason.empty() ? "" : absl::StrCat(" (", stderr_reason, ")"), ", but ",
          HookEventName(event_), " cannot be blocked; ignored"));
      return false;
    }
    return Stop(absl::StrCat(StopVerb(event_), " by hook ", Quoted(hook.name),
                             stderr_reason.empty() ? " (exit code 2, no reason on stderr)"
                                                   : absl::StrCat(": ", stderr_reason)));
  }

  bool Failure(const HookConfig& hook, const std::string& what) {
    const std::string line = absl::StrCat("hook ", Quoted(hook.name), " ", what);
    if (hook.on_failure == HookFailurePolicy::kIgnore) {
      outcome_.warnings.push_back(absl::StrCat(line, " (on_failure: ignore)"));
      return false;
    }
    if (!EventTakesDecisions(event_)) {
      outcome_.warnings.push_back(absl::StrCat(line, " (on_failure: block, but ",
                                               HookEventName(event_), " cannot be blocked)"));
      return false;
    }
    outcome_.warnings.push_back(
        absl::StrCat(line, " (on_failure: block, so the ",
                     event_ == HookEvent::kPreToolUse ? "call was denied" : "prompt was blocked",
                     ")"));
    return Stop(absl::StrCat(StopVerb(event_), " because hook ", Quoted(hook.name), " failed: it ",
                             what, " (on_failure: block)"));
  }

 private:
  bool Stop(std::string reason) {
    outcome_.decision = HookDecision::kDeny;
    outcome_.reason = std::move(reason);
    return true;
  }

  HookEvent event_;
  HookOutcome& outcome_;
};

}  // namespace

const char* HookEventName(HookEvent event) {
  for (const auto& [e, name] : kEventNames) {
    if (e == event) return name;
  }
  return "unknown";
}

std::optional<HookEvent> HookEventFromName(std::string_view name) {
  for (const auto& [e, event_name] : kEventNames) {
    if (name == event_name) return e;
  }
  return std::nullopt;
}

bool EventTakesDecisions(HookEvent event) {
  return event == HookEvent::kPreToolUse || event == HookEvent::kUserPromptSubmit;
}

bool EventTakesContext(HookEvent event) { return event == HookEvent::kUserPromptSubmit; }

HookOutcome RunHooks(const std::vector<HookConfig>& hooks, HookEvent event,
                     const std::string& tool_name, const HookContext& context, const Json& fields,
                     const CancelToken& cancel) {
  HookOutcome outcome;
  Folder folder(event, outcome);
  Json input = fields.is_object() ? fields : Json::object();
  input["event"] = HookEventName(event);
  input["session_id"] = context.session_id;
  input["cwd"] = context.cwd;
  if (context.redact) MapJsonStrings(input, context.redact);
  for (const HookConfig& hook : hooks) {
    std::string matcher_error;
    if (!Selected(hook, event, tool_name, matcher_error)) continue;
    if (cancel.cancelled()) {
      outcome.cancelled = true;
      break;
    }
    ++outcome.hooks_run;
    if (!matcher_error.empty()) {
      if (folder.Failure(hook, matcher_error)) break;
      continue;
    }
    input["hook"] = hook.name;
    HookInvocation run = InvokeHook(hook, DumpJson(input), context, cancel);
    bool stop = false;
    switch (run.ending) {
      case HookInvocation::Ending::kReplied:
        stop = folder.Reply(hook, run.reply);
        break;
      case HookInvocation::Ending::kBlocked:
        stop = folder.Block(hook, run.block_reason);
        break;
      case HookInvocation::Ending::kFailed:
        stop = folder.Failure(hook, run.failure);
        break;
      case HookInvocation::Ending::kCancelled:
        outcome.cancelled = true;
        stop = true;
        break;
    }
    if (stop) break;
  }
  if (outcome.cancelled) {
    outcome.decision = HookDecision::kNone;
    outcome.reason.clear();
  }
  return outcome;
}

}  // namespace raw::hooks
