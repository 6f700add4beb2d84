// SessionController: everything a front end needs about one live session,
// free of any presentation: the connection to rawd and its recovery, the
// open session and its record, its history in pages, its live events, the
// write lease and its handover, the approval waiting for an answer, and the
// writes (start a turn, interrupt, answer, compact, clear). The terminal
// client is a view over it; other front ends (the dashboard gateway, the
// ACP bridge) can be too.
//
// Connection. Start() connects (starting rawd when allowed). When the
// daemon goes away (its event stream ends), the lease is released and the
// controller reconnects: at once, then after 1, 2, ... 5 s between
// attempts (Tick drives the timer). Once back, it subscribes again after
// the last event it delivered (`after_seq`), so that no event is missed or
// delivered twice across a daemon restart, asks for the lease again and
// checks whether the turn it saw running still runs.
//
// Events. Each stored event reaches Listener::OnEvent once, in log order
// (a replay overlap is dropped by seq; a Resync restarts the stream after
// the last event delivered). History pages reach OnHistory oldest first.
//
// Writes need the lease (can_write()); without it a write is refused at
// once with FAILED_PRECONDITION. A write's outcome (the daemon's answer)
// reaches its `done` callback.
//
// Interrupts. StartTurn and Compact are answered only once the daemon has
// prepared the operation (secret variables, probes, a warm-up), which can
// take seconds; the daemon abandons a preparation that an interrupt
// reaches. So Interrupt is never queued behind them: it goes out on a
// worker of its own at once. Each start names its operation with an id the
// controller chooses (StartTurnRequest.turn_id, CompactRequest.
// operation_id; StartTurnWithId and CompactWithId return it, so that a
// front end knows the operation's events before the answer), and an
// Interrupt while a start is unanswered names that id: the daemon
// interrupts the operation if the start reached it first, and otherwise
// remembers the id and refuses the start when it arrives (CANCELLED either
// way). An Interrupt with no start unanswered names nothing (whatever
// runs), so a start waits while such an interrupt is on its way (it would
// otherwise stop the next operation); an Interrupt that comes while a
// start waits so ends it unsent (CANCELLED).
//
// Threading: owned by one thread (a front end's UI thread). Blocking calls
// run on a worker thread, the streams on threads of their own; all their
// results reach the owner through `post`, which must run each task later
// on the owner's thread. Every method, and every Listener call and
// callback, is on the owner's thread. Nothing of the controller runs after
// its destructor (posted tasks that are still queued do nothing), and the
// destructor never waits for the daemon: it cancels the call in flight and
// leaves the worker's thread to end on its own (CallWorker).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "clients/lib/call_worker.h"
#include "clients/lib/event_stream.h"
#include "clients/lib/raw_client.h"
#include "clients/lib/session_activity.h"
#include "clients/lib/session_lease.h"

namespace raw::client {

class SessionController : private SessionLease::Listener {
 public:
  struct Options {
    ConnectOptions connect;
    // How this client is named to others (lease holder, handover requester).
    SessionLease::Identity identity;
    // When a held lease is handed over to a client that asks for it.
    HandoverGate::Timing handover;
    // Events per history page.
    int history_page = 200;
  };

  // What the front end is told; every method has a default that does
  // nothing. Called on the owner's thread.
  class Listener {
   public:
    virtual ~Listener() = default;
    // The first connection: open or create a session now.
    virtual void OnConnected() {}
    // The first connection failed: there is no daemon to work with.
    virtual void OnConnectFailed(const absl::Status&) {}
    // The daemon went away (`why`); reconnecting.
    virtual void OnDisconnected(const std::string& /*why*/) {}
    // A reconnection attempt failed; the next one is at reconnect_at().
    virtual void OnReconnectFailed(const absl::Status&) {}
    // Connected again (`info` is the daemon's; `restarted` when this client
    // started it); events continue after `resumed_after`.
    virtual void OnReconnected(const v1::GetDaemonInfoResponse& /*info*/, bool /*restarted*/,
                               uint64_t /*resumed_after*/) {}
    // A session was opened (`created`: by CreateSession or ChangeAgent).
    // An existing session's history follows (OnHistory, initial).
    virtual void OnSessionOpened(const v1::Session&, bool /*created*/) {}
    // Opening (or creating) a session failed.
    virtual void OnSessionOpenFailed(const absl::Status&, bool /*creating*/) {}
    // A page of history, oldest first: `initial` is the newest page, read
    // when the session opened (live events follow it); otherwise it is
    // older than everything delivered so far. `status` is not OK when the
    // page could not be read.
    virtual void OnHistory(const absl::Status& /*status*/, const std::vector<v1::Event>& /*events*/,
                           bool /*initial*/) {}
    // A live event, after the controller's own state took it in.
    virtual void OnEvent(const v1::Event&) {}
    // session(), its usage or context, or cache_read_ratio() changed.
    virtual void OnSessionUpdated() {}
    // pending_approval() changed.
    virtual void OnApprovalChanged() {}
    // After opening a session or reconnecting: the daemon no longer runs
    // the turn or compaction that the history shows running (it restarted
    // during it).
    virtual void OnTurnAbandoned() {}
    // The session is gone (deleted or expired): its stream ended with
    // NOT_FOUND; nothing is reconnected.
    virtual void OnSessionGone(const absl::Status&) {}
    // The write lease changed (see SessionLease::Change).
    virtual void OnLeaseChange(SessionLease::Change, SessionLease::State /*before*/) {}
  };

