// SessionEvent: the domain form of everything that happens in a session.
//
// The loop produces these; SessionLog (daemon/loop/session_log.h) assigns
// `seq`, has the store persist the durable ones and fans every one out to the
// session's Subscriptions; daemon/api converts them to raw.v1.Event. This
// header sits at the bottom of the daemon's layers (events sees only
// common/), so it names no type of the modules above it. The payload
// alternatives mirror proto/raw/v1/event.proto one for one. Events are plain
// values: every subscriber gets its own copy, so no renderer can change what
// was authorized.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "daemon/events/image_part.h"
#include "daemon/events/usage.h"

namespace raw::events {

struct TurnStarted {
  std::string user_text;
  bool operator==(const TurnStarted&) const = default;
};
struct UserMessage {
  std::string text;
  std::vector<ImagePart> images = {};  // the prompt's images, in order
  bool operator==(const UserMessage&) const = default;
};
struct TextDelta {
  std::string text;
  bool operator==(const TextDelta&) const = default;
};
struct ReasoningDelta {
  std::string text;
  bool operator==(const ReasoningDelta&) const = default;
};
struct StreamReset {
  std::string reason;
  bool operator==(const StreamReset&) const = default;
};
struct AssistantMessage {
  std::string text;
  std::string reasoning;
  int step = 0;
  // The stream was interrupted before it finished: the text is what the
  // user saw, kept in the display history only; it never enters the model
  // context (a message is committed to the context only when complete).
  bool interrupted = false;
  bool operator==(const AssistantMessage&) const = default;
};
struct ToolCallInfo {
  std::string call_id;
  std::string name;       // as the model named it
  std::string tool;       // registry name; empty for an unknown tool
  std::string arguments;  // verbatim JSON text
  bool operator==(const ToolCallInfo&) const = default;
};
struct ToolCallBatch {
  std::vector<ToolCallInfo> calls;
  bool operator==(const ToolCallBatch&) const = default;
};
struct ToolStarted {
  std::string call_id;
  std::string name;
  std::string tool;
  bool operator==(const ToolStarted&) const = default;
};

// Live only: a running call reported progress (MCP progress notifications).
struct ToolProgress {
  std::string call_id;
  double progress = 0;
  std::optional<double> total;
  std::string message;
  bool operator==(const ToolProgress&) const = default;
};

enum class ToolStatus { kOk, kError, kCancelled, kDenied, kSkipped };

struct ToolResult {
  std::string call_id;
  std::string name;
  std::string tool;
  ToolStatus status = ToolStatus::kOk;
  std::string content;
  int64_t duration_ms = 0;
  std::string display;  // shown by clients instead of content when set
  // The tool's host-side metadata (tools::ToolOutput::meta): stored with the
  // result, never sent to the model nor to clients.
  std::string meta;
  bool operator==(const ToolResult&) const = default;
};

enum class ApprovalState { kPending, kAllowed, kDenied, kNotApplicable };

// One choice "allow for this session" offers for a call: the rules it
// adds, each in words ("allow builtin/bash command \"git status *\"").
struct SessionRuleOption {
  std::vector<std::string> rules;
  bool operator==(const SessionRuleOption&) const = default;
};

struct ApprovalCall {
  std::string call_id;
  std::string name;
  std::string tool;
  std::string arguments;
  ApprovalState state = ApprovalState::kPending;
  std::string reason;
  // Pending calls: the choices of "allow for this session", the exact
  // rules first; empty when the call cannot be allowed for the session.
  std::vector<SessionRuleOption> session_rules = {};
  bool operator==(const ApprovalCall&) const = default;
};
// The whole committed batch, when at least one call needs an answer.
struct ApprovalRequested {
  std::string request_id;
  std::vector<ApprovalCall> calls;
  int64_t timeout_ms = 0;
  bool operator==(const ApprovalRequested&) const = default;
};

enum class ApprovalDecision { kAllowOnce, kAllowSession, kDeny };

struct ApprovalAnswer {
  std::string call_id;
  ApprovalDecision decision = ApprovalDecision::kDeny;
  std::string message;
  // kAllowSession: which of the call's session_rules (0, the exact rules).
  int session_rule = 0;
  // kDeny only: no one could be asked (the client had no terminal); the
  // message says why, and the model is not told that the user denied it.
  bool unattended = false;
  bool operator==(const ApprovalAnswer&) const = default;
};

enum class ApprovalResolution { kAnswered, kTimedOut, kCancelled };

struct ApprovalResolved {
  std::string request_id;
  std::vector<ApprovalAnswer> answers;  // one per pending call
  ApprovalResolution resolution = ApprovalResolution::kAnswered;
  bool operator==(const ApprovalResolved&) const = default;
};
struct UsageReport {
  Usage usage;
  int step = 0;
  bool operator==(const UsageReport&) const = default;
};

enum class NoticeLevel { kInfo, kWarning, kError };

struct Notice {
  NoticeLevel level = NoticeLevel::kInfo;
  std::string text;
  bool operator==(const Notice&) const = default;
};

enum class TurnEndReason { kCompleted, kMaxSteps, kCancelled, kError };

// Why the turn stopped, with the model's own finish told apart: a completed
// turn whose last answer was cut at the output limit is kMaxTokens, one the
// provider's content filter (or the model's refusal) stopped is kRefusal.
enum class StopReason { kEndTurn, kMaxTokens, kRefusal, kMaxSteps, kCancelled, kError };

// The stop reason a turn that ended with `reason` has unless the model's
// finish says more (kCompleted -> kEndTurn, the others one to one).
StopReason DefaultStopReason(TurnEndReason reason);

struct TurnEnded {
  TurnEndReason reason = TurnEndReason::kCompleted;
  std::string message;
  int steps = 0;
  // Set when the model's finish says more than `reason` (kMaxTokens,
  // kRefusal); nullopt: DefaultStopReason(reason). See StopReasonOf.
  std::optional<StopReason> stop_reason;
  bool operator==(const TurnEnded&) const = default;
};
StopReason StopReasonOf(const TurnEnded& end);
enum class CompactionTrigger { kManual, kAutomatic };

struct CompactionStarted {
  CompactionTrigger trigger = CompactionTrigger::kManual;
  int64_t tokens_before = 0;
  int chunks = 0;
  bool operator==(const CompactionStarted&) const = default;
};
// Live only.
struct CompactionProgress {
  int chunk = 0;  // from 1
  int chunks = 0;
  bool operator==(const CompactionProgress&) const = default;
};

enum class CompactionOutcome { kAccepted, kRejected, kFailed, kCancelled, kNothingToCompact };

// When accepted, display items first_summarized_seq..last_summarized_seq are
// what the summary replaced in the model context.
struct CompactionEnded {
  CompactionTrigger trigger = CompactionTrigger::kManual;
  CompactionOutcome outcome = CompactionOutcome::kAccepted;
  std::string message;
  int64_t tokens_before = 0;
  int64_t tokens_after = 0;
  uint64_t first_summarized_seq = 0;
  uint64_t last_summarized_seq = 0;
  std::string summary;
  bool operator==(const CompactionEnded&) const = default;
};

struct ContextCleared {
  int64_t tokens_before = 0;
  int64_t tokens_after = 0;
  bool operator==(const ContextCleared&) const = default;
};

// Live only: the size of what the model will receive next (see
// daemon/context/context_meter.h).
struct ContextEstimate {
  int64_t tokens = 0;
  std::optional<int64_t> window_tokens;
  bool reported_baseline = false;
  bool operator==(const ContextEstimate&) const = default;
};

// Only ever sent to one lagging subscriber; never stored.
struct Resync {
  uint64_t last_delivered_seq = 0;
  bool operator==(const Resync&) const = default;
};

using EventPayload =
    std::variant<TurnStarted, UserMessage, TextDelta, ReasoningDelta, AssistantMessage,
                 ToolCallBatch, ToolStarted, ToolResult, UsageReport, Notice, TurnEnded,
                 StreamReset, Resync, ApprovalRequested, ApprovalResolved, CompactionStarted,
                 CompactionProgress, CompactionEnded, ContextCleared, ContextEstimate,
                 ToolProgress>;

struct SessionEvent {
  std::string session_id;
  uint64_t seq = 0;  // assigned by SessionLog; 0 until then
  std::string turn_id;
  int64_t time_unix_ms = 0;
  EventPayload payload;
  bool operator==(const SessionEvent&) const = default;
};

// Deltas, stream resets, resyncs, tool and compaction progress and context
// estimates are live only; everything else is stored
// in the display history and replayed.
bool IsDurable(const EventPayload& payload);

// A short stable name for the payload kind ("turn_started", "text_delta", ...),
// used as the stored `kind` column and in logs.
const char* KindName(const EventPayload& payload);

}  // namespace raw::events
