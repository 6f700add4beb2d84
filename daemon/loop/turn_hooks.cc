#include "daemon/loop/turn_hooks.h"

#include <algorithm>
#include <utility>

#include "common/logging.h"

namespace raw::loop {

TurnHooks::TurnHooks(const std::vector<config::HookConfig>& hooks, std::string session_id,
                     std::string cwd, std::set<std::string> withheld_env, std::string turn_id,
                     SessionLog& log, const CancelToken& cancel, const CancelToken* after_cancel)
    : hooks_(hooks),
      context_{std::move(session_id), std::move(cwd), std::move(withheld_env),
               [&log](const std::string& text) { return log.Redact(text); }},
      turn_id_(std::move(turn_id)),
      log_(log),
      cancel_(cancel),
      after_cancel_(after_cancel != nullptr ? *after_cancel : cancel) {}

hooks::HookOutcome TurnHooks::Fire(config::HookEvent event, const std::string& tool,
                                   absl::FunctionRef<Json()> fields) {
  return Run(event, tool, fields, cancel_);
}

hooks::HookOutcome TurnHooks::Report(config::HookEvent event, const std::string& tool,
                                     absl::FunctionRef<Json()> fields) {
  return Run(event, tool, fields, cancel_.cancelled() ? after_cancel_ : cancel_);
}

bool TurnHooks::Has(config::HookEvent event) const {
  return std::any_of(hooks_.begin(), hooks_.end(),
                     [event](const config::HookConfig& h) { return h.event == event; });
}

hooks::HookOutcome TurnHooks::Run(config::HookEvent event, const std::string& tool,
                                  absl::FunctionRef<Json()> fields, const CancelToken& cancel) {
  if (!Has(event)) return {};
  hooks::HookOutcome outcome;
  {
    StepTimeline::Outside outside(timeline_);
    outcome = hooks::RunHooks(hooks_, event, tool, context_, fields(), cancel);
  }
  for (const std::string& warning : outcome.warnings) {
    if (!store_warnings_) {
      RAW_LOG(Warning) << "turn " << turn_id_ << ": hook warning, not stored: " << warning;
      continue;
    }
    absl::Status s =
        log_.Commit(turn_id_, {events::Notice{events::NoticeLevel::kWarning, warning}});
    if (!s.ok()) RAW_LOG(Warning) << "could not store a hook warning: " << s.message();
  }
  return outcome;
}

}  // namespace raw::loop
