#include "daemon/loop/session_runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/loop/compaction_step.h"
#include "daemon/loop/runtime_record.h"
#include "daemon/providers/provider_factory.h"

namespace raw::loop {

std::shared_ptr<SessionRunner> SessionRunner::Create(const store::SessionRecord& record,
                                                     SessionRunnerDeps deps) {
  return std::shared_ptr<SessionRunner>(new SessionRunner(record, std::move(deps)));
}

SessionRunner::SessionRunner(const store::SessionRecord& record, SessionRunnerDeps deps)
    : session_id_(record.id),
      deps_(std::move(deps)),
      log_(std::make_shared<SessionLog>(record.id, record.last_seq, deps_.store, deps_.clock,
                                        deps_.secrets, record.seq_reserved)),
      queue_(SerialQueue::Create(deps_.pool)),
      saved_meter_(record.context_meter) {
  log_->set_max_live_bytes(deps_.max_live_bytes);
  state_->SetRuntime(ParseRuntime(record.runtime_hash));
}

// Every task in flight holds a shared_ptr to the runner, so by now nothing
// runs.
SessionRunner::~SessionRunner() = default;

void SessionRunner::Post(std::function<void()> command, const StatusReply& on_refused) {
  if (!queue_->Post(std::move(command))) {
    on_refused(absl::UnavailableError("the daemon is shutting down"));
  }
}

bool SessionRunner::ShuttingDown() const {
  absl::MutexLock lock(&mu_);
  return shutting_down_;
}

absl::Status SessionRunner::Removed() const {
  absl::MutexLock lock(&mu_);
  return removed_;
}

void SessionRunner::MarkRemoved(absl::Status why) {
  absl::MutexLock gate(&removal_mu_);
  absl::MutexLock lock(&mu_);
  if (removed_.ok()) removed_ = std::move(why);
}

absl::Status SessionRunner::CheckWriteCommand(const std::string& lease_id, bool needs_history) {
  // Before the lease: the removal ended it, and "not found" is the reason.
  RETURN_IF_ERROR(Removed());
  RETURN_IF_ERROR(deps_.leases.CheckWrite(session_id_, lease_id));
  if (ShuttingDown()) return absl::UnavailableError("the daemon is shutting down");
  if (needs_history) RETURN_IF_ERROR(CheckWritable());
  return absl::OkStatus();
}

std::string SessionRunner::BusyMessage() const {
  const std::string op = current_op_.empty() ? "" : absl::StrCat(" (", current_op_, ")");
  if (op_state_ == State::kCompaction) {
    return absl::StrCat("session ", session_id_, " is busy: a compaction is running", op,
                        "; interrupt it or wait for it to end");
  }
  return absl::StrCat("session ", session_id_, " already has a running turn", op,
                      "; interrupt it or wait for it to end");
}

bool SessionRunner::ReadyOrDefer(std::function<void()> retry, const StatusReply& busy) {
  // Checked again under mu_: BeginShutdown may have come after the command's
  // first check, and nothing may start once it has; nor once the session
  // was removed (MarkRemoved, before an off-queue removal's shutdown).
  if (!removed_.ok()) {
    busy(removed_);
    return false;
  }
  if (shutting_down_) {
    busy(absl::UnavailableError("the daemon is shutting down"));
    return false;
  }
  if (op_state_ == State::kIdle) return true;
  if (ending_) {
    // Clients may already have seen the compaction's end: this command
    // runs as soon as the compaction is finished, instead of failing.
    deferred_.push_back(std::move(retry));
    return false;
  }
  busy(absl::FailedPreconditionError(BusyMessage()));
  return false;
}

void SessionRunner::StartTurn(std::string text, std::string lease_id, Reply<std::string> reply,
                              std::vector<events::ImageUpload> images, std::string turn_id) {
  auto self = shared_from_this();
  // Shared, not copied, by the commands that carry it on.
  auto uploads = std::make_shared<const std::vector<events::ImageUpload>>(std::move(images));
  Post([self, text = std::move(text), lease_id = std::move(lease_id), uploads,
        turn_id = std::move(turn_id),
        reply] { self->DoStartTurn(text, uploads, lease_id, turn_id, reply); },
       [reply](absl::Status s) { reply(s); });
}

absl::StatusOr<uint64_t> SessionRunner::FirstSeqOfId(const std::string& op_id) {
  if (op_id.empty()) return absl::NotFoundError("no id");
  // One indexed read: an id the session has used names that operation's
  // events already.
  return deps_.store.FirstSeqOfTurn(session_id_, op_id);
}

absl::Status SessionRunner::CheckRequestedIdLocked(const std::string& op_id, const char* what,
                                                   const absl::StatusOr<uint64_t>& used) {
  if (op_id.empty()) return absl::OkStatus();
  auto ahead = std::find(interrupted_ahead_.begin(), interrupted_ahead_.end(), op_id);
  if (ahead != interrupted_ahead_.end()) {
    interrupted_ahead_.erase(ahead);
    return absl::CancelledError(
        absl::StrCat("the ", what, " was interrupted before it started (interrupted)"));
  }
  if (used.ok() || op_id == current_op_) {
    return absl::InvalidArgumentError(
        absl::StrCat("session ", session_id_, " already has an operation with id ", op_id));
  }
  if (!absl::IsNotFound(used.status())) return used.status();
  return absl::OkStatus();
}

absl::StatusOr<TurnPlan> SessionRunner::PlanTurn(const std::string& text,
                                                 const std::vector<events::ImageUpload>& uploads) {
  // Encoding up to 10 MiB of images is work for the pool, like the plan.
  absl::StatusOr<std::vector<events::ImagePart>> images = events::CheckPromptImages(uploads);
  if (!images.ok()) return images.status();
  absl::StatusOr<TurnPlan> plan = deps_.planner(PlanPurpose::kTurn, text);
  if (!plan.ok() || images->empty()) return plan;
  const config::ModelConfig& model = plan->agent.model;
  if (!model.images) {
    return absl::FailedPreconditionError(
        absl::StrCat("the model \"", model.name, "\" (", model.model_id,
                     ") is not configured to take images; set \"images\": true in its entry under "
                     "\"models\" if it does, or send the prompt without images"));
  }
  plan->images = *std::move(images);
  return plan;
}

void SessionRunner::DoStartTurn(const std::string& text, const ImageUploads& uploads,
                                const std::string& lease_id, const std::string& turn_id,
                                const Reply<std::string>& reply) {
  if (absl::Status s = CheckWriteCommand(lease_id, true); !s.ok()) return reply(s);
  auto self = shared_from_this();
  const Reply<std::string> once = ReplyOnce(reply);
  uint64_t prep = 0;
  const absl::StatusOr<uint64_t> used = FirstSeqOfId(turn_id);  // read before the lock
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = CheckRequestedIdLocked(turn_id, "turn", used); !s.ok()) return reply(s);
    if (!ReadyOrDefer([self, text, uploads, lease_id, turn_id,
                       reply] { self->DoStartTurn(text, uploads, lease_id, turn_id, reply); },
                      [&](absl::Status s) { reply(s); })) {
      return;
    }
    prep = BeginPreparingLocked([once](absl::Status s) { once(s); },
                                "the turn was interrupted before it started", turn_id, lease_id);
  }
  // The plan may take seconds (MCP servers, secret variables, a probe):
  // built off the queue, so an interrupt is not held up behind it, and an
  // interrupt abandons it at once (Interrupt).
  bool scheduled = deps_.pool.Schedule([self, text, uploads, once, prep, lease_id] {
    auto plan = std::make_shared<absl::StatusOr<TurnPlan>>(self->PlanTurn(text, *uploads));
    if (plan->ok()) {
      // The mode this lease chose, if any, for calls no rule matches.
      config::ApprovalMode& mode = (*plan)->agent.agent.approval_mode;
      mode = self->EffectiveApprovalMode(mode, lease_id);
    }
    self->Post([self, plan, once, prep] { self->BeginTurn(std::move(*plan), once, prep); },
               [once](absl::Status s) { once(s); });
  });
  if (!scheduled) {
    absl::MutexLock lock(&mu_);
    if (EndPreparingLocked(prep)) BecomeIdleLocked();
    once(absl::UnavailableError("the daemon is shutting down"));
  }
}

