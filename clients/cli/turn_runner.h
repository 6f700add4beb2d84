// TurnRunner: runs one turn for `raw run` and turns its outcome into an
// exit code.
//
// Run() creates a session (or continues one), takes the session's write
// lease for the whole run (failing at once with kExitHeld, naming the
// holder, when another client writes in the session; every write carries
// the lease id; destroying the runner releases it), opens the event stream from
// the session's last seq, starts the turn only once the stream is open (so
// none of its events, not even the first text deltas, is missed), prints the
// turn's events through an EventPrinter, answers the turn's approval
// requests through an ApprovalPrompter, and returns when the turn's
// TurnEnded arrives. The prompter runs on a thread of its own, so the stream
// is read while a question is open: when the request is resolved without
// this runner's answer (it timed out, another client answered, the turn was
// interrupted) the question is withdrawn and the run carries on. A Resync from a lagging stream
// re-subscribes from the last delivered event without starting the turn again.
//
// Threading: Run() and the EventHandler callbacks run on the calling thread;
// ApprovalPrompter::Decide and the answer to the daemon on a question thread
// (one at a time, joined before Run returns).
// Interrupt() may be called from any other thread (the Ctrl-C watcher); it
// asks the daemon to interrupt the turn (by the id the runner chose for it,
// so also while rawd still prepares it and StartTurn has not answered), or,
// when the turn has not been asked for yet, makes Run() return
// kExitCancelled without starting it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "clients/cli/approval_prompter.h"
#include "clients/cli/event_printer.h"
#include "clients/lib/raw_client.h"
#include "clients/lib/write_lease.h"

namespace raw::cli {

struct TurnRequest {
  // Continue this session; empty creates a new one with `agent` and `cwd`.
  std::string session_id;
  std::string agent;  // empty: the daemon's default agent
  std::string cwd;    // absolute
  std::string prompt;
  std::vector<v1::Image> images;  // sent with the prompt
  // Who writes, as other clients see the lease holder.
  std::string client_name = "raw run";
  int64_t client_pid = 0;
};

class TurnRunner : public client::EventHandler {
 public:
  // `client`, `printer`, `approvals` and `err` must outlive the runner.
  TurnRunner(client::RawClient& client, EventPrinter& printer, ApprovalPrompter& approvals,
             std::ostream& err);
  ~TurnRunner() override;

  // Returns the exit code (see exit_codes.h).
  int Run(const TurnRequest& request);

  // Thread-safe; only the first call has an effect.
  void Interrupt();

  // The session the turn ran in, once Run has returned ("" when it never
  // got one).
  const std::string& session_id() const { return session_id_; }

  Next OnOpen() override;
  Next OnEvent(const v1::Event& event) override;

 private:
  // Returns kExitOk once the lease is held, else the exit code.
  int TakeLease(const TurnRequest& request);
  // After a turn that never started: removes the session this run created
  // for it when nothing has been recorded in it since, so that a refused
  // prompt leaves no empty session behind.
  void DropEmptySession();
  // Whether the client holding the session's lease names a process that no
  // longer exists (it exited and rawd has not yet seen its connection close).
  bool HolderHasExited();
  int Finish(const v1::TurnEnded& ended);
  void SendInterrupt();
  // Opens a question for `request` on its own thread (closing any other).
  void Answer(const v1::ApprovalRequested& request);
  // Withdraws the open question, if any, and waits for its thread.
  void CloseQuestion();
  // Sends the answer (question thread).
  void Respond(const v1::ApprovalRequested& request, const ApprovalChoice& choice);

  // An approval question being asked on its own thread.
  struct Question {
    std::string request_id;
    CancelToken withdrawn;  // cancelled when the request needs no answer
    int interrupt_callback = 0;
    std::thread thread;
  };

  client::RawClient& client_;
  EventPrinter& printer_;
  ApprovalPrompter& approvals_;
  std::ostream& err_;
  CancelToken interrupted_;  // cancelled by Interrupt(); stops a prompt

  // Set before the stream opens; read on the stream thread.
  std::string session_id_;
  std::string prompt_;
  std::vector<v1::Image> images_;
  uint64_t after_seq_ = 0;
  std::unique_ptr<client::WriteLease> lease_;
  std::string lease_id_;
  // The session's last seq when this run created it; unset for --session.
  std::optional<uint64_t> created_seq_;

  // Stream-thread state.
  std::unique_ptr<Question> question_;
  std::optional<v1::TurnEnded> ended_;
  std::optional<uint64_t> resync_after_;
  absl::Status start_error_;
  bool cancelled_before_start_ = false;
  bool start_sent_ = false;

  absl::Mutex mu_;
  std::string turn_id_ ABSL_GUARDED_BY(mu_);
  bool interrupt_requested_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status interrupt_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::cli
