// Turn: one run of the agent loop, from one user message to one TurnEnded.
//
// The rules (each is tested end to end):
// - at most max_steps inference requests;
// - text is streamed as it arrives; the assistant message is committed only
//   after its stream finished; a stream that breaks is an error and its tool
//   calls never run; text streamed before an interrupt stays in the display
//   history marked as interrupted and never enters the model context;
// - a batch of tool calls is committed first, then the calls run in the
//   order the model listed them, and every call gets a result that is
//   committed before the next request;
// - the loop stops when the model answers without a tool call, at the step
//   limit (if the last permitted request asks for tools, they are recorded
//   as not run), on an error, or on cancellation (completed results stay,
//   every unfinished call gets a cancelled result);
// - the request contains only the system prompt, the selected tools'
//   schemas and the model context;
// - tool calls go through the tool contract (ToolBatch: validation, hooks,
//   rules, approval); hooks run at session_start, user_prompt_submit and
//   turn_end (see docs/hooks.md); a skill the model loaded whose text changed
//   since gets a notice in the next user message's context item, and
//   nothing committed is rewritten;
// - tool definitions that changed since the session's last turn get an
//   info notice (runtime_record.h);
// - before every request the context estimate is brought up to date (at
//   O(new items)) and published; with compact.trigger_tokens set, a request
//   that would exceed it is preceded by one automatic compaction per turn,
//   and if it still exceeds it the turn ends with an error instead of
//   sending it.
// Run() does not record TurnEnded itself: it returns it, and the runner
// commits it (see SessionRunner), so that a turn ends exactly once; the
// runner then calls ReportEnd, which runs the turn_end hooks, so that a
// daemon stopped during one finds the turn's end stored.
// Each step whose response completed is timed (step_timeline.h); at the
// end the turn hands its steps' phases to the session
// (SessionState::RecordTurnTimings).
//
// Runs on its own thread; the SessionContext is owned by the runner and only
// touched by the running turn.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/cancel_token.h"
#include "daemon/config/config_loader.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/session_context.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/session_state.h"
#include "daemon/loop/step_collector.h"
#include "daemon/loop/step_timeline.h"
#include "daemon/loop/tool_batch.h"
#include "daemon/loop/tool_dispatch.h"
#include "daemon/loop/turn_hooks.h"
#include "daemon/providers/provider.h"
#include "daemon/skills/skill_set.h"
#include "daemon/tools/policy/rule_set.h"

namespace raw::raven {
class DraftGenerator;
}

namespace raw::loop {

// Everything a turn needs, resolved before it starts.
struct TurnPlan {
  std::string session_id;
  std::string turn_id;
  std::string user_text;
  std::vector<events::ImagePart> images;  // sent with user_text (checked)
  std::string cwd;
  config::ResolvedAgent agent;
  config::ToolSettings tool_settings;
  std::unique_ptr<providers::Provider> provider;
  std::vector<providers::ToolDefinition> tool_definitions;  // sorted, stable
  ToolTable tools;
  // Specs made for this turn (MCP tools); `tools` points into them.
  std::vector<std::unique_ptr<tools::ToolSpec>> owned_tools;
  // Told to the user at the start of the turn (for example an MCP server
  // that could not start).
  std::vector<std::string> notices;
  tools::policy::RuleSet rules;            // the agent's rules, compiled
  std::vector<config::HookConfig> hooks;   // the agent's hooks, in its order
  // Environment names the agent's commands (bash, hooks) do not get
  // (config::WithheldEnvFor).
  std::set<std::string> withheld_env;
  skills::SkillSet skills;                 // the agent's skills
  http::HttpClient* http = nullptr;        // for tools that fetch URLs
  std::shared_ptr<SessionState> session;   // set by the runner
  // The agent's model with its output capped at compact.max_output_tokens,
  // for summary requests (compaction_step.h).
  std::unique_ptr<providers::Provider> summarizer;
  // Estimate of the system prompt and tool definitions (token_estimate.h).
  int64_t runtime_tokens = 0;
  // A plan that starts nothing (an estimate's, a warm-up's) lacks the tools
  // of selected MCP servers not started since the daemon started:
  // runtime_tokens is then less than a turn's would be.
  bool runtime_partial = false;
  // ToolsHash of tool_definitions and their names, sorted.
  std::string tools_hash;
  std::vector<std::string> tool_names;
  // alias -> content hash of each package the agent used (runtime_record.h).
  std::map<std::string, std::string> packages;
  // Where a turn starts in the display history (set by the runner; 0 when
  // unknown), for the compaction marker.
  std::function<uint64_t(const std::string& turn_id)> first_seq_of_turn;
  // Set when the agent selects MCP tools and they were left for the turn's
  // own thread (starting a server can take seconds; the StartTurn call does
  // not wait for it). The turn runs it once, after recording its start: it
  // adds the selected MCP tools and their notices, recomputes the tool
  // summary above and remakes the providers for the final tool definitions.
  // Returns kCancelled when the token ended the wait for servers.
  std::function<absl::Status(TurnPlan&, const CancelToken&)> attach_mcp;
  // builtin/raven_task and builtin/web_search (ToolContext's fields of the
  // same names): the Raven settings in force, a config variable's value by
  // name (null without a variable store), and the Draft Variant generator
  // over raven.draft.routes (null without providers).
  std::shared_ptr<const config::RavenSettingsSource> raven_settings;
  std::function<absl::StatusOr<std::string>(const std::string& name)> resolve_variable;
  std::shared_ptr<raven::DraftGenerator> drafter;
  // How long the turn's start waited for its session's warm-up to
  // serialize the history ahead of the first request (session_runner.h):
  // counted in the first step, whose work it did.
  int64_t start_waited_ns = 0;
  // Hooks that report what already happened (post_tool_use, turn_end)
  // still run once the turn's own token is cancelled; this token, and their
  // timeout, are what bound them then. The session runner cancels it on a
  // second interrupt and when the daemon shuts down (null: never).
  std::shared_ptr<const CancelToken> end_reports;
};

class Turn {
 public:
  Turn(TurnPlan plan, SessionLog& log, SessionContext& context, const CancelToken& cancel);