void SessionRunner::BeginTurn(absl::StatusOr<TurnPlan> plan, const Reply<std::string>& reply,
                              uint64_t prep, int64_t waited_since_ns) {
  auto self = shared_from_this();
  absl::MutexLock lock(&mu_);
  if (warming_ && prep == prep_id_ && op_state_ == State::kPreparing) {
    // The warm-up serializes what this turn's first request would: the
    // turn starts when it ends.
    auto held = std::make_shared<absl::StatusOr<TurnPlan>>(std::move(plan));
    const int64_t since = waited_since_ns > 0 ? waited_since_ns : SteadyNowNs();
    after_warm_.push_back([self, held, reply, prep, since] {
      self->BeginTurn(std::move(*held), reply, prep, since);
    });
    return;
  }
  if (!EndPreparingLocked(prep)) return;  // abandoned: the caller has its answer
  if (waited_since_ns > 0 && warm_serialize_start_ns_ > 0 && plan.ok()) {
    // The first step counts the wait for the serialization it did not do.
    plan->start_waited_ns =
        std::max<int64_t>(0, SteadyNowNs() - std::max(waited_since_ns, warm_serialize_start_ns_));
  }
  absl::Status refused = plan.status();
  if (refused.ok() && cancel_->cancelled()) {
    refused = absl::CancelledError(
        absl::StrCat("the turn was interrupted before it started (", cancel_->reason(), ")"));
  }
  if (refused.ok()) refused = LoadContextForWriteLocked(*plan);
  if (refused.ok() && !plan->images.empty()) refused = CheckContextImagesLocked(plan->images);
  if (!refused.ok()) {
    BecomeIdleLocked();
    return reply(refused);
  }
  if (!preparing_op_.empty()) plan->turn_id = preparing_op_;
  plan->session = state_;
  plan->end_reports = end_reports_;
  plan->first_seq_of_turn = [self](const std::string& turn_id) -> uint64_t {
    absl::StatusOr<uint64_t> seq = self->deps_.store.FirstSeqOfTurn(self->session_id_, turn_id);
    return seq.ok() ? *seq : 0;
  };
  const std::string turn_id = plan->turn_id;
  SetStateLocked(State::kTurn);
  current_op_ = turn_id;
  auto cancel = cancel_;
  auto shared_plan = std::make_shared<TurnPlan>(std::move(*plan));
  bool scheduled = deps_.pool.Schedule([self, shared_plan, cancel, turn_id] {
    events::TurnEnded end;
    std::optional<OwedEvent> owed;
    {
      Turn turn(std::move(*shared_plan), *self->log_, self->ctx_, *cancel);
      end = turn.Run();
      owed = turn.owed_compaction_end();
      // The meter as the turn leaves it (tool results included), stored
      // with the end so that a restarted daemon keeps the baseline.
      self->ctx_.SyncMeter();
      // The end is stored before the turn_end hooks run (up to their
      // timeout): a daemon stopped meanwhile keeps a turn that ended.
      const bool stored = self->StoreTurnEnd(turn_id, end, owed);
      turn.ReportEnd(end, stored);
    }
    self->Post([self, turn_id, end, owed] { self->FinishTurn(turn_id, end, owed); },
               [self, turn_id, end, owed](absl::Status) { self->FinishTurn(turn_id, end, owed); });
  });
  if (!scheduled) {
    BecomeIdleLocked();
    return reply(absl::UnavailableError("the daemon is shutting down"));
  }
  reply(turn_id);
}

