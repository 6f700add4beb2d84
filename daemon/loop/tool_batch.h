// ToolBatch: runs one batch of tool calls under the tool contract, in this
// order:
//   1. every call is prepared (tool lookup, argument parsing and schema
//      validation; a bad call gets an error result and is never asked about);
//   2. pre_tool_use hooks and the rules (agent rules, then the session's)
//      decide allow, ask or deny for each remaining call; a deny from either
//      wins, a hook's allow skips an ask, a hook's ask forces one;
//   3. when any call asks, one ApprovalRequested lists the whole batch and
//      the turn waits for the answers (RespondToApproval), the timeout or
//      cancellation, then records ApprovalResolved;
//   4. the calls run in the model's order; denied ones get a kDenied result
//      saying why; a path call whose path now resolves elsewhere than when
//      it was judged is judged again by the rules and runs only if they
//      allow it outright; a walk (grep, glob, list_dir) skips the entries
//      the rules withhold (policy/walk_filter.h); post_tool_use hooks see
//      each result.
// Every call gets exactly one result, committed before the next call runs;
// on cancellation completed results stay and every unfinished call (also
// one waiting for approval) gets a cancelled result. The result of a call
// that never reached its handler (invalid, or cancelled first) carries the
// tool's ToolSpec::not_run_note.
//
// The step's assistant message and tool-call batch may come in as a
// LeadingCommit: they are then stored in the same transaction as the
// batch's first commit (the first call's start, a result, or the approval
// request), ahead of its events, so that a step whose call runs without
// asking commits twice rather than three times. Nothing that waits runs
// before they are committed: with any hook configured they are committed
// before the first hook fires, and Run commits them before it returns
// whatever happens.
// Thread-safety: used by the turn thread only.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/cancel_token.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/step_collector.h"
#include "daemon/loop/step_timeline.h"
#include "daemon/loop/tool_dispatch.h"
#include "daemon/loop/turn_hooks.h"
#include "daemon/tools/policy/rule_set.h"

namespace raw::loop {

struct TurnPlan;

// What a step has not committed yet when its batch starts (see above), and
// what to do once it is stored (update the turn's context and meter).
struct LeadingCommit {
  std::vector<events::EventPayload> payloads;
  CommitExtras extras;
  std::function<void()> committed;
};

class ToolBatch {
 public:
  // The time tools run and approvals wait counts as outside Raw on
  // `timeline` (may be null).
  ToolBatch(const TurnPlan& plan, SessionLog& log, std::vector<events::ContextItem>& context,
            TurnHooks& hooks, const CancelToken& cancel, StepTimeline* timeline = nullptr);

  // The events the batch's first commit carries ahead of its own; before
  // Run or Skip.
  void Lead(LeadingCommit leading) { leading_ = std::move(leading); }

  absl::Status Run(const std::vector<CollectedCall>& calls);
  // Records a kSkipped result with `why` for every call.
  absl::Status Skip(const std::vector<CollectedCall>& calls, const std::string& why);

 private:
  struct Entry {
    const CollectedCall* call = nullptr;
    PreparedCall prepared;
    events::ApprovalState state = events::ApprovalState::kAllowed;
    std::string reason;        // who decided, in words
    std::string deny_message;  // a user's message for the model
    bool approved_by_user = false;
    // For a path tool: the resolved path the rules judged
    // (RuleSet::ResolvedPath). Resolved again right before the call runs:
    // an earlier call of the batch may have changed what it names (a new
    // symlink), and a call judged on one file must not run on another.
    std::optional<std::string> judged_path;
    // For a command tool: the files its redirections write, as the rules
    // judged them (RuleSet::ResolvedRedirects), resolved again right before
    // the call runs for the same reason.
    std::vector<tools::policy::RedirectTarget> judged_redirects;
    // A pending call: what "allow for this session" may add
    // (RuleSet::SessionRuleOptions), computed when it was judged.
    std::vector<std::vector<config::RuleConfig>> session_options;
  };

  // `id_repeated`: another call of the batch has the same id; the call is
  // denied without being judged (an answer names a call by its id).
  Entry Gate(const CollectedCall& call, bool id_repeated);
  absl::Status RunGated(const std::vector<CollectedCall>& calls);
  // Every commit of the batch: the leading events, while there are any,
  // go first in the same transaction.
  absl::Status Commit(std::vector<events::EventPayload> payloads, CommitExtras extras = {});
  // Commits the leading events on their own, if they are still waiting.
  absl::Status CommitLeading();
  absl::Status AskForApproval(std::vector<Entry>& entries);
  absl::Status RunEntry(const Entry& entry);
  // Why `entry` may no longer run: its path resolves elsewhere now and the
  // rules do not allow the new target outright; nullopt = it may run, on
  // `run_path` (the path judged last, which the tool opens without
  // following any link that appears later: ToolContext::judged_path).
  std::optional<std::string> PathChanged(const Entry& entry,
                                         std::optional<std::string>& run_path) const;
  // Why `entry` may no longer run: a file its redirections write resolves
  // elsewhere now and the rules do not allow the line outright any more;
  // nullopt = it may run.
  std::optional<std::string> RedirectChanged(const Entry& entry) const;
  absl::Status CommitResult(const CollectedCall& call, const tools::ToolOutput& output,
                            int64_t duration_ms);
  std::string QualifiedName(const CollectedCall& call) const;
  // The host-side metadata of `tool`'s stored results in this session,
  // oldest first (ToolContext::prior_meta).
  absl::StatusOr<std::vector<std::string>> PriorMeta(const std::string& tool) const;
  // `output` for a call of `spec` that never reached its handler, with the
  // tool's not_run_note (WithNotRunNote); `spec` null = an unknown tool.
  tools::ToolOutput NotRun(const tools::ToolSpec* spec, tools::ToolOutput output) const;

  const TurnPlan& plan_;
  SessionLog& log_;
  std::vector<events::ContextItem>& context_;
  TurnHooks& hooks_;
  const CancelToken& cancel_;
  StepTimeline* const timeline_;
  tools::policy::RuleSet rules_;  // the agent's, then the session's
  std::optional<LeadingCommit> leading_;
};

}  // namespace raw::loop
