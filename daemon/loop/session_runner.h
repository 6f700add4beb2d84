// SessionRunner: one session's live state in the daemon: its SessionLog,
// its in-memory model context with the context meter, its serial queue, and
// at most one running operation — a turn or a manual compaction.
//
// Every change to the session is a command on the session's SerialQueue
// (common/serial_queue.h): start a turn, interrupt, answer an approval,
// compact, clear, and every change to its write lease (acquire, release,
// withdraw a wait, decline a handover). Commands run one at a time in the
// order they were posted, on the daemon's WorkerPool, and each finishes its
// caller's request through a reply callback; no caller ever waits. A write
// command first checks the caller's write lease (write_leases.h); since the
// lease changes only on this queue, it cannot change while a command runs. Commands are short: the
// slow parts (building the turn's plan, which may start MCP servers, resolve secret variables or
// probe a local server; the turn; the compaction) run as separate pool tasks and post their outcome
// back to the queue. The running operation's end is recorded by a queue command together with the
// state going back to idle, so a client that sees TurnEnded can start the next turn at once; a
// command that arrives while a compaction is recording its end waits for it instead of being
// refused.
//
// Writing needs a readable history. Before the first write the runner reads
// the newest history back to the last turn boundary (RecoverUnfinishedTurn),
// and it builds requests from the stored model context. A stored row that
// does not decode (a damaged event or context item) does not make the runner
// unusable: reading (Subscribe, Estimate while the context reads) goes on,
// and each write first retries what failed and is refused, naming the
// session and the row, while it still fails. Nothing stored is changed or
// removed because of such a row.
//
// Warm-up. The first request after a session is loaded serializes its whole
// history (about 2 ms for 10,000 items); later ones only what was appended
// (providers/serialized_history.h). So when a client takes the write lease
// of a session with a long history, which it does to prompt, the runner
// loads the context and serializes it for the agent's provider at once, on
// a pool task, while the client sends its prompt. Meanwhile the warm-up
// owns the context: a turn or compaction is prepared as usual but starts
// when the warm-up ends, and the time its start waited for the
// serialization is counted in the turn's first step
// (TurnPlan::start_waited_ns; waiting for the load is not, as when the
// turn loads the context itself before it starts); /clear waits too. Reads
// (Estimate) never wait for the serialization: they answer from the meter.
// A warm-up that fails (a config problem) leaves nothing behind: the turn
// reports the problem itself.
//
// Thread-safety: all methods are thread-safe. Replies run on pool threads.
// Owned by shared_ptr (SessionManager's table and every task in flight hold
// one), so unloading a session never leaves a dangling runner.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/cancel_token.h"
#include "common/serial_queue.h"
#include "common/time.h"
#include "common/worker_pool.h"
#include "daemon/loop/session_context.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/session_state.h"
#include "daemon/loop/turn.h"
#include "daemon/loop/write_leases.h"
#include "daemon/store/session_store.h"

namespace raw::loop {

template <typename T>
using Reply = std::function<void(absl::StatusOr<T>)>;
// A session's own MCP servers by name (config::McpServerConfig::session_id
// set).
using McpServerMap = std::map<std::string, config::McpServerConfig>;
using StatusReply = std::function<void(absl::Status)>;

// `reply` made safe to call more than once: only the first call passes.
template <typename T>
Reply<T> ReplyOnce(Reply<T> reply) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  return [reply = std::move(reply), done](absl::StatusOr<T> result) {
    if (!done->exchange(true)) reply(std::move(result));
  };
}

// What a plan is for: a turn (with providers, MCP tools left to the turn),
// a compaction (with providers), only what the model would see (the
// estimate and /clear: no providers, no key, nothing started), or that and a
// provider made without its key or headers (kWarmup: nothing is started or
// sent; the provider only serializes the history ahead of a turn,
// Provider::Prepare).
enum class PlanPurpose { kTurn, kCompaction, kContextOnly, kWarmup };
using Planner =
    std::function<absl::StatusOr<TurnPlan>(PlanPurpose purpose, const std::string& user_text)>;

inline constexpr size_t kDefaultWarmHistoryItems = 512;