absl::Status SessionRunner::CheckContextImagesLocked(const std::vector<events::ImagePart>& images) {
  // Only prompts with images pay for this walk over the context.
  size_t held = 0;
  for (const events::ContextItem& item : ctx_.items) {
    if (const auto* user = std::get_if<events::UserText>(&item)) {
      for (const events::ImagePart& image : user->images) held += events::ImageByteSize(image);
    }
  }
  size_t adding = 0;
  for (const events::ImagePart& image : images) adding += events::ImageByteSize(image);
  if (held + adding <= events::kMaxContextImageBytes) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the model context already holds ", held, " bytes of images; with this prompt's ", adding,
      " it would pass ", events::kMaxContextImageBytes,
      " (every request sends them again); use /compact or /clear first, or send fewer images"));
}

bool SessionRunner::StoreTurnEnd(const std::string& turn_id, const events::TurnEnded& end,
                                 std::optional<OwedEvent>& owed) {
  absl::MutexLock lock(&mu_);
  CommitExtras extras = EndExtras();
  extras.conversation_activity = true;
  extras.context_meter = ctx_.meter.Serialize();
  // Not running from here on, for readers that do not take the lock: one
  // that saw TurnEnded must not be told otherwise (as in FinishTurn).
  state_seen_.store(State::kIdle, std::memory_order_release);
  absl::Status stored;
  if (owed) {
    stored = log_->CommitPublished(owed->seq, turn_id, owed->payload);
    if (stored.ok()) owed.reset();
  }
  if (stored.ok()) stored = log_->Commit(turn_id, {end}, std::move(extras));
  if (!stored.ok()) return false;  // FinishTurn tries again, on the queue
  end_stored_ = true;
  // Commands wait for FinishTurn rather than fail: clients have seen the end.
  ending_ = true;
  return true;
}

