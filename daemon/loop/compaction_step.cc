#include "daemon/loop/compaction_step.h"

#include <optional>

#include "daemon/context/summary_model.h"
#include "daemon/hooks/hook_fields.h"
#include "daemon/loop/compactor.h"
#include "daemon/loop/unanswered_calls.h"

namespace raw::loop {

void PublishEstimate(const TurnPlan& plan, const SessionContext& ctx, SessionLog& log) {
  events::ContextEstimate estimate = ctx.meter.Estimate(plan.agent.model.context_window_tokens);
  if (plan.session) plan.session->SetEstimate(estimate);
  log.PublishLive(plan.turn_id, estimate);
}

CompactionResult CompactSession(events::CompactionTrigger trigger, bool last_turn_running,
                                const TurnPlan& plan, SessionContext& ctx, SessionLog& log,
                                TurnHooks& hooks, const CancelToken& cancel,
                                std::function<void()> before_end) {
  ctx.SyncMeter();
  hooks.Fire(config::HookEvent::kPreCompact, "", [&] {
    return hooks::PreCompactFields(trigger == events::CompactionTrigger::kManual
                                       ? hooks::CompactTrigger::kManual
                                       : hooks::CompactTrigger::kAuto);
  });
  CompactionRequest request;
  request.trigger = trigger;
  request.settings = plan.agent.agent.compact;
  request.summary_output_cap =
      context::SummaryOutputCap(plan.agent.model, plan.agent.agent.compact.max_output_tokens);
  request.window_tokens = plan.agent.model.context_window_tokens;
  request.runtime_tokens = ctx.runtime_tokens;
  request.reasoning = ctx.meter.reasoning_rule();
  request.scale_permille = ctx.meter.scale_permille();
  if (trigger == events::CompactionTrigger::kAutomatic) {
    request.fit_tokens = plan.agent.agent.compact.trigger_tokens;
  }
  request.turn_id = plan.turn_id;
  request.last_turn_running = last_turn_running;
  request.before_end = std::move(before_end);
  // Calls that an earlier turn could not store a result for are answered
  // here as a turn's start answers them: the summarizer reads that their
  // effect is unknown, and an accepted compaction keeps no call without its
  // result. The answers are stored only with an accepted compaction; else
  // the next turn stores them.
  std::optional<AnsweredContext> answered = AnswerEveryCall(ctx.items, kNotRecordedResult);
  CompactionResult result = RunCompaction(request, answered ? answered->items : ctx.items,
                                          *plan.summarizer, log, cancel, plan.first_seq_of_turn);
  if (result.context) {
    ctx.Rewrite(std::move(*result.context));
    result.context.reset();
  }
  // An end the store refused is stored under the seq it was shown under
  // only while no other event takes one (SessionLog::CommitPublished); its
  // context is unchanged, and so is the estimate.
  if (result.unstored_end_seq == 0) PublishEstimate(plan, ctx, log);
  return result;
}

}  // namespace raw::loop