struct SessionRunnerDeps {
  store::SessionStore& store;
  const Clock& clock;
  WorkerPool& pool;
  // The daemon's lease table: this runner's lease commands are the only
  // code that changes the session's entry.
  WriteLeases& leases;
  // Builds the session's plan from the config of the moment; may be slow
  // (runs on a pool task, never on the queue).
  Planner planner;
  // The known secret values, which SessionLog hides in everything it
  // stores or publishes; may be empty.
  SessionLog::SecretSource secrets;
  // sessions.max_live_bytes (see SessionLog::set_max_live_bytes).
  int64_t max_live_bytes = config::SessionSettings{}.max_live_bytes;
  // A lease granted on a session whose model context holds at least this
  // many items starts serializing the history for the agent's provider in
  // the background (see "Warm-up" below); below it the first step does it
  // in well under a millisecond.
  size_t warm_history_items = kDefaultWarmHistoryItems;
};

class SessionRunner : public std::enable_shared_from_this<SessionRunner> {
 public:
  static std::shared_ptr<SessionRunner> Create(const store::SessionRecord& record,
                                               SessionRunnerDeps deps);
  ~SessionRunner();

  const std::string& session_id() const { return session_id_; }
  const SessionState& session_state() const { return *state_; }

  // The writes. Each is refused with kFailedPrecondition unless `lease_id`
  // holds the session's write lease, and (but Interrupt) while the session
  // cannot be written.

  // Replies with the turn id once the turn has started, or with the error
  // that kept it from starting (busy, a config problem, a missing key
  // variable; kCancelled when interrupted while it was being prepared).
  // `images` are checked (events::CheckPromptImages) and the agent's model
  // must take images; either problem is the reply, before anything is
  // recorded.
  // `turn_id` (optional) is the id the client chose for the turn (checked
  // by the caller: the form of NewId("turn_")); kInvalidArgument when the
  // session already has a turn of that id, kCancelled when an interrupt
  // named it before it arrived (Interrupt).
  void StartTurn(std::string text, std::string lease_id, Reply<std::string> reply,
                 std::vector<events::ImageUpload> images = {}, std::string turn_id = "");
  // Replies with the compaction's operation id once it has started;
  // `operation_id` as StartTurn's `turn_id` (the form of NewId("compact_")).
  void StartCompaction(std::string lease_id, Reply<std::string> reply,
                       std::string operation_id = "");
  // Removes the conversation from the model context (the display history,
  // usage and agent stay), records ContextCleared, replies with the
  // estimate after.
  void Clear(std::string lease_id, Reply<events::ContextEstimate> reply);
  // Replies false when nothing was running. An interrupt of a turn that is
  // already cancelled ends the hooks that still report on it at once
  // (TurnPlan::end_reports). With `operation_id`, only that turn or
  // compaction, running or being prepared; an id that is neither is
  // remembered (the last kMaxInterruptedAhead), so that a start naming it
  // that arrives later is refused with kCancelled before it begins: an
  // interrupt may overtake the start it is meant for (replies false then).
  // With `only_own`, only an operation started under `lease_id` (false
  // otherwise): a client's lease that ends interrupts its own turn, not one
  // another client started before handing the session over.
  void Interrupt(std::string lease_id, Reply<bool> reply, std::string operation_id = "",
                 bool only_own = false);
  static constexpr size_t kMaxInterruptedAhead = 16;
  void RespondToApproval(std::string lease_id, std::string request_id,
                         std::vector<events::ApprovalAnswer> answers,
                         std::optional<events::ApprovalAnswer> all, StatusReply reply);

  // The write lease commands (write_leases.h). Each runs on the queue, in
  // order with the writes above, and answers from there; the lease's own
  // callbacks (granted, handover_requested, declined) run on the queue too,
  // inside the command that caused them. Posted after the daemon stopped
  // taking work, a command does not run: AcquireLease and DeclineHandover
  // are answered with kUnavailable, and a lease or a wait left over needs no
  // release (leases live in memory only).