void SessionRunner::FinishTurn(const std::string& turn_id, const events::TurnEnded& end,
                               std::optional<OwedEvent> owed) {
  absl::Status stored;
  CommitExtras kept;
  {
    absl::MutexLock lock(&mu_);
    if (end_stored_) {
      end_stored_ = false;
      return BecomeIdleLocked();
    }
    CommitExtras extras = EndExtras();
    extras.conversation_activity = true;
    extras.context_meter = ctx_.meter.Serialize();
    // Not running from here on, for readers that do not take the lock: one
    // that saw TurnEnded must not be told otherwise.
    state_seen_.store(State::kIdle, std::memory_order_release);
    kept = extras;
    // An automatic compaction's end the store refused comes first: no end
    // of the turn is stored after a compaction without its own.
    if (owed) {
      stored = log_->CommitPublished(owed->seq, turn_id, owed->payload);
      if (stored.ok()) owed.reset();
    }
    if (stored.ok()) stored = log_->Commit(turn_id, {end}, std::move(extras));
    if (stored.ok()) return BecomeIdleLocked();
  }
  RAW_LOG(Error) << "session " << session_id_ << ": could not store the end of turn " << turn_id
                 << ": " << stored.message() << "; the session takes no writes until it is stored";
  // Nothing else of the session runs meanwhile: this is its queue. The locks
  // are taken in their order (recovery_mu_ first).
  absl::MutexLock recovery_lock(&recovery_mu_);
  absl::MutexLock lock(&mu_);
  // Subscribers learn at once that the turn ended, and why it is not in the
  // history yet. The end as it happened is stored before anything else of
  // the session is (RecoverOnceLocked), under the seq they saw it under.
  events::TurnEnded shown = end;
  shown.message = absl::StrCat(end.message, end.message.empty() ? "" : "; ",
                               "the end of this turn could not be stored (", stored.message(),
                               "); the session takes no writes until it is");
  const uint64_t seq = log_->PublishUnstored(turn_id, shown);
  std::vector<OwedEvent> to_store;
  if (owed) to_store.push_back(std::move(*owed));
  to_store.push_back(OwedEvent{seq, end});
  unstored_end_ = UnstoredEnd{turn_id, "turn", std::move(to_store), std::move(kept)};
  recovered_ = false;
  recovered_seen_.store(false, std::memory_order_release);
  recovery_error_ = absl::Status(stored.code(), UnstoredEndReason("turn", turn_id, stored));
  BecomeIdleLocked();
}

void SessionRunner::StartCompaction(std::string lease_id, Reply<std::string> reply,
                                    std::string operation_id) {
  auto self = shared_from_this();
  Post([self, lease_id = std::move(lease_id), operation_id = std::move(operation_id),
        reply] { self->DoStartCompaction(lease_id, operation_id, reply); },
       [reply](absl::Status s) { reply(s); });
}

