// SessionRunner: one session's live state in the daemon: its SessionLog,
// its in-memory model context and at most one running Turn.
//
// Thread-safety: all methods are thread-safe. A turn runs on its own
// thread; StartTurn refuses while one runs. The TurnEnded of a turn is
// recorded under the runner's lock together with clearing the running flag,
// so a client that sees TurnEnded can start the next turn at once.
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
#include "daemon/loop/session_log.h"
#include "daemon/loop/session_state.h"
#include "daemon/loop/turn.h"
#include "daemon/store/session_store.h"

namespace raw::loop {

class SessionRunner {
 public:
  SessionRunner(const store::SessionRecord& record, store::SessionStore& store,
                const Clock& clock);
  ~SessionRunner();

  const std::string& session_id() const { return session_id_; }

  // Starts `plan` on a new thread. kFailedPrecondition while a turn runs.
  absl::Status StartTurn(TurnPlan plan);
  // Returns false when no turn was running.
  bool Interrupt();
  bool running() const;
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
  // so the transcript and the model context are valid again. Called once,
  // right after construction, before anything else uses the runner.
  absl::Status RecoverUnfinishedTurn();

 private:
  void RunThread(TurnPlan plan, std::shared_ptr<CancelToken> cancel);

  const std::string session_id_;
  store::SessionStore& store_;
  std::shared_ptr<SessionLog> log_;
  const std::shared_ptr<SessionState> state_ = std::make_shared<SessionState>();

  mutable absl::Mutex mu_;
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  bool context_loaded_ ABSL_GUARDED_BY(mu_) = false;
  std::string current_turn_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<CancelToken> cancel_ ABSL_GUARDED_BY(mu_);
  std::thread thread_ ABSL_GUARDED_BY(mu_);
  // Only the running turn touches it; loaded before the first turn starts.
  std::vector<events::ContextItem> context_;
};

}  // namespace raw::loop