  // Answers an acquire with the lease id (granted at once), or the wait id
  // and the holder (a handover was requested), or the refusal
  // (kFailedPrecondition naming the holder; kUnavailable once Shutdown
  // began). The answer returns false when the requester went away before
  // it: the runner then gives up what was acquired within the same command
  // (releases the lease, withdraws the wait), so no lease is left to a gone
  // client. Once the session was removed (MarkRemoved) the refusal is the
  // removal's kNotFound, also for an acquire posted before the removal but
  // run after it.
  using LeaseReply = std::function<bool(absl::StatusOr<WriteLeases::Acquired>)>;
  void AcquireLease(LeaseClient client, WhenHeld when_held, LeaseCallbacks callbacks,
                    LeaseReply reply);
  // WriteLeases::Release and CancelWait as commands. They run also after
  // Shutdown began. `done` (may be null) is told when the command has run,
  // or kUnavailable when it could not be posted.
  void ReleaseLease(std::string lease_id, StatusReply done = nullptr);
  void CancelLeaseWait(std::string wait_id, StatusReply done = nullptr);
  // WriteLeases::EndReservation as a command.
  void EndLeaseReservation();
  // WriteLeases::Decline: replies with how many requests were declined.
  void DeclineHandover(std::string lease_id, Reply<int> reply);

  // Replaces the session's own MCP servers (in memory only; see
  // SessionManager::SetSessionMcpServers). Not refused while an operation
  // runs: the next plan uses them. `reply` runs on the queue, so replies of
  // successive calls come in order.
  void SetMcpServers(std::string lease_id, McpServerMap servers, StatusReply reply);
  // Sets them without a lease: only while nobody else knows the session
  // (CreateSession, before its reply).
  void InitMcpServers(McpServerMap servers);
  // The session's own MCP servers as last set (empty: none).
  McpServerMap mcp_servers() const;
  // The approval mode of the turns the holder of `lease_id` starts from now
  // on (nullopt: the agent's own), in memory only. Needs that lease; not
  // refused while an operation runs (it applies from the next turn). It
  // ends with the lease: turns started under another lease (a handover, a
  // new connection, a restarted daemon) get the agent's own mode again.
  void ChooseApprovalMode(std::string lease_id, std::optional<config::ApprovalMode> mode,
                          StatusReply reply);
  // ChooseApprovalMode's change, made by a command already on the queue
  // that checked `lease_id` (ConfigureSession's, with the agent's change).
  void SetApprovalModeNow(const std::string& lease_id, std::optional<config::ApprovalMode> mode);
  // The mode of a turn started under `lease_id` when the agent is configured
  // with `configured`: the chosen mode when that lease chose one, except
  // that nothing leaves deny_all.
  config::ApprovalMode EffectiveApprovalMode(config::ApprovalMode configured,
                                             const std::string& lease_id) const;
  // Runs `change` as a write command once the session is idle: refused
  // (kFailedPrecondition) while a turn or compaction runs, deferred while a
  // compaction records its end. `change` runs on the queue, so nothing else
  // changes the session meanwhile; its status is the reply.
  // `needs_history` false: allowed also while the history does not read.
  void ChangeWhileIdle(std::string lease_id, std::function<absl::Status()> change,
                       StatusReply reply, bool needs_history = true);

  // Never wait (an API handler asks them while describing a session, and
  // the session's lock may be held while its context loads).
  bool running() const;
  bool compacting() const;
  // Whether the model context is in memory (so an estimate reads no rows).
  // Never waits: an API handler asks it to decide where to answer.
  bool context_loaded() const;
  // True when the session may be unloaded: nothing runs or is queued (a
  // lease command included), nobody subscribes, and no end the store
  // refused waits to be stored. (The manager checks the lease table itself,
  // and that no caller holds the runner.) Never waits.
  bool Idle() const;
  // The context estimate for `plan`'s runtime: the running operation's
  // latest one, or computed from the stored context (loaded once).
  absl::StatusOr<events::ContextEstimate> Estimate(const TurnPlan& plan);
  std::unique_ptr<Subscription> Subscribe(uint64_t after_seq);
  // Subscribe within SessionLog::kMaxSubscriptions open at once: beyond it,
  // ResourceExhausted naming the session.
  absl::StatusOr<std::unique_ptr<Subscription>> SubscribeWithinBound(uint64_t after_seq);
  // Ends the session's subscriptions with `why` (SessionLog::EndSubscriptions).
  void EndSubscriptions(absl::Status why) { log_->EndSubscriptions(std::move(why)); }

