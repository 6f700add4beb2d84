// SessionRunner: one session's live state in the daemon: its SessionLog,
// its in-memory model context with the context meter, and at most one
// running operation — a Turn or a manual compaction. /clear is a short
// operation of its own, refused while another runs.
//
// Thread-safety: all methods are thread-safe. An operation runs on its own
// thread; starting another while one runs is refused. The TurnEnded of a
// turn (and the CompactionEnded of a compaction) is recorded under the
// runner's lock together with clearing the running flag, so a client that
// sees it can start the next operation at once.
//
// Writing needs a readable history. Before the first write the runner reads
// the newest history back to the last turn boundary (RecoverUnfinishedTurn),
// and it builds requests from the stored model context. A stored row that
// does not decode (a damaged event or context item) does not make the runner
// unusable: reading (Subscribe, Estimate while the context reads) goes on,
// and each write (StartTurn, StartCompaction, Clear, RespondToApproval)
// first retries what failed and is refused, naming the session and the row,
// while it still fails. Nothing stored is changed or removed because of
// such a row.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "common/time.h"
#include "daemon/loop/session_context.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/session_state.h"
#include "daemon/loop/turn.h"
#include "daemon/store/session_store.h"

namespace raw::loop {

class SessionRunner {
 public:
  // `redact` (may be empty) removes known secret values from stored tool
  // output (see SessionLog).
  SessionRunner(const store::SessionRecord& record, store::SessionStore& store,
                const Clock& clock, SessionLog::Redactor redact = nullptr);
  ~SessionRunner();

  const std::string& session_id() const { return session_id_; }

  // Starts `plan` on a new thread. kFailedPrecondition while an operation
  // runs; see CheckWritable and the header comment for a history or a
  // model context that cannot be read.
  absl::Status StartTurn(TurnPlan plan);
  // Starts a manual compaction with the agent's settings in `plan` (its
  // user text is unused; its turn id is the operation id).
  absl::Status StartCompaction(TurnPlan plan);
  // Removes the conversation from the model context (the display history,
  // usage and agent stay) and records ContextCleared.
  absl::StatusOr<events::ContextCleared> Clear(const TurnPlan& plan);
  // Returns false when nothing was running.
  bool Interrupt();
  bool running() const;
  bool compacting() const;
  // The context estimate for `plan`'s runtime: the running operation's
  // latest one, or computed from the stored context (loaded once).
  absl::StatusOr<events::ContextEstimate> Estimate(const TurnPlan& plan);
  absl::Status RespondToApproval(const std::string& request_id,
                                 const std::vector<events::ApprovalAnswer>& answers,
                                 const std::optional<events::ApprovalAnswer>& all);
  std::unique_ptr<Subscription> Subscribe(uint64_t after_seq);

  // Cancels a running turn and waits until its TurnEnded is recorded.
  void Shutdown();

  // If the daemon stopped in the middle of a turn (a crash, kill -9), the
  // stored history has a turn without an end, and maybe tool calls without
  // results, which no provider accepts in a later request. Records a
  // cancelled result for each such call and the turn's end (reason error),
  // so the transcript and the model context are valid again.
  //
  // The owner calls it right after construction, before the runner is used
  // for anything else, and may call it again at any time: once it has
  // succeeded it does nothing; until then each call retries (a failure may
  // be transient, or the damaged row repaired) and returns the store's
  // error unchanged, for example kDataLoss "session S, event seq N: stored
  // payload does not decode: ...". A failed attempt stores nothing.
  absl::Status RecoverUnfinishedTurn();
  // True once RecoverUnfinishedTurn has succeeded.
  bool recovered() const;
  // OK when the session can be written: RecoverUnfinishedTurn succeeds (it
  // is retried when it has not yet). Otherwise the error every write
  // returns, with the code of its cause (kDataLoss for a damaged row):
  // "session S cannot be written: its history could not be read: <cause>".
  absl::Status CheckWritable();

 private:
  enum class Operation { kTurn, kCompaction };
  absl::Status Start(Operation op, TurnPlan plan);
  void RunThread(Operation op, TurnPlan plan, std::shared_ptr<CancelToken> cancel);
  // Loads the stored context and meter state once; sets the runtime. A
  // failed load is retried by the next call.
  absl::Status LoadContextLocked(const TurnPlan& plan) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // LoadContextLocked for a write: its error says the session cannot be
  // written (the cause, naming the row, is kept, and so is its code).
  absl::Status LoadContextForWriteLocked(const TurnPlan& plan) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One recovery attempt: walks the history back and closes an unfinished
  // turn.
  absl::Status RecoverLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(recovery_mu_);
  // What a finished operation commits together with its end.
  CommitExtras EndExtras();
  // Waits (briefly) for a compaction that has recorded its end to finish.
  void WaitForEndingLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string session_id_;
  store::SessionStore& store_;
  std::shared_ptr<SessionLog> log_;
  const std::shared_ptr<SessionState> state_ = std::make_shared<SessionState>();

  // Serializes recovery attempts; taken before mu_, never after it.
  mutable absl::Mutex recovery_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  bool recovered_ ABSL_GUARDED_BY(recovery_mu_) = false;
  // The last failed attempt's error (OK before any failure), so that the
  // log says once, not at every retry, why the session cannot be written.
  absl::Status recovery_error_ ABSL_GUARDED_BY(recovery_mu_);

  mutable absl::Mutex mu_;
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  Operation operation_ ABSL_GUARDED_BY(mu_) = Operation::kTurn;
  // The running compaction is recording (or has recorded) its end.
  bool ending_ ABSL_GUARDED_BY(mu_) = false;
  bool context_loaded_ ABSL_GUARDED_BY(mu_) = false;
  std::string saved_meter_;  // the stored meter state, until the context is loaded
  std::string current_turn_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<CancelToken> cancel_ ABSL_GUARDED_BY(mu_);
  std::thread thread_ ABSL_GUARDED_BY(mu_);
  // Only the running operation touches it (or a caller holding mu_ while
  // nothing runs); loaded before the first operation starts.
  SessionContext ctx_;
};

}  // namespace raw::loop