void SessionRunner::DoStartCompaction(const std::string& lease_id, const std::string& operation_id,
                                      const Reply<std::string>& reply) {
  if (absl::Status s = CheckWriteCommand(lease_id, true); !s.ok()) return reply(s);
  auto self = shared_from_this();
  const Reply<std::string> once = ReplyOnce(reply);
  uint64_t prep = 0;
  const absl::StatusOr<uint64_t> used = FirstSeqOfId(operation_id);  // read before the lock
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = CheckRequestedIdLocked(operation_id, "compaction", used); !s.ok()) {
      return reply(s);
    }
    if (!ReadyOrDefer([self, lease_id, operation_id,
                       reply] { self->DoStartCompaction(lease_id, operation_id, reply); },
                      [&](absl::Status s) { reply(s); })) {
      return;
    }
    prep = BeginPreparingLocked([once](absl::Status s) { once(s); },
                                "the compaction was interrupted before it started", operation_id,
                                lease_id);
  }
  bool scheduled = deps_.pool.Schedule([self, once, prep] {
    auto plan = std::make_shared<absl::StatusOr<TurnPlan>>(
        self->deps_.planner(PlanPurpose::kCompaction, ""));
    self->Post([self, plan, once, prep] { self->BeginCompaction(std::move(*plan), once, prep); },
               [once](absl::Status s) { once(s); });
  });
  if (!scheduled) {
    absl::MutexLock lock(&mu_);
    if (EndPreparingLocked(prep)) BecomeIdleLocked();
    once(absl::UnavailableError("the daemon is shutting down"));
  }
}

void SessionRunner::BeginCompaction(absl::StatusOr<TurnPlan> plan,
                                    const Reply<std::string>& reply, uint64_t prep) {
  auto self = shared_from_this();
  absl::MutexLock lock(&mu_);
  if (warming_ && prep == prep_id_ && op_state_ == State::kPreparing) {
    auto held = std::make_shared<absl::StatusOr<TurnPlan>>(std::move(plan));
    after_warm_.push_back(
        [self, held, reply, prep] { self->BeginCompaction(std::move(*held), reply, prep); });
    return;
  }
  if (!EndPreparingLocked(prep)) return;  // abandoned: the caller has its answer
  absl::Status refused = plan.status();
  if (refused.ok() && cancel_->cancelled()) {
    refused = absl::CancelledError(absl::StrCat(
        "the compaction was interrupted before it started (", cancel_->reason(), ")"));
  }
  if (refused.ok()) refused = LoadContextForWriteLocked(*plan);
  if (!refused.ok()) {
    BecomeIdleLocked();
    return reply(refused);
  }
  plan->turn_id = preparing_op_.empty() ? NewId("compact_") : preparing_op_;
  plan->session = state_;
  plan->first_seq_of_turn = [self](const std::string& turn_id) -> uint64_t {
    absl::StatusOr<uint64_t> seq = self->deps_.store.FirstSeqOfTurn(self->session_id_, turn_id);
    return seq.ok() ? *seq : 0;
  };
  const std::string op_id = plan->turn_id;
  SetStateLocked(State::kCompaction);
  current_op_ = op_id;
  auto cancel = cancel_;
  auto shared_plan = std::make_shared<TurnPlan>(std::move(*plan));
  bool scheduled = deps_.pool.Schedule([self, shared_plan, cancel, op_id] {
    const TurnPlan& p = *shared_plan;
    TurnHooks hooks(p.hooks, p.session_id, p.cwd, p.withheld_env, op_id, *self->log_, *cancel);
    CompactionResult result =
        CompactSession(events::CompactionTrigger::kManual, /*last_turn_running=*/false, p,
                       self->ctx_, *self->log_, hooks, *cancel, [self] {
                         absl::MutexLock self_lock(&self->mu_);
                         self->ending_ = true;
                         // As for a turn's end (FinishTurn).
                         self->state_seen_.store(State::kIdle, std::memory_order_release);
                       });
    auto finish = [self, op_id, ended = std::move(result.ended), seq = result.unstored_end_seq,
                   cause = result.unstored_end_cause] {
      // On the queue, before the next command: an end the store refused is
      // stored before anything else of the session.
      if (seq != 0) self->RecordUnstoredCompactionEnd(op_id, ended, seq, cause);
      absl::MutexLock self_lock(&self->mu_);
      self->BecomeIdleLocked();
    };
    self->Post(finish, [finish](absl::Status) { finish(); });
  });
  if (!scheduled) {
    BecomeIdleLocked();
    return reply(absl::UnavailableError("the daemon is shutting down"));
  }
  reply(op_id);
}