  // The store no longer has the session: from now on every lease
  // acquisition, handover decline and write command is refused with `why`
  // (a kNotFound naming the session), however early it was posted; the
  // first call's `why` stays. Commands already queued may have been posted
  // by a caller that found the runner before it was unloaded, so only this
  // mark, not the unloading, keeps them from granting a lease nobody would
  // end. An acquire either sees the mark or was granted before this
  // returned: the caller ends the session's leases (WriteLeases::EndSession)
  // after this call, so no lease of a removed session survives. Called on or
  // off the queue; never waits for the queue.
  void MarkRemoved(absl::Status why);

  // For tests: waits until `count` commands wait for the warm-up to end
  // (false after `timeout`).
  bool AwaitWaitingForWarmUpForTesting(size_t count, absl::Duration timeout);
  // True once `count` commands wait for the running operation to go idle
  // (its end is stored; ReadyOrDefer), false after `timeout`.
  bool AwaitDeferredForTesting(size_t count, absl::Duration timeout);

  // Cancels the running operation and the hooks reporting on it (and
  // abandons one being prepared) and refuses every later write with
  // kUnavailable; does not wait. The daemon's shutdown begins it on every
  // session before it waits for any, so that all stop at once.
  void BeginShutdown();
  // Waits until the session is idle. REQUIRES: BeginShutdown was called.
  // Called from outside the pool.
  void AwaitShutdown();
  // BeginShutdown, then AwaitShutdown.
  void Shutdown();

  // If the daemon stopped in the middle of a turn (a crash, kill -9), the
  // stored history has a turn without an end, and maybe tool calls without
  // results, which no provider accepts in a later request. Records a
  // cancelled result for each such call (saying that it may or may not have
  // taken effect) and the turn's end (reason error), so the transcript and
  // the model context are valid again. A compaction that started without
  // an end (a manual one after the last turn, or an automatic one inside
  // the unfinished turn) first gets a CompactionEnded, kCancelled, with the
  // context unchanged.
  //
  // The owner calls it right after construction, before the runner is used
  // for anything else, and may call it again at any time: once it has
  // succeeded it does nothing; until then each call retries (a failure may
  // be transient, or the damaged row repaired) and returns the store's
  // error unchanged, for example kDataLoss "session S, event seq N: stored
  // payload does not decode: ...". A failed attempt stores nothing.
  //
  // A turn of this runner whose end the store refused (a full disk) makes
  // it unrecovered again: its subscribers were shown the end at once,
  // marked as not stored, and each call now tries to store that end (as it
  // happened, under the seq they saw it under) before anything else of the
  // session is written. So the turn is closed exactly once: by this runner,
  // or, if the daemon stops first, by the next daemon's recovery, since no
  // later turn can have been stored. The error is then "the end of its
  // turn T could not be stored: <cause>", with the cause's code. A manual
  // compaction whose end the store refused is handled the same way ("the end
  // of its compaction T could not be stored: <cause>").
  absl::Status RecoverUnfinishedTurn();
  bool recovered() const;
  // recovered() without waiting for an attempt under way (false meanwhile):
  // for callers that must not wait for the store, such as an API thread
  // deciding whether it may use the runner on the spot.
  bool recovered_now() const { return recovered_seen_.load(std::memory_order_acquire); }
  // OK when the session can be written: RecoverUnfinishedTurn succeeds (it
  // is retried when it has not yet). Otherwise the error every write
  // returns, with the code of its cause (kDataLoss for a damaged row):
  // "session S cannot be written: its history could not be read: <cause>",
  // or "session S cannot be written: the end of its turn T could not be
  // stored: <cause>".
  absl::Status CheckWritable();

 private:
  enum class State { kIdle, kPreparing, kTurn, kCompaction };

  SessionRunner(const store::SessionRecord& record, SessionRunnerDeps deps);

