#include "daemon/loop/tool_batch.h"

#include <chrono>
#include <map>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/ids.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/hooks/hook_fields.h"
#include "daemon/loop/turn.h"
#include "daemon/skills/skill_set.h"
#include "daemon/vars/redact.h"

namespace raw::loop {
namespace {

int64_t MonotonicMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string DeniedContent(const std::string& reason, const std::string& message) {
  std::string text = absl::StrCat("Denied: this call was not run (", reason, ").");
  if (!message.empty()) absl::StrAppend(&text, " Message from the user: ", message);
  return text;
}

}  // namespace

ToolBatch::ToolBatch(const TurnPlan& plan, SessionLog& log,
                     std::vector<events::ContextItem>& context, TurnHooks& hooks,
                     const CancelToken& cancel, StepTimeline* timeline)
    : plan_(plan),
      log_(log),
      context_(context),
      hooks_(hooks),
      cancel_(cancel),
      timeline_(timeline),
      rules_(plan.rules) {
  if (plan_.session) {
    absl::Status s = rules_.AddSessionRules(plan_.session->session_rules());
    if (!s.ok()) RAW_LOG(Warning) << "session rules: " << s.message();
  }
}

std::string ToolBatch::QualifiedName(const CollectedCall& call) const {
  auto it = plan_.tools.find(call.request.name);
  return it == plan_.tools.end() ? "" : it->second->qualified_name;
}

absl::Status ToolBatch::Skip(const std::vector<CollectedCall>& calls, const std::string& why) {
  for (const CollectedCall& call : calls) {
    RETURN_IF_ERROR(CommitResult(call, {events::ToolStatus::kSkipped, why, {}, {}}, 0));
  }
  return CommitLeading();
}

namespace {

// `extras` of a later commit added to the leading commit's `into`: context
// items in order; the rest (usage, meter, title) only one of them sets.
void MergeExtras(CommitExtras& into, CommitExtras extras) {
  into.context_appends.insert(into.context_appends.end(),
                              std::make_move_iterator(extras.context_appends.begin()),
                              std::make_move_iterator(extras.context_appends.end()));
  if (extras.usage) into.usage = std::move(extras.usage);
  into.conversation_activity = into.conversation_activity || extras.conversation_activity;
  if (!extras.title.empty()) into.title = std::move(extras.title);
  if (extras.replace_context) into.replace_context = std::move(extras.replace_context);
  if (extras.context_meter) into.context_meter = std::move(extras.context_meter);
  if (extras.runtime_hash) into.runtime_hash = std::move(extras.runtime_hash);
  into.compaction_accepted = into.compaction_accepted || extras.compaction_accepted;
}

}  // namespace

absl::Status ToolBatch::Commit(std::vector<events::EventPayload> payloads, CommitExtras extras) {
  if (!leading_) return log_.Commit(plan_.turn_id, std::move(payloads), std::move(extras));
  LeadingCommit leading = std::move(*leading_);
  leading_.reset();
  leading.payloads.insert(leading.payloads.end(), std::make_move_iterator(payloads.begin()),
                          std::make_move_iterator(payloads.end()));
  MergeExtras(leading.extras, std::move(extras));
  RETURN_IF_ERROR(
      log_.Commit(plan_.turn_id, std::move(leading.payloads), std::move(leading.extras)));
  if (leading.committed) leading.committed();
  return absl::OkStatus();
}

absl::Status ToolBatch::CommitLeading() { return leading_ ? Commit({}) : absl::OkStatus(); }

ToolBatch::Entry ToolBatch::Gate(const CollectedCall& call, bool id_repeated) {
  Entry e;
  e.call = &call;
  if (id_repeated) {
    // An answer and a result name a call by its id: one answer would
    // approve every call that shares it, and the model could not tell the
    // results apart. None of them runs, and none is put to anyone.
    e.state = events::ApprovalState::kDenied;
    e.reason = absl::StrCat("the model gave the id \"", call.request.call_id,
                            "\" to more than one call of this batch");
    return e;
  }
  e.prepared = PrepareToolCall(
      DispatchInput{call.request, call.complete, call.cut_off_at_output_limit}, plan_.tools);
  if (e.prepared.error) {
    e.state = events::ApprovalState::kNotApplicable;
    e.reason = "the call is invalid";
    return e;
  }
  const tools::ToolSpec& spec = *e.prepared.spec;
  e.judged_path = tools::policy::RuleSet::ResolvedPath(spec, e.prepared.arguments, plan_.cwd);
  e.judged_redirects =
      tools::policy::RuleSet::ResolvedRedirects(spec, e.prepared.arguments, plan_.cwd);
  hooks::HookOutcome hook = hooks_.Fire(config::HookEvent::kPreToolUse, spec.qualified_name, [&] {
    return hooks::PreToolUseFields(spec.qualified_name, e.prepared.arguments, call.request.call_id);
  });
  tools::policy::Decision rule =
      rules_.Evaluate(spec, e.prepared.arguments, plan_.cwd, plan_.agent.agent.approval_mode);
  if (rule.action == config::RuleAction::kDeny) {
    e.state = events::ApprovalState::kDenied;
    e.reason = rule.reason;
  } else if (hook.decision == hooks::HookDecision::kDeny) {
    e.state = events::ApprovalState::kDenied;
    e.reason = hook.reason;
  } else if (hook.decision == hooks::HookDecision::kAsk) {
    e.state = events::ApprovalState::kPending;
    e.reason = hook.reason;
  } else if (hook.decision == hooks::HookDecision::kAllow) {
    e.state = events::ApprovalState::kAllowed;
    e.reason = hook.reason;
  } else if (rule.action == config::RuleAction::kAsk) {
    e.state = events::ApprovalState::kPending;
    e.reason = rule.reason;
  } else {
    e.state = events::ApprovalState::kAllowed;
    e.reason = rule.reason;
  }
  return e;
}

absl::Status ToolBatch::AskForApproval(std::vector<Entry>& entries) {
  events::ApprovalRequested request;
  request.request_id = NewId("apr_");
  request.timeout_ms = plan_.agent.agent.approval_timeout_ms;
  std::vector<std::string> pending;
  std::map<std::string, int> session_options;
  for (Entry& e : entries) {
    const auto& r = e.call->request;
    events::ApprovalCall call{r.call_id, r.name, QualifiedName(*e.call), r.arguments, e.state,
                              e.reason, {}};
    if (e.state == events::ApprovalState::kPending) {
      pending.push_back(r.call_id);
      e.session_options = tools::policy::RuleSet::SessionRuleOptions(
          *e.prepared.spec, e.prepared.arguments, plan_.cwd);
      session_options[r.call_id] = static_cast<int>(e.session_options.size());
      for (const auto& option : e.session_options) {
        events::SessionRuleOption offered;
        for (const config::RuleConfig& rule : option) {
          offered.rules.push_back(tools::policy::DescribeRule(rule));
        }
        call.session_rules.push_back(std::move(offered));
      }
    }
    request.calls.push_back(std::move(call));
  }
  ApprovalBroker& broker = plan_.session->approvals();
  RETURN_IF_ERROR(broker.Open(request.request_id, pending, session_options));
  const std::string request_id = request.request_id;
  RETURN_IF_ERROR(Commit({std::move(request)}));
  hooks_.Fire(config::HookEvent::kNotification, "", [&] {
    return hooks::NotificationFields(
        events::NoticeLevel::kInfo,
        absl::StrCat("Raw is waiting for approval of ", pending.size(),
                     pending.size() == 1 ? " tool call" : " tool calls"));
  });

  ApprovalOutcome outcome;
  {
    StepTimeline::Outside outside(timeline_);  // the user's time
    outcome = broker.Wait(absl::Milliseconds(plan_.agent.agent.approval_timeout_ms), cancel_);
  }
  events::ApprovalResolved resolved{request_id, outcome.answers, outcome.resolution};
  RETURN_IF_ERROR(Commit({resolved}));

  std::map<std::string, const events::ApprovalAnswer*> by_call;
  for (const auto& a : outcome.answers) by_call[a.call_id] = &a;
  for (Entry& e : entries) {
    if (e.state != events::ApprovalState::kPending) continue;
    const events::ApprovalAnswer& a = *by_call.at(e.call->request.call_id);
    switch (a.decision) {
      case events::ApprovalDecision::kAllowSession:
        if (plan_.session && !e.session_options.empty()) {
          size_t chosen = static_cast<size_t>(a.session_rule);
          plan_.session->AddSessionRules(
              e.session_options[chosen < e.session_options.size() ? chosen : 0]);
        }
        [[fallthrough]];
      case events::ApprovalDecision::kAllowOnce:
        e.state = events::ApprovalState::kAllowed;
        e.reason = "approved";
        e.approved_by_user = true;
        break;
      case events::ApprovalDecision::kDeny:
        e.state = events::ApprovalState::kDenied;
        if (outcome.unanswered.contains(a.call_id)) {
          e.reason = a.message;  // why nobody answered: the timeout or cancellation
        } else if (a.unattended) {
          // The client had no one to ask: the model must not read that the
          // user said no, and the client's reason is not a user's message.
          e.reason = a.message.empty()
                         ? "no one was there to approve it"
                         : absl::StrCat("no one was there to approve it: ", a.message);
        } else {
          e.reason = "denied by the user";
          e.deny_message = a.message;
        }
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status ToolBatch::Run(const std::vector<CollectedCall>& calls) {
  // A hook is a program of the user's that may take its time: the step's
  // events are stored before it starts.
  if (!hooks_.empty()) RETURN_IF_ERROR(CommitLeading());
  absl::Status status = RunGated(calls);
  // Whatever ended the batch, the step's events are stored.
  if (absl::Status leading = CommitLeading(); status.ok()) status = leading;
  return status;
}

absl::Status ToolBatch::RunGated(const std::vector<CollectedCall>& calls) {
  std::vector<Entry> entries;
  entries.reserve(calls.size());
  std::map<std::string_view, int> uses;
  for (const CollectedCall& call : calls) ++uses[call.request.call_id];
  bool ask = false;
  for (const CollectedCall& call : calls) {
    if (cancel_.cancelled()) break;
    entries.push_back(Gate(call, uses[call.request.call_id] > 1));
    ask = ask || entries.back().state == events::ApprovalState::kPending;
  }
  if (ask && !cancel_.cancelled()) {
    if (!plan_.session) return absl::InternalError("approval requested without a session");
    RETURN_IF_ERROR(AskForApproval(entries));
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    if (cancel_.cancelled() || i >= entries.size()) {
      auto it = plan_.tools.find(calls[i].request.name);
      const tools::ToolSpec* spec = it == plan_.tools.end() ? nullptr : it->second;
      tools::ToolOutput cancelled =
          NotRun(spec, tools::ToolOutput::Cancelled(
                           "Cancelled: the turn was interrupted before this call ran."));
      RETURN_IF_ERROR(CommitResult(calls[i], cancelled, 0));
      continue;
    }
    RETURN_IF_ERROR(RunEntry(entries[i]));
  }
  return absl::OkStatus();
}

std::optional<std::string> ToolBatch::PathChanged(const Entry& e,
                                                  std::optional<std::string>& run_path) const {
  if (!e.judged_path) return std::nullopt;
  const tools::ToolSpec& spec = *e.prepared.spec;
  std::optional<std::string> now =
      tools::policy::RuleSet::ResolvedPath(spec, e.prepared.arguments, plan_.cwd);
  run_path = now;
  if (!now || *now == *e.judged_path) return std::nullopt;
  tools::policy::Decision again =
      rules_.Evaluate(spec, e.prepared.arguments, plan_.cwd, plan_.agent.agent.approval_mode);
  if (again.action == config::RuleAction::kAllow) return std::nullopt;
  return absl::StrCat("the path resolved to ", *e.judged_path, " when the call was judged and "
                      "now resolves to ", *now, ", which the rules do not allow without asking: ",
                      again.reason);
}

std::optional<std::string> ToolBatch::RedirectChanged(const Entry& e) const {
  if (e.judged_redirects.empty()) return std::nullopt;
  const tools::ToolSpec& spec = *e.prepared.spec;
  std::vector<tools::policy::RedirectTarget> now =
      tools::policy::RuleSet::ResolvedRedirects(spec, e.prepared.arguments, plan_.cwd);
  if (now == e.judged_redirects) return std::nullopt;
  tools::policy::Decision again =
      rules_.Evaluate(spec, e.prepared.arguments, plan_.cwd, plan_.agent.agent.approval_mode);
  if (again.action == config::RuleAction::kAllow) return std::nullopt;
  auto where = [](const std::optional<std::string>& resolved) {
    return resolved ? *resolved : std::string("a place only running the line tells");
  };
  std::string moved = "the line's redirections changed";
  for (size_t i = 0; i < e.judged_redirects.size() && i < now.size(); ++i) {
    if (now[i] == e.judged_redirects[i]) continue;
    moved = absl::StrCat("the redirect target ", now[i].written, " resolved to ",
                         where(e.judged_redirects[i].resolved),
                         " when the call was judged and now resolves to ", where(now[i].resolved));
    break;
  }
  return absl::StrCat(moved, ", which the rules do not allow without asking: ", again.reason);
}

absl::Status ToolBatch::RunEntry(const Entry& e) {
  const CollectedCall& call = *e.call;
  if (e.prepared.error) return CommitResult(call, NotRun(e.prepared.spec, *e.prepared.error), 0);
  if (e.state == events::ApprovalState::kDenied) {
    return CommitResult(call,
                        {events::ToolStatus::kDenied, DeniedContent(e.reason, e.deny_message), {}, {}},
                        0);
  }
  const tools::ToolSpec& spec = *e.prepared.spec;
  const std::string tool = spec.qualified_name;
  std::optional<std::string> run_path;
  std::optional<std::string> changed = PathChanged(e, run_path);
  if (!changed) changed = RedirectChanged(e);
  if (changed) {
    return CommitResult(call, {events::ToolStatus::kDenied, DeniedContent(*changed, ""), {}, {}},
                        0);
  }
  RETURN_IF_ERROR(Commit({events::ToolStarted{call.request.call_id, call.request.name, tool}}));
  tools::ToolContext ctx{plan_.cwd, plan_.tool_settings, cancel_, plan_.http, &plan_.skills};
  ctx.on_progress = [this, &call](const tools::ToolProgress& p) {
    log_.PublishLive(plan_.turn_id,
                     events::ToolProgress{call.request.call_id, p.progress, p.total, p.message});
  };
  ctx.withheld = rules_.WalkFilterFor(spec, plan_.cwd, e.approved_by_user);
  if (spec.rule_subject == tools::RuleSubject::kPath)
    ctx.protected_link = rules_.ProtectedLinkCheck();
  ctx.url_refused = rules_.UrlRefusalFor(spec);
  ctx.withheld_env = plan_.withheld_env;
  ctx.session_id = log_.session_id();
  ctx.prior_meta = [this, tool] { return PriorMeta(tool); };
  ctx.redact = [this](const std::string& text) { return log_.Redact(text); };
  ctx.safe_end = [this](std::string_view text) {
    return vars::SafeRedactionCut(text, log_.SecretValues());
  };
  ctx.safe_start = [this](std::string_view text, size_t start) {
    return vars::SafeRedactionStart(text, start, log_.SecretValues());
  };
  ctx.judged_path = std::move(run_path);
  ctx.raven_settings = plan_.raven_settings.get();
  ctx.resolve_variable = plan_.resolve_variable;
  ctx.drafter = plan_.drafter.get();
  ctx.on_skill_loaded = [this](const std::string& name, const std::string& text_hash) {
    if (plan_.session) plan_.session->SetLoadedSkill(name, text_hash);
  };
  const int64_t start = MonotonicMs();
  tools::ToolOutput output;
  {
    StepTimeline::Outside outside(timeline_);  // the tool's own time
    output = RunPreparedCall(e.prepared, ctx);
  }
  const int64_t duration = MonotonicMs() - start;
  // Known secret values reach neither a post_tool_use hook nor, later, the
  // store, a client or the model.
  output.content = log_.Redact(output.content);
  output.display = log_.Redact(output.display);

  // The result is stored before the hook runs: a hook takes up to its
  // timeout, and a daemon stopped meanwhile must not report a call that
  // finished as one that may not have run. The hook only observes.
  absl::Status committed = CommitResult(call, output, duration);
  hooks_.Report(config::HookEvent::kPostToolUse, tool, [&] {
    return hooks::PostToolUseFields(tool, e.prepared.arguments, output.status, output.content);
  });
  return committed;
}

absl::StatusOr<std::vector<std::string>> ToolBatch::PriorMeta(const std::string& tool) const {
  return log_.store().ReadToolMeta(log_.session_id(), tool);
}

tools::ToolOutput ToolBatch::NotRun(const tools::ToolSpec* spec, tools::ToolOutput output) const {
  if (spec == nullptr) return output;  // an unknown tool
  const std::string tool = spec->qualified_name;
  return WithNotRunNote(
      *spec, [this, tool] { return PriorMeta(tool); }, std::move(output));
}

absl::Status ToolBatch::CommitResult(const CollectedCall& call, const tools::ToolOutput& output,
                                     int64_t duration_ms) {
  events::ToolResult r;
  r.call_id = call.request.call_id;
  r.name = call.request.name;
  r.tool = QualifiedName(call);
  r.status = output.status;
  // Known secret values never reach the store, a client or the model.
  r.content = log_.Redact(output.content);
  r.display = log_.Redact(output.display);
  r.meta = log_.Redact(output.meta);
  r.duration_ms = duration_ms;
  // The context keeps the outcome as it is stored (SessionLog::RedactItem):
  // its content is redacted above, the model's id and name here.
  events::ToolOutcome outcome{log_.Redact(call.request.call_id), log_.Redact(call.request.name),
                              r.content, output.status != events::ToolStatus::kOk};
  CommitExtras extras;
  extras.context_appends.push_back(outcome);
  extras.conversation_activity = true;
  RETURN_IF_ERROR(Commit({std::move(r)}, std::move(extras)));
  context_.push_back(std::move(outcome));
  return absl::OkStatus();
}

}  // namespace raw::loop