uint64_t SessionRunner::BeginPreparingLocked(StatusReply on_abandon, std::string abandon_message,
                                             std::string op_id, std::string lease_id) {
  SetStateLocked(State::kPreparing);
  current_op_.clear();
  preparing_op_ = std::move(op_id);
  op_lease_ = std::move(lease_id);
  cancel_ = std::make_shared<CancelToken>();
  end_reports_ = std::make_shared<CancelToken>();
  prep_abandon_ = [on_abandon = std::move(on_abandon),
                   message = std::move(abandon_message)](const std::string& reason) {
    on_abandon(absl::CancelledError(absl::StrCat(message, " (", reason, ")")));
  };
  return ++prep_id_;
}

bool SessionRunner::EndPreparingLocked(uint64_t prep) {
  if (prep != prep_id_ || op_state_ != State::kPreparing) return false;
  prep_abandon_ = nullptr;
  return true;
}

void SessionRunner::AbandonPreparationLocked(const std::string& reason) {
  cancel_->Cancel(reason);
  // The plan's pool task runs on until its slow step returns (a variable
  // command's result is still cached for later); its outcome is dropped.
  auto abandon = std::move(prep_abandon_);
  prep_abandon_ = nullptr;
  ++prep_id_;
  BecomeIdleLocked();
  if (abandon) abandon(reason);
}

namespace {

// Posts `commands` to `queue` in order, leaving `commands` empty.
void Repost(SerialQueue& queue, std::vector<std::function<void()>>& commands) {
  std::vector<std::function<void()>> taken;
  taken.swap(commands);
  for (auto& command : taken) {
    if (!queue.Post(command)) break;  // shutting down: the pool is gone
  }
}

}  // namespace

void SessionRunner::BecomeIdleLocked() {
  SetStateLocked(State::kIdle);
  ending_ = false;
  current_op_.clear();
  op_lease_.clear();
  cancel_.reset();
  end_reports_.reset();
  Repost(*queue_, deferred_);
}

void SessionRunner::EndWarmUp() {
  absl::MutexLock lock(&mu_);
  EndWarmUpLocked();
}

void SessionRunner::EndWarmUpLocked() {
  warming_ = false;
  Repost(*queue_, after_warm_);
}

void SessionRunner::Clear(std::string lease_id, Reply<events::ContextEstimate> reply) {
  auto self = shared_from_this();
  Post([self, lease_id = std::move(lease_id), reply] { self->DoClear(lease_id, reply); },
       [reply](absl::Status s) { reply(s); });
}

void SessionRunner::DoClear(const std::string& lease_id,
                            const Reply<events::ContextEstimate>& reply) {
  if (absl::Status s = CheckWriteCommand(lease_id, true); !s.ok()) return reply(s);
  auto self = shared_from_this();
  {
    absl::MutexLock lock(&mu_);
    auto retry = [self, lease_id, reply] { self->DoClear(lease_id, reply); };
    if (!ReadyOrDefer(retry, [&](absl::Status s) { reply(s); }) || AfterWarmUpLocked(retry)) {
      return;
    }
  }
  // Only what the model sees: no providers, nothing started; quick. Nothing
  // else changes the session meanwhile: this is the queue.
  absl::StatusOr<TurnPlan> plan = deps_.planner(PlanPurpose::kContextOnly, "");
  if (!plan.ok()) return reply(plan.status());
  plan->turn_id = NewId("clear_");
  absl::MutexLock lock(&mu_);
  absl::StatusOr<events::ContextCleared> cleared = ClearLocked(*plan);
  if (!cleared.ok()) return reply(cleared.status());
  ctx_.SyncMeter();
  reply(ctx_.meter.Estimate(plan->agent.model.context_window_tokens));
}

absl::StatusOr<events::ContextCleared> SessionRunner::ClearLocked(const TurnPlan& plan) {
  // /clear would drop the context anyway, but its meter and the estimate it
  // reports come from the loaded one.
  RETURN_IF_ERROR(LoadContextForWriteLocked(plan));
  ctx_.SyncMeter();
  events::ContextCleared cleared;
  cleared.tokens_before = ctx_.meter.tokens();
  SessionContext after;
  after.runtime_tokens = ctx_.runtime_tokens;
  after.SetModel(plan.agent.model);
  after.Rewrite({});
  cleared.tokens_after = after.meter.tokens();
  // The model no longer has any skill text it loaded.
  RuntimeRecord runtime = state_->runtime();
  runtime.loaded_skills.clear();
  CommitExtras extras;
  extras.replace_context = std::vector<events::ContextItem>{};
  extras.context_meter = after.meter.Serialize();
  extras.runtime_hash = SerializeRuntime(runtime);
  RETURN_IF_ERROR(log_->Commit(plan.turn_id, {cleared}, std::move(extras)));
  ctx_ = std::move(after);
  state_->ForgetLoadedSkills();
  events::ContextEstimate estimate = ctx_.meter.Estimate(plan.agent.model.context_window_tokens);
  state_->SetEstimate(estimate);
  log_->PublishLive(plan.turn_id, estimate);
  return cleared;
}