  // Posts `command` to the queue, or replies kUnavailable when the daemon
  // stops taking work.
  void Post(std::function<void()> command, const StatusReply& on_refused);
  bool ShuttingDown() const;
  // MarkRemoved's `why`; OK while the session exists.
  absl::Status Removed() const;
  // Posts `change` (a lease change that answers nobody) and tells `done`.
  // It runs after the write commands already waiting for the session to go
  // idle or for the warm-up to end (a client that starts a turn and then
  // lets go has its turn started first).
  void PostLeaseChange(std::function<void()> change, StatusReply done);
  // PostLeaseChange's command, on the queue: runs `change`, or waits behind
  // the commands that wait.
  void RunLeaseChange(std::function<void()> change, StatusReply done);
  // The checks every write command makes first, on the queue: the session
  // still exists, the lease, shutdown and (when `needs_history`) a readable
  // history.
  absl::Status CheckWriteCommand(const std::string& lease_id, bool needs_history);
  // For a command that must wait for the idle state: true when it may run
  // now; otherwise it was deferred (a compaction is recording its end) or
  // refused (busy) through `busy`.
  bool ReadyOrDefer(std::function<void()> retry, const StatusReply& busy)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The queue commands of the writes above.
  using ImageUploads = std::shared_ptr<const std::vector<events::ImageUpload>>;
  void DoStartTurn(const std::string& text, const ImageUploads& uploads,
                   const std::string& lease_id, const std::string& turn_id,
                   const Reply<std::string>& reply);
  // The first stored seq of operation `op_id` (kNotFound when it has none,
  // or `op_id` is empty): read before mu_ is taken, for the check below.
  absl::StatusOr<uint64_t> FirstSeqOfId(const std::string& op_id);
  // For a start naming `op_id` (empty: none): kCancelled when an interrupt
  // named it first (and forgets it), kInvalidArgument when the session
  // already has an operation of that id (`used` is FirstSeqOfId's answer).
  absl::Status CheckRequestedIdLocked(const std::string& op_id, const char* what,
                                      const absl::StatusOr<uint64_t>& used)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FAILED_PRECONDITION when `images` would bring the images in the model
  // context past events::kMaxContextImageBytes.
  absl::Status CheckContextImagesLocked(const std::vector<events::ImagePart>& images)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // In the pool: checks the images, builds the turn's plan, and checks that
  // its model takes the images.
  absl::StatusOr<TurnPlan> PlanTurn(const std::string& text,
                                    const std::vector<events::ImageUpload>& uploads);
  void DoStartCompaction(const std::string& lease_id, const std::string& operation_id,
                         const Reply<std::string>& reply);
  void DoClear(const std::string& lease_id, const Reply<events::ContextEstimate>& reply);
  void DoChangeWhileIdle(const std::string& lease_id, bool needs_history,
                         const std::function<absl::Status()>& change,
                         const StatusReply& reply);
  // Queue commands that continue an operation.
  // `prep` is the preparation's number (BeginPreparingLocked); a plan of an
  // abandoned preparation is dropped without a reply.
  // `waited_since_ns` (0: none): when it began to wait for a warm-up.
  void BeginTurn(absl::StatusOr<TurnPlan> plan, const Reply<std::string>& reply, uint64_t prep,
                 int64_t waited_since_ns = 0);
  void BeginCompaction(absl::StatusOr<TurnPlan> plan, const Reply<std::string>& reply,
                       uint64_t prep);
  // Enters kPreparing with a fresh cancel token; returns the preparation's
  // number. `on_abandon` answers the caller if the preparation is abandoned
  // (with kCancelled: `abandon_message` and the reason).
  // `op_id`: the id the client chose for the operation ("" for none);
  // `lease_id`: the lease it was started under.
  uint64_t BeginPreparingLocked(StatusReply on_abandon, std::string abandon_message,
                                std::string op_id, std::string lease_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // True when preparation `prep` is still the current one (then it ends).
  bool EndPreparingLocked(uint64_t prep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the current preparation now: cancels it, answers its caller and
  // goes idle; its plan is dropped when it arrives.
  void AbandonPreparationLocked(const std::string& reason) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // On the turn's thread, before its turn_end hooks: stores the turn's end
  // (after `owed`, which is reset once stored) and lets commands wait for
  // FinishTurn. False when the store refused either; FinishTurn tries again.
  bool StoreTurnEnd(const std::string& turn_id, const events::TurnEnded& end,
                    std::optional<OwedEvent>& owed) ABSL_LOCKS_EXCLUDED(mu_);
  // Stores the turn's end, after `owed` (Turn::owed_compaction_end) if set,
  // unless StoreTurnEnd did; then goes idle.
  void FinishTurn(const std::string& turn_id, const events::TurnEnded& end,
                  std::optional<OwedEvent> owed);
  // Back to idle: wakes Shutdown and reposts deferred commands.
  void BecomeIdleLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetStateLocked(State state) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The warm-up (see above): WarmUp starts one if it is worth it, on the
  // queue; WarmWithPlan loads the context and serializes it on a pool task;
  // EndWarmUp reposts what waited for it.
  void WarmUp();
  void WarmWithPlan(absl::StatusOr<TurnPlan> plan);
  void EndWarmUp();
  void EndWarmUpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // True (and `retry` kept for EndWarmUp) while a warm-up owns the context.
  bool AfterWarmUpLocked(std::function<void()> retry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Nothing runs and no warm-up owns the context (Shutdown waits for it).
  bool QuiescentLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Loads the stored context and meter state once; sets the runtime. A
  // failed load is retried by the next call.
  absl::Status LoadContextLocked(const TurnPlan& plan) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // LoadContextLocked for a write: its error says the session cannot be
  // written (the cause, naming the row, is kept, and so is its code).
  absl::Status LoadContextForWriteLocked(const TurnPlan& plan) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<events::ContextCleared> ClearLocked(const TurnPlan& plan)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // RecoverUnfinishedTurn with recovery_mu_ held.
  absl::Status RecoverOnceLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(recovery_mu_);
  // One recovery attempt: walks the history back and closes an unfinished
  // turn.
  absl::Status RecoverLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(recovery_mu_);
  // One attempt to store unstored_end_ (then reset).
  absl::Status StoreUnstoredEndLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(recovery_mu_);
  // "the end of its <operation> T could not be stored: <cause>".
  static std::string UnstoredEndReason(const std::string& operation, const std::string& turn_id,
                                       const absl::Status& cause);
  // After a manual compaction whose end the store refused (published
  // unstored under `seq`): keeps `ended` to store before anything else of
  // the session, as FinishTurn does for a turn's end. On the queue.
  void RecordUnstoredCompactionEnd(const std::string& op_id, const events::CompactionEnded& ended,
                                   uint64_t seq, const absl::Status& cause)
      ABSL_LOCKS_EXCLUDED(recovery_mu_, mu_);
  // What a finished operation commits together with its end.
  CommitExtras EndExtras();
  std::string BusyMessage() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string session_id_;
  SessionRunnerDeps deps_;
  std::shared_ptr<SessionLog> log_;
  const std::shared_ptr<SessionState> state_ = std::make_shared<SessionState>();
  const std::shared_ptr<SerialQueue> queue_;

  // Serializes recovery attempts; taken before mu_, never after it.
  mutable absl::Mutex recovery_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  bool recovered_ ABSL_GUARDED_BY(recovery_mu_) = false;
  // recovered_ for recovered_now(), changed with it.
  std::atomic<bool> recovered_seen_{false};
  // The last failed attempt's error (OK before any failure), so that the
  // log says once, not at every retry, why the session cannot be written.
  absl::Status recovery_error_ ABSL_GUARDED_BY(recovery_mu_);
  // A turn's end the store refused (FinishTurn), with what was to be stored
  // with it and the seq it was published under: recovery stores it before
  // anything else of the session is written (recovered_ is false until
  // then), so that its turn is closed exactly once, and in this daemon.
  // A manual compaction's end the store refused is kept the same way
  // (RecordUnstoredCompactionEnd): the failed end clients were shown, the
  // context unchanged. A turn's end comes after the end of its automatic
  // compaction when the store refused that too.
  struct UnstoredEnd {
    std::string turn_id;    // the operation's id
    std::string operation;  // "turn" or "compaction", for messages
    std::vector<OwedEvent> events;  // the end last, stored in one commit
    CommitExtras extras;
  };
  std::optional<UnstoredEnd> unstored_end_ ABSL_GUARDED_BY(recovery_mu_);

  // Held by AcquireLease's command from its check of removed_ to the
  // grant, and by MarkRemoved while it sets removed_: an acquire is either
  // refused or granted before the mark (and so ended with the session).
  // Taken before mu_, never after it. The callbacks Acquire runs
  // (handover_requested, holder_changed) run with it held; they only queue
  // messages for streams and never reach MarkRemoved.
  absl::Mutex removal_mu_ ABSL_ACQUIRED_BEFORE(mu_);

  mutable absl::Mutex mu_;
  // Set once, by MarkRemoved (under removal_mu_ too); OK while the session
  // exists.
  absl::Status removed_ ABSL_GUARDED_BY(mu_);
  State op_state_ ABSL_GUARDED_BY(mu_) = State::kIdle;
  // op_state_ for readers that must not wait for mu_ (running(),
  // compacting()), changed with it (SetStateLocked), except that it turns
  // idle just before the operation records its end, so that a client that
  // saw the end event reads it idle.
  std::atomic<State> state_seen_{State::kIdle};
  // The running compaction or turn is recording (or has recorded) its end:
  // commands wait for it to go idle instead of being refused as busy.
  bool ending_ ABSL_GUARDED_BY(mu_) = false;
  // StoreTurnEnd stored the running turn's end (FinishTurn resets it).
  bool end_stored_ ABSL_GUARDED_BY(mu_) = false;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  // Commands that arrived while a compaction recorded its end.
  std::vector<std::function<void()>> deferred_ ABSL_GUARDED_BY(mu_);
  // A warm-up is under way, from its start on the queue to EndWarmUp; while
  // its pool task serializes, it has the context's items (moved out).
  bool warming_ ABSL_GUARDED_BY(mu_) = false;
  // When the last warm-up began to serialize (0: it has not), to count in
  // a waiting turn only the wait for that (a turn that loads the context
  // itself does so before it starts, too).
  int64_t warm_serialize_start_ns_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::function<void()>> after_warm_ ABSL_GUARDED_BY(mu_);
  bool context_loaded_ ABSL_GUARDED_BY(mu_) = false;
  // context_loaded_ for readers that must not wait for mu_ (held while a
  // context loads): set once, after it.
  std::atomic<bool> context_in_memory_{false};
  std::string saved_meter_;  // the stored meter state, until the context is loaded
  std::string current_op_ ABSL_GUARDED_BY(mu_);
  // The id the client chose for the operation being prepared ("" for none).
  std::string preparing_op_ ABSL_GUARDED_BY(mu_);
  // The write lease the running (or preparing) operation was started under,
  // until the session is idle again: an interrupt with `only_own` stops
  // only an operation of its own lease.
  std::string op_lease_ ABSL_GUARDED_BY(mu_);
  // Ids an interrupt named before their start arrived, oldest first.
  std::deque<std::string> interrupted_ahead_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<CancelToken> cancel_ ABSL_GUARDED_BY(mu_);
  // The running turn's TurnPlan::end_reports: cancelled by an interrupt
  // that finds cancel_ already cancelled, and by BeginShutdown. Set and
  // reset with cancel_.
  std::shared_ptr<CancelToken> end_reports_ ABSL_GUARDED_BY(mu_);
  // The current preparation's number and how to answer its caller if it is
  // abandoned (kPreparing only).
  uint64_t prep_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::function<void(const std::string& reason)> prep_abandon_ ABSL_GUARDED_BY(mu_);
  // Guards the settings below, which API handlers read (ListMcpServers,
  // a context-only plan): never held across other work, where mu_ is held
  // across the store's commits and context loads.
  mutable absl::Mutex settings_mu_;
  // The session's own MCP servers (never stored).
  McpServerMap mcp_servers_ ABSL_GUARDED_BY(settings_mu_);
  // ChooseApprovalMode's choice and the lease that made it (never stored).
  struct ChosenApprovalMode {
    std::string lease_id;
    config::ApprovalMode mode;
  };
  std::optional<ChosenApprovalMode> approval_mode_ ABSL_GUARDED_BY(settings_mu_);
  // Only the running operation touches it (or a holder of mu_ while the
  // state is idle), and a warm-up's pool task, which has its items while it
  // serializes them (readers then leave the items alone); loaded before the
  // first operation starts.
  SessionContext ctx_;
};

}  // namespace raw::loop
