// TurnHooks: runs the agent's selected hooks for one turn (see
// daemon/hooks/hook_runner.h and docs/hooks.md) and records what went wrong
// with them as warning notices in the display history. Hooks never write to
// the model context or the transcript themselves; callers act on the
// returned outcome.
// Thread-safety: used by the turn thread only.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/hooks/hook_runner.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/step_timeline.h"

namespace raw::loop {

class TurnHooks {
 public:
  // The hooks' commands run without the `withheld_env` names in their
  // environment; their input passes through log.Redact(). `cancel` is the
  // turn's token; `after_cancel` (null: `cancel`) bounds what Report runs
  // once `cancel` is cancelled, and must outlive this object.
  TurnHooks(const std::vector<config::HookConfig>& hooks, std::string session_id, std::string cwd,
            std::set<std::string> withheld_env, std::string turn_id, SessionLog& log,
            const CancelToken& cancel, const CancelToken* after_cancel = nullptr);

  // Runs the hooks for `event` (for tool events, those whose matcher fits
  // `tool`) with the input `fields` makes; cancelling the turn kills them
  // and runs no more. Without hooks for the event this is free: `fields` is
  // not called (a tool's whole output is not copied into a JSON value no
  // hook reads).
  hooks::HookOutcome Fire(config::HookEvent event, const std::string& tool,
                          absl::FunctionRef<Json()> fields);

  // Like Fire, for a hook that reports what already happened (a call's
  // result, the turn's end): when the turn is already cancelled, the hooks
  // still run, bounded by their timeout and `after_cancel`, so that they see
  // cancelled calls and turns. A cancel that comes while they run under the
  // turn's token still kills them.
  hooks::HookOutcome Report(config::HookEvent event, const std::string& tool,
                            absl::FunctionRef<Json()> fields);

  bool empty() const { return hooks_.empty(); }
  // Whether any selected hook runs at `event`.
  bool Has(config::HookEvent event) const;
  // The hooks' run time counts as outside Raw on `timeline` (may be null).
  void set_timeline(StepTimeline* timeline) { timeline_ = timeline; }
  // From now on the hooks' warnings go to the log only: the turn must store
  // nothing more before an event it still owes (Turn::owed_compaction_end).
  void StoreNoWarnings() { store_warnings_ = false; }

 private:
  hooks::HookOutcome Run(config::HookEvent event, const std::string& tool,
                         absl::FunctionRef<Json()> fields, const CancelToken& cancel);

  const std::vector<config::HookConfig>& hooks_;
  hooks::HookContext context_;
  std::string turn_id_;
  SessionLog& log_;
  const CancelToken& cancel_;
  const CancelToken& after_cancel_;
  StepTimeline* timeline_ = nullptr;
  bool store_warnings_ = true;
};

}  // namespace raw::loop