  using Executor = std::function<void(std::function<void()>)>;
  using Done = std::function<void(const absl::Status&)>;
  // A start's outcome and, when it is OK, the id rawd gave the operation it
  // started: StartTurnResponse.turn_id, CompactResponse.operation_id (the
  // turn_id of that operation's events). rawd gives it the id the start
  // chose, which StartTurnWithId and CompactWithId return at once.
  using Started = std::function<void(const absl::Status& status, const std::string& operation_id)>;
  // An interrupt's outcome; `interrupted` is false when rawd ran nothing to
  // interrupt (always false when `status` is not OK).
  using Interrupted = std::function<void(const absl::Status& status, bool interrupted)>;
  template <typename T>
  using Reply = std::function<void(const absl::StatusOr<T>&)>;

  // `post` runs a task later on the owner's thread. `deliver_events`, when
  // given, takes the tasks that hand over live events instead, and may run
  // them at once on the event stream's thread while the owner's thread is
  // idle (EventStream); both must outlive the controller.
  SessionController(Options options, Executor post, Listener& listener,
                    Executor deliver_events = nullptr);
  ~SessionController() override;
  SessionController(const SessionController&) = delete;
  SessionController& operator=(const SessionController&) = delete;

  // --- connection ---
  // Connects (once); OnConnected or OnConnectFailed follows.
  void Start();
  // Advances the reconnection timer and the lease's handover rule.
  void Tick(absl::Time now);
  // When Tick next has something to do (a reconnection, a handover step).
  std::optional<absl::Time> NextDeadline() const;
  bool connected() const { return connected_; }
  bool reconnecting() const { return reconnecting_; }
  // Failed reconnection attempts since the daemon went away.
  int reconnect_attempts() const { return reconnect_attempts_; }
  // When the next reconnection attempt is made (none while one runs).
  const std::optional<absl::Time>& reconnect_at() const { return reconnect_at_; }

  // --- the session ---
  // Opens `session_id` (its newest history page, then live events).
  void OpenSession(const std::string& session_id);
  // Creates a session with `agent` (empty: the default) in `cwd`.
  void CreateSession(const std::string& agent, const std::string& cwd);
  // A new session with agent `agent` in the open session's directory
  // (else `fallback_cwd`): an agent is chosen when a session starts.
  void ChangeAgent(const std::string& agent, const std::string& fallback_cwd);
  // Reads the next older page of history, if any (OnHistory follows).
  void LoadOlderHistory();
  // Asks the daemon for the session's record and statistics again.
  void RefreshSession();

  const v1::Session& session() const { return session_; }
  bool has_session() const { return !session_.id().empty(); }
  const SessionActivity& activity() const { return activity_; }
  bool history_loading() const { return history_loading_; }
  // No older history is left to read.
  bool history_complete() const { return history_done_; }
  std::optional<double> cache_read_ratio() const { return cache_ratio_; }
  // The approval waiting for this client's answer: none while an answer is
  // on its way.
  std::optional<v1::ApprovalRequested> pending_approval() const;

  // --- the write lease ---
  const SessionLease& lease() const { return lease_; }
  bool can_write() const { return connected_ && lease_.state() == SessionLease::State::kHeld; }
  bool following() const { return lease_.following(); }
  // While following: asks the holder to hand the session over.
  void RequestHandover();
  // SessionLease::LetGo: releases the lease and follows the session.
  void LetGoOfLease() { lease_.LetGo(); }
  // Every key the user presses: true when it kept the lease during a
  // handover countdown (the front end does nothing else with it).
  bool KeyPressed(absl::Time now) { return lease_.KeyPressed(now); }

  // --- writes (FAILED_PRECONDITION at once without the lease) ---
  // `images` go with the text (StartTurnRequest.images).
  absl::Status StartTurn(const std::string& text, Done done, std::vector<v1::Image> images = {});
  // StartTurn, returning the id chosen for the turn (StartTurnRequest.
  // turn_id) as soon as the start is on its way, and telling `started` how
  // it ended. The id is the sure way to tell this client's operation from
  // another's, and it is known before rawd answers: the operation's events
  // may come first (rawd answers once it has prepared and started the
  // operation), and one that records no start event (a compaction with
  // nothing to compact) still ends under it.
  absl::StatusOr<std::string> StartTurnWithId(const std::string& text, Started started,
                                              std::vector<v1::Image> images = {});
  // Interrupts the turn or compaction, or its preparation (the daemon then
  // answers that operation's start CANCELLED); never waits behind a start.
  absl::Status Interrupt(Done done);
  // Interrupt, telling `done` whether rawd had anything to interrupt.
  absl::Status InterruptWithOutcome(Interrupted done);
  // Answers every call of the pending approval `request_id` alike; with
  // ALLOW_SESSION, `session_rule` picks which of each call's session_rules
  // options is added (0: the exact rules).
  // (By value: the listener's OnApprovalChanged may drop the caller's copy.)
  absl::Status AnswerApproval(std::string request_id, v1::ApprovalDecision decision,
                              const std::string& message, Done done, int session_rule = 0);
  absl::Status Compact(Done done);
  // Compact, returning the id chosen for the compaction (CompactRequest.
  // operation_id) as StartTurnWithId does.
  absl::StatusOr<std::string> CompactWithId(Started started);
  absl::Status ClearContext(Done done);