void SessionRunner::Interrupt(std::string lease_id, Reply<bool> reply, std::string operation_id,
                              bool only_own) {
  auto self = shared_from_this();
  Post(
      [self, lease_id = std::move(lease_id), operation_id = std::move(operation_id), reply,
       only_own] {
        if (absl::Status s = self->CheckWriteCommand(lease_id, false); !s.ok()) return reply(s);
        absl::MutexLock lock(&self->mu_);
        if (only_own && (self->op_state_ == State::kIdle || self->op_lease_ != lease_id)) {
          return reply(false);
        }
        if (!operation_id.empty()) {
          const bool named =
              self->op_state_ == State::kPreparing
                  ? self->preparing_op_ == operation_id
                  : self->op_state_ != State::kIdle && self->current_op_ == operation_id;
          if (!named) {
            // Not begun yet (its start may be on its way), or over.
            std::deque<std::string>& ahead = self->interrupted_ahead_;
            if (std::find(ahead.begin(), ahead.end(), operation_id) == ahead.end()) {
              ahead.push_back(operation_id);
              if (ahead.size() > kMaxInterruptedAhead) ahead.pop_front();
            }
            return reply(false);
          }
        }
        if (self->op_state_ == State::kIdle || !self->cancel_) return reply(false);
        if (self->op_state_ == State::kPreparing) {
          // Nothing has started: the operation ends now, not when its slow
          // preparation (an MCP server, a variable command) returns.
          self->AbandonPreparationLocked("interrupted");
          return reply(true);
        }
        if (self->cancel_->cancelled()) {
          // Interrupted again while it winds down: its post_tool_use and
          // turn_end hooks are killed rather than waited for.
          self->end_reports_->Cancel("interrupted again");
        } else {
          self->cancel_->Cancel("interrupted");
        }
        reply(true);
      },
      [reply](absl::Status s) { reply(s); });
}

void SessionRunner::RespondToApproval(std::string lease_id, std::string request_id,
                                      std::vector<events::ApprovalAnswer> answers,
                                      std::optional<events::ApprovalAnswer> all,
                                      StatusReply reply) {
  auto self = shared_from_this();
  Post(
      [self, lease_id = std::move(lease_id), request_id = std::move(request_id),
       answers = std::move(answers), all = std::move(all), reply] {
        if (absl::Status s = self->CheckWriteCommand(lease_id, true); !s.ok()) return reply(s);
        reply(self->state_->approvals().Respond(request_id, answers, all, lease_id));
      },
      reply);
}

CommitExtras SessionRunner::EndExtras() {
  CommitExtras extras;
  extras.runtime_hash = SerializeRuntime(state_->runtime());
  return extras;
}

absl::Status SessionRunner::LoadContextLocked(const TurnPlan& plan) {
  // A plan that lacks some MCP tools (none of their servers has run since
  // the daemon started) would make the context look smaller than the next
  // request: the runtime known from the session's last change stands then,
  // unless the plan's own is larger (the agent's prompt or tools grew).
  int64_t runtime = plan.runtime_tokens;
  if (!context_loaded_) {
    ASSIGN_OR_RETURN(std::vector<events::ContextItem> items, deps_.store.LoadContext(session_id_));
    ctx_.Load(std::move(items));
    if (plan.runtime_partial) {
      runtime = std::max(runtime, context::ContextMeter::SavedRuntime(saved_meter_).value_or(0));
    }
    ctx_.runtime_tokens = runtime;
    ctx_.meter.SetReasoningRule(providers::ReasoningRuleFor(plan.agent.model), {});
    ctx_.meter.Restore(saved_meter_, runtime, ctx_.items);
    saved_meter_.clear();
    context_loaded_ = true;
    context_in_memory_.store(true, std::memory_order_release);
  } else if (plan.runtime_partial) {
    runtime = std::max(runtime, ctx_.runtime_tokens);
  }
  ctx_.SetRuntime(runtime);
  // A warm-up has the items out on another thread (session_runner_warmup.cc):
  // a change of reasoning rule, which walks them, waits for the next load.
  if (!warming_) ctx_.SetModel(plan.agent.model);
  return absl::OkStatus();
}