  // Returns the TurnEnded to record. Never throws.
  events::TurnEnded Run();
  // After Run, once the runner tried to store `end`: runs the turn_end
  // hooks, whose `message` is the final answer of a completed turn, else
  // the end's message. Their warnings are stored only when `end_stored`.
  void ReportEnd(const events::TurnEnded& end, bool end_stored);

  // After Run: the end of the turn's automatic compaction when the store
  // refused it (published to clients, not stored). It must be stored before
  // the turn's end, which ended the turn there (SessionRunner::FinishTurn).
  const std::optional<OwedEvent>& owed_compaction_end() const { return owed_compaction_end_; }

 private:
  events::TurnEnded RunTurn();
  // The user's context item: the prompt, plus hook context, notices
  // about changed skills and the selected tools' turn context. nullopt when
  // a user_prompt_submit hook blocked it (`*blocked` then holds the reason).
  std::optional<std::string> UserContextText(std::string* blocked);
  std::string SkillChangeNotices();
  // The message of a turn ended by its cancel token: the token's reason.
  std::string CancelledWhy() const;
  // ToolSpec::turn_context of each selected tool whose results the model
  // context does not hold (for builtin/raven_task: the current Task's
  // summary after /clear or a compaction), each after a blank line.
  std::string ToolTurnContexts();
  enum class StepOutcome { kContinue, kDone };

  StepOutcome RunStep(int step, events::TurnEnded* end);
  // Brings the estimate up to date and compacts when the request would
  // exceed the trigger; an end when the request must not be sent.
  std::optional<events::TurnEnded> BeforeRequest();
  void NoticeToolChanges();
  // Commits the step's assistant message and usage (a step without calls).
  absl::Status CommitAssistant(int step, const StepResult& result);
  // The step's assistant message, tool-call batch and usage as one commit,
  // and what follows its storing: the item joins the context, the meter
  // moves on, the estimate is published and the commit phase ends.
  LeadingCommit AssistantCommit(int step, const StepResult& result);
  // Commits what an interrupted stream showed (display history only) and
  // its usage; the model context is unchanged.
  absl::Status CommitInterrupted(int step, const StepResult& result);
  // Counts a request that failed in the session's usage totals.
  void CountFailedRequest(const StepResult& result);
  // Runs (or, at the step limit, skips) the step's calls; the assistant's
  // message and the calls are stored with the batch's first commit.
  absl::Status RunCalls(int step, const StepResult& result, bool skip_all);
  // Answers every call the model context holds without a result
  // (unanswered_calls.h) with an error outcome saying `why`: adds the change
  // to `extras` (ahead of the appends it holds) and returns what applies it
  // to the context once `extras` is stored; null when no call is open.
  std::function<void()> AnswerOpenCalls(const std::string& why, CommitExtras& extras);
  // After a batch failed to store: its calls that got no result get one
  // (stored with a tool_result each for clients), best effort; when that
  // fails too, the next turn answers them before its prompt.
  void CloseFailedBatch();
  absl::Status Notice(events::NoticeLevel level, std::string text);
  std::string ToolFor(const std::string& model_name) const;
  events::TurnEnded End(events::TurnEndReason reason, std::string message);

  TurnPlan plan_;
  SessionLog& log_;
  SessionContext& ctx_;
  std::vector<events::ContextItem>& context_;  // ctx_.items
  const CancelToken& cancel_;
  CancelToken never_cancelled_;  // plan_.end_reports when the plan has none
  TurnHooks hooks_;
  int steps_ = 0;
  bool compacted_ = false;  // automatic compaction ran in this turn
  std::optional<OwedEvent> owed_compaction_end_;
  // The text of the last committed step without calls (the final answer).
  std::string final_text_;
  // The step being timed, and the phases of the steps that completed
  // (reserved for max_steps at the start: recording allocates nothing).
  StepTimeline timeline_;
  std::vector<StepTiming> timings_;
  int64_t turn_start_ns_ = 0;
};

}  // namespace raw::loop