  // --- reads ---
  void ListSessions(int page_size, Reply<v1::ListSessionsResponse> reply);
  // Also kept as agents() (for completing agent names).
  void ListAgents(Reply<v1::ListAgentsResponse> reply);
  void GetStats(Reply<v1::GetStatsResponse> reply);
  const std::vector<v1::AgentInfo>& agents() const { return agents_; }

 private:
  // Runs `fn` on the owner's thread unless the controller is gone.
  void Post(std::function<void()> fn);
  // Runs `call` on the worker and hands its result to `reply` on the
  // owner's thread.
  template <typename T>
  void Call(std::function<absl::StatusOr<T>(RawClient&)> call, Reply<T> reply);
  void Write(std::function<absl::Status(RawClient&)> call, Done done);
  // A start (StartTurn, Compact) of operation `op_id` on the worker:
  // remembered while it waits for its answer (an Interrupt meanwhile names
  // it). `call` returns the id of the operation it started.
  void WriteStart(std::string op_id, std::function<absl::StatusOr<std::string>(RawClient&)> call,
                  Started started);
  // Sends a start now (WriteStart, once no interrupt is on its way).
  void SendStart(std::string op_id, std::function<absl::StatusOr<std::string>(RawClient&)> call,
                 Started started);
  // InterruptTurn of `op_id` ("" for whatever runs).
  void SendInterrupt(std::string op_id, Interrupted done);
  absl::Status CheckWrite() const;

  void Connect();
  void OnConnectResult(absl::StatusOr<RawClient> client);
  void Opened(const v1::Session& session, bool created);
  void OnInitialHistory(const absl::Status& status, std::vector<v1::Event> events);
  // Subscribes after `after_seq`, takes the lease and refreshes the record.
  void Follow(uint64_t after_seq);
  void Subscribe(uint64_t after_seq);
  void OnStreamEvent(const v1::Event& event);
  void OnStreamEnd(const absl::Status& status);
  void OnDisconnected(const std::string& why);
  void AddUsage(const v1::Usage& add);
  void OnLeaseChange(SessionLease::Change change, SessionLease::State before) override;

  Options options_;
  Executor post_;
  Executor deliver_events_;  // empty: post_
  Listener& listener_;
  // Shared with every posted task: false once the controller is gone.
  std::shared_ptr<bool> alive_;
  std::shared_ptr<RawClient> client_;
  // Its tasks touch the controller only through worker_.poster(): after
  // the destructor they post nothing. (Initialized from post_.)
  CallWorker worker_;
  // Interrupts only, so that they never wait behind a start (above).
  CallWorker interrupt_worker_;
  // The operation ids of the starts sent and not answered yet, in order.
  std::vector<std::string> starts_pending_;
  // InterruptTurn calls sent and not answered yet, and the starts waiting
  // for them (in order).
  int interrupts_pending_ = 0;
  struct HeldStart {
    std::string op_id;
    std::function<absl::StatusOr<std::string>(RawClient&)> call;
    Started started;
  };
  std::vector<HeldStart> held_starts_;
  std::unique_ptr<EventStream> stream_;
  SessionLease lease_;

  v1::Session session_;
  SessionActivity activity_;
  std::optional<double> cache_ratio_;
  std::string answered_request_;  // answered; hidden until resolved
  std::vector<v1::AgentInfo> agents_;

  std::string older_cursor_;
  bool history_loading_ = false;
  bool history_done_ = true;

  bool started_ = false;
  bool connected_ = false;
  bool reconnecting_ = false;
  // This client followed the session when its connection was lost: it
  // follows again once reconnected (SessionLease::Acquire).
  bool rejoin_following_ = false;
  int reconnect_attempts_ = 0;
  // After opening a session or reconnecting: is the turn or compaction seen
  // running still running?
  bool check_turn_ = false;
  std::optional<absl::Time> reconnect_at_;
};

template <typename T>
inline void SessionController::Call(std::function<absl::StatusOr<T>(RawClient&)> call,
                                    Reply<T> reply) {
  if (!client_) {
    reply(absl::UnavailableError("not connected to the daemon"));
    return;
  }
  worker_.Run([post = worker_.poster(), client = client_, call = std::move(call),
               reply = std::move(reply)] {
    auto result = std::make_shared<absl::StatusOr<T>>(call(*client));
    post([result, reply] { reply(*result); });
  });
}

}  // namespace raw::client