absl::Status SessionRunner::LoadContextForWriteLocked(const TurnPlan& plan) {
  absl::Status loaded = LoadContextLocked(plan);
  if (loaded.ok()) return loaded;
  return absl::Status(loaded.code(),
                      absl::StrCat("session ", session_id_,
                                   " cannot be written: its model context could not be read: ",
                                   loaded.message()));
}

absl::StatusOr<events::ContextEstimate> SessionRunner::Estimate(const TurnPlan& plan) {
  absl::MutexLock lock(&mu_);
  if (op_state_ == State::kTurn || op_state_ == State::kCompaction) {
    if (std::optional<events::ContextEstimate> latest = state_->estimate()) return *latest;
    return absl::UnavailableError("the context estimate is not known yet");
  }
  RETURN_IF_ERROR(LoadContextLocked(plan));
  // A warm-up has the items; it synced the meter before taking them.
  if (!warming_) ctx_.SyncMeter();
  return ctx_.meter.Estimate(plan.agent.model.context_window_tokens);
}

bool SessionRunner::context_loaded() const {
  return context_in_memory_.load(std::memory_order_acquire);
}

void SessionRunner::SetStateLocked(State state) {
  op_state_ = state;
  state_seen_.store(state, std::memory_order_release);
}

bool SessionRunner::running() const {
  return state_seen_.load(std::memory_order_acquire) != State::kIdle;
}

bool SessionRunner::compacting() const {
  return state_seen_.load(std::memory_order_acquire) == State::kCompaction;
}

bool SessionRunner::Idle() const {
  {
    // An end the store refused is held only here until it is stored:
    // unloading the runner would leave the turn to recovery, which records
    // that rawd stopped instead of how it ended. A recovery under way (it
    // reads the store) is not waited for: the runner is busy then.
    if (!recovery_mu_.TryLock()) return false;
    const bool owes_end = unstored_end_.has_value();
    recovery_mu_.Unlock();
    if (owes_end) return false;
  }
  {
    absl::MutexLock lock(&mu_);
    if (op_state_ != State::kIdle || !deferred_.empty() || warming_ || !after_warm_.empty()) {
      return false;
    }
  }
  // Every subscription holds the log; so do running turns. Only the runner
  // holding it means nobody watches.
  return queue_->pending() == 0 && log_.use_count() == 1;
}

std::unique_ptr<Subscription> SessionRunner::Subscribe(uint64_t after_seq) {
  return log_->Subscribe(after_seq);
}

absl::StatusOr<std::unique_ptr<Subscription>> SessionRunner::SubscribeWithinBound(
    uint64_t after_seq) {
  auto refused = [&] {
    return absl::ResourceExhaustedError(absl::StrCat(
        "session ", session_id_, " has ", SessionLog::kMaxSubscriptions,
        " event streams open, the most one session keeps; close one (a client or a dashboard "
        "tab) and try again"));
  };
  if (log_->subscriptions() >= SessionLog::kMaxSubscriptions) return refused();
  // Counted once made: of several made at once, none is kept past the bound.
  std::unique_ptr<Subscription> subscription = log_->Subscribe(after_seq);
  if (log_->subscriptions() > SessionLog::kMaxSubscriptions) return refused();
  return subscription;
}

void SessionRunner::BeginShutdown() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
  if (op_state_ == State::kPreparing) {
    AbandonPreparationLocked("the daemon is shutting down");
  } else if (cancel_) {
    cancel_->Cancel("the daemon is shutting down");
    end_reports_->Cancel("the daemon is shutting down");
  }
}

void SessionRunner::AwaitShutdown() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(this, &SessionRunner::QuiescentLocked));
}

void SessionRunner::Shutdown() {
  BeginShutdown();
  AwaitShutdown();
}

}  // namespace raw::loop
