#include "clients/lib/session_controller.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/ids.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"
#include "tests/clients/owner_queue.h"

namespace raw::client {
namespace {

using ::raw::testing::FakeDaemon;
using ::raw::testing::OwnerQueue;
using ::raw::testing::TempDir;
using Change = SessionLease::Change;

// Everything the controller told its owner.
class Recorder : public SessionController::Listener {
 public:
  void OnConnected() override { connected = true; }
  void OnConnectFailed(const absl::Status& status) override { connect_error = status; }
  void OnDisconnected(const std::string&) override { ++disconnects; }
  void OnReconnectFailed(const absl::Status&) override { ++reconnect_failures; }
  void OnReconnected(const v1::GetDaemonInfoResponse&, bool, uint64_t resumed_after) override {
    reconnected_after.push_back(resumed_after);
  }
  void OnSessionOpened(const v1::Session& session, bool created) override {
    opened.push_back(session);
    last_created = created;
  }
  void OnSessionOpenFailed(const absl::Status& status, bool) override { open_error = status; }
  void OnHistory(const absl::Status& status, const std::vector<v1::Event>& page,
                 bool initial) override {
    EXPECT_TRUE(status.ok()) << status;
    std::vector<uint64_t> seqs;
    for (const v1::Event& e : page) seqs.push_back(e.seq());
    pages.push_back(seqs);
    if (initial) ++initial_pages;
  }
  void OnEvent(const v1::Event& event) override { events.push_back(event.seq()); }
  // Like a front end's panel: holds the request shown, dropped when hidden.
  SessionController* controller = nullptr;
  void OnApprovalChanged() override {
    ++approval_changes;
    std::optional<v1::ApprovalRequested> pending = controller->pending_approval();
    shown_request = pending ? pending->request_id() : "";
  }
  void OnLeaseChange(Change change, SessionLease::State) override {
    lease_changes.push_back(change);
  }
  void OnSessionUpdated() override { ++session_updates; }
  void OnTurnAbandoned() override { ++abandoned; }

  bool Saw(Change change) const {
    return std::find(lease_changes.begin(), lease_changes.end(), change) != lease_changes.end();
  }
  bool SawEvent(uint64_t seq) const {
    return std::find(events.begin(), events.end(), seq) != events.end();
  }

  bool connected = false;
  absl::Status connect_error;
  int disconnects = 0;
  int reconnect_failures = 0;
  std::vector<uint64_t> reconnected_after;
  std::vector<v1::Session> opened;
  bool last_created = false;
  absl::Status open_error;
  std::vector<std::vector<uint64_t>> pages;
  int initial_pages = 0;
  std::vector<uint64_t> events;
  int approval_changes = 0;
  std::string shown_request;
  std::vector<Change> lease_changes;
  int session_updates = 0;
  int abandoned = 0;
};

// One front end: its thread's queue, its listener and its controller.
struct Frontend {
  Frontend(const std::string& socket, const std::string& name, bool wait_for_release = false) {
    SessionController::Options options;
    options.connect.socket_path = socket;
    options.connect.autostart = Autostart::kNever;
    options.connect.env = [](const std::string&) { return std::nullopt; };
    options.identity = {name, "raw", 1, /*interrupt_on_release=*/false, wait_for_release};
    options.handover = {absl::Seconds(10), absl::Seconds(10)};
    options.history_page = 2;
    controller = std::make_unique<SessionController>(
        options, [this](std::function<void()> t) { queue.Post(std::move(t)); }, listener);
    listener.controller = controller.get();
  }
  ~Frontend() { controller.reset(); }
  void RunUntil(const std::function<bool()>& done) { queue.RunUntil(done); }
  // Connects and opens `session` until this client holds (or follows) it.
  void Open(const std::string& session, Change until = Change::kGranted) {
    controller->Start();
    RunUntil([this] { return listener.connected; });
    controller->OpenSession(session);
    RunUntil([this, until] { return listener.Saw(until); });
  }

  OwnerQueue queue;
  Recorder listener;
  std::unique_ptr<SessionController> controller;
};

v1::Event Text(const std::string& text) {
  v1::Event e;
  e.set_session_id("s1");
  e.mutable_assistant_message()->set_text(text);
  return e;
}

v1::Session Session(const std::string& id) {
  v1::Session s;
  s.set_id(id);
  s.set_agent("coder");
  s.set_cwd("/work/project");
  return s;
}

TEST(SessionControllerTest, ReconnectsAfterTheDaemonRestartsWithoutLosingOrRepeatingEvents) {
  TempDir dir;
  const std::string socket = dir.File("rawd.sock");
  auto daemon = std::make_unique<FakeDaemon>(socket);
  daemon->service().AddSession(Session("s1"));
  Frontend ui(socket, "raw (pid 1)");
  ui.Open("s1");
  for (int i = 0; i < 3; ++i) daemon->service().Append(Text("before " + std::to_string(i)));
  ui.RunUntil([&] { return ui.listener.SawEvent(3); });

  // The daemon goes away; meanwhile its log grows by two events.
  std::vector<v1::Event> log = daemon->service().log();
  daemon.reset();
  ui.RunUntil([&] { return ui.listener.disconnects == 1; });
  EXPECT_FALSE(ui.controller->connected());
  EXPECT_EQ(ui.controller->lease().state(), SessionLease::State::kNone);
  daemon = std::make_unique<FakeDaemon>(socket);
  daemon->service().AddSession(Session("s1"));
  for (const v1::Event& e : log) daemon->service().Append(e);
  daemon->service().Append(Text("while away"));
  daemon->service().Append(Text("after"));

  // Failed attempts wait for their time; the test brings it forward.
  ui.RunUntil([&] {
    if (ui.listener.reconnected_after.empty() && ui.controller->reconnect_at()) {
      ui.controller->Tick(*ui.controller->reconnect_at());
    }
    return ui.listener.SawEvent(5);
  });
  EXPECT_EQ(ui.listener.reconnected_after, std::vector<uint64_t>({3}));
  EXPECT_EQ(daemon->service().subscribe_after_seqs(), std::vector<uint64_t>({3}));
  EXPECT_EQ(ui.listener.events, std::vector<uint64_t>({1, 2, 3, 4, 5}));
  // The lease is asked for again.
  ui.RunUntil([&] { return ui.controller->can_write(); });
}

// A follower back after the daemon restarted follows again: it does not
// take the lease the restart left free, which the client that wrote before
// gets back. One that waits for the lease asks to rejoin as a follower; one
// that does not (raw-acp) asks for nothing.
TEST(SessionControllerTest, AFollowerBackAfterARestartLeavesTheLeaseToTheWriterOfBefore) {
  for (bool waits : {false, true}) {
    SCOPED_TRACE(waits ? "waits for the lease" : "asks only to prompt");
    TempDir dir;
    const std::string socket = dir.File("rawd.sock");
    auto daemon = std::make_unique<FakeDaemon>(socket);
    daemon->service().AddSession(Session("s1"));
    daemon->service().HoldLease("s1", "raw (pid 9)", "raw", 9);
    Frontend ui(socket, "raw (pid 1)", waits);
    ui.Open("s1", Change::kFollowing);
    ASSERT_TRUE(ui.controller->following());

    daemon.reset();
    ui.RunUntil([&] { return ui.listener.disconnects == 1; });
    daemon = std::make_unique<FakeDaemon>(socket);
    daemon->service().AddSession(Session("s1"));  // nobody holds it yet
    const size_t changes = ui.listener.lease_changes.size();
    ui.RunUntil([&] {
      if (ui.listener.reconnected_after.empty() && ui.controller->reconnect_at()) {
        ui.controller->Tick(*ui.controller->reconnect_at());
      }
      return ui.listener.lease_changes.size() > changes &&
             ui.listener.lease_changes.back() != Change::kLost;
    });
    std::vector<std::string> acquires;
    for (const std::string& call : daemon->service().calls()) {
      if (call.rfind("AcquireLease", 0) == 0) acquires.push_back(call);
    }
    if (waits) {
      // The fake grants a free lease at once; rawd waits for the writer of
      // before first (AcquireLeaseRequest.rejoin_following).
      EXPECT_EQ(acquires, std::vector<std::string>({"AcquireLease:raw:rejoin"}));
    } else {
      EXPECT_TRUE(acquires.empty());
      EXPECT_EQ(ui.listener.lease_changes.back(), Change::kFollowing);
      EXPECT_TRUE(ui.controller->following());
      EXPECT_FALSE(ui.controller->can_write());
    }
  }
}

v1::Event CompactionStarted(const std::string& turn_id) {
  v1::Event e;
  e.set_session_id("s1");
  e.set_turn_id(turn_id);
  e.mutable_compaction_started()->set_tokens_before(500);
  return e;
}

// A daemon killed during a compaction may have left its start without an
// end in older stores: the daemon's own state decides once the session is
// opened.
TEST(SessionControllerTest, AnOpenCompactionInTheHistoryIsDroppedWhenTheDaemonIsIdle) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  v1::Session session = Session("s1");
  session.set_turn_state(v1::TURN_STATE_IDLE);
  daemon.service().AddSession(session);
  daemon.service().Append(Text("done"));
  daemon.service().Append(CompactionStarted("compact_1"));
  daemon.service().SetHistory(daemon.service().log(), 100);
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  ui.RunUntil([&] { return ui.listener.session_updates > 0; });
  EXPECT_FALSE(ui.controller->activity().compacting());
  EXPECT_FALSE(ui.controller->activity().busy());
  EXPECT_EQ(ui.listener.abandoned, 1);
}

TEST(SessionControllerTest, AnOpenCompactionInTheHistoryStaysWhileTheDaemonRunsIt) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  v1::Session session = Session("s1");
  session.set_turn_state(v1::TURN_STATE_COMPACTING);
  daemon.service().AddSession(session);
  daemon.service().Append(CompactionStarted("compact_1"));
  daemon.service().SetHistory(daemon.service().log(), 100);
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  ui.RunUntil([&] { return ui.listener.session_updates > 0; });
  EXPECT_TRUE(ui.controller->activity().compacting());
  EXPECT_EQ(ui.listener.abandoned, 0);
}

TEST(SessionControllerTest, LiveEventsFollowTheNewestHistoryPage) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  for (int i = 0; i < 4; ++i) daemon.service().Append(Text(std::to_string(i)));
  daemon.service().SetHistory(daemon.service().log(), 100);
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  EXPECT_EQ(ui.listener.pages, std::vector<std::vector<uint64_t>>({{3, 4}}));
  daemon.service().Append(Text("live"));
  ui.RunUntil([&] { return ui.listener.SawEvent(5); });
  // The stream starts after the newest event read: none comes twice.
  EXPECT_EQ(ui.listener.events, std::vector<uint64_t>({5}));
  EXPECT_EQ(daemon.service().subscribe_after_seqs(), std::vector<uint64_t>({4}));
}

TEST(SessionControllerTest, HistoryIsReadNewestPageFirstThenOlderPagesUntilNoneIsLeft) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  for (int i = 0; i < 5; ++i) daemon.service().Append(Text(std::to_string(i)));
  daemon.service().SetHistory(daemon.service().log(), 100);
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  ASSERT_EQ(ui.listener.initial_pages, 1);
  EXPECT_FALSE(ui.controller->history_complete());
  ui.controller->LoadOlderHistory();
  EXPECT_TRUE(ui.controller->history_loading());
  ui.controller->LoadOlderHistory();  // one page at a time
  ui.RunUntil([&] { return ui.listener.pages.size() == 2; });
  ui.controller->LoadOlderHistory();
  ui.RunUntil([&] { return ui.listener.pages.size() == 3; });
  EXPECT_TRUE(ui.controller->history_complete());
  ui.controller->LoadOlderHistory();  // nothing left: no call
  EXPECT_EQ(ui.listener.pages, std::vector<std::vector<uint64_t>>({{4, 5}, {2, 3}, {1}}));
  std::vector<std::string> history_calls;
  for (const std::string& call : daemon.service().calls()) {
    if (call.rfind("GetHistory", 0) == 0) history_calls.push_back(call);
  }
  EXPECT_EQ(history_calls,
            std::vector<std::string>({"GetHistory:", "GetHistory:3", "GetHistory:1"}));
  EXPECT_EQ(ui.controller->activity().last_seq(), 5u);
}

TEST(SessionControllerTest, AnApprovalIsPendingUntilAnsweredUnderTheLease) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  v1::Event asked;
  asked.set_turn_id("turn_1");
  asked.mutable_approval_requested()->set_request_id("req_1");
  v1::ApprovalCall* call = asked.mutable_approval_requested()->add_calls();
  call->set_call_id("c1");
  call->set_name("bash");
  call->set_state(v1::APPROVAL_STATE_PENDING);
  daemon.service().Append(asked);
  ui.RunUntil([&] { return ui.controller->pending_approval().has_value(); });
  EXPECT_EQ(ui.controller->pending_approval()->request_id(), "req_1");
  EXPECT_EQ(ui.listener.shown_request, "req_1");
  EXPECT_TRUE(absl::IsNotFound(
      ui.controller->AnswerApproval("req_0", v1::APPROVAL_DECISION_ALLOW_ONCE, "", nullptr)));

  bool answered = false;
  ASSERT_TRUE(ui.controller
                  // The front end answers what it shows, which the answer hides.
                  ->AnswerApproval(ui.listener.shown_request, v1::APPROVAL_DECISION_DENY, "not now",
                                   [&](const absl::Status& s) {
                                     EXPECT_TRUE(s.ok()) << s;
                                     answered = true;
                                   })
                  .ok());
  // Hidden at once, while the answer is on its way.
  EXPECT_FALSE(ui.controller->pending_approval().has_value());
  EXPECT_EQ(ui.listener.shown_request, "");
  ui.RunUntil([&] { return answered && !ui.controller->activity().pending_approval(); });
  EXPECT_FALSE(ui.controller->pending_approval().has_value());
  std::vector<std::string> calls = daemon.service().calls();
  EXPECT_NE(std::find(calls.begin(), calls.end(), "RespondToApproval:req_1:APPROVAL_DECISION_DENY"),
            calls.end());
  std::vector<std::string> leases = daemon.service().write_leases();
  EXPECT_EQ(leases.back(), "RespondToApproval=" + ui.controller->lease().lease_id());
}

TEST(SessionControllerTest, AFollowerCannotWriteAndIsRefusedAtOnce) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  daemon.service().HoldLease("s1", "raw (pid 9)", "raw", 9);
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1", Change::kFollowing);
  EXPECT_TRUE(ui.controller->following());
  EXPECT_EQ(ui.controller->lease().holder(), "raw (pid 9)");
  absl::Status refused = ui.controller->StartTurn("hello", nullptr);
  EXPECT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
  EXPECT_NE(refused.message().find("raw (pid 9)"), std::string::npos) << refused;
  EXPECT_TRUE(absl::IsFailedPrecondition(ui.controller->Compact(nullptr)));
  EXPECT_TRUE(daemon.service().write_leases().empty());
}

TEST(SessionControllerTest, ChangingTheAgentOpensANewSessionWithItInTheSameDirectory) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  ui.RunUntil([&] { return ui.controller->agents().size() == 2; });
  ui.controller->ChangeAgent("reviewer", "/elsewhere");
  ui.RunUntil([&] { return ui.listener.opened.size() == 2; });
  EXPECT_TRUE(ui.listener.last_created);
  EXPECT_EQ(ui.controller->session().id(), "sess_new");
  EXPECT_EQ(ui.controller->session().agent(), "reviewer");
  EXPECT_EQ(daemon.service().last_create().agent(), "reviewer");
  EXPECT_EQ(daemon.service().last_create().cwd(), "/work/project");
  // The first session's lease is let go; the new one is held.
  daemon.service().WaitForLeaseFree("s1");
  ui.RunUntil(
      [&] { return ui.controller->can_write() && ui.controller->lease().lease_id() != "lease_1"; });

  ui.controller->ChangeAgent("missing", "/elsewhere");
  ui.RunUntil([&] { return !ui.listener.open_error.ok(); });
  EXPECT_TRUE(absl::IsNotFound(ui.listener.open_error));
  EXPECT_EQ(ui.controller->session().agent(), "reviewer");
}

TEST(SessionControllerTest, AHandoverRequestReachesTheHoldersListener) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  Frontend holder(daemon.socket_path(), "raw (pid 1)");
  holder.Open("s1");
  Frontend other(daemon.socket_path(), "raw (pid 2)");
  other.Open("s1", Change::kFollowing);
  other.controller->RequestHandover();
  other.RunUntil([&] { return other.listener.Saw(Change::kWaiting); });
  holder.RunUntil([&] { return holder.listener.Saw(Change::kHandoverRequested); });
  EXPECT_EQ(holder.controller->lease().requester().client_name(), "raw (pid 2)");
  // The idle holder's countdown: handed over when it ends.
  // (Ticks at the controller's deadlines stand in for the clock.)
  holder.controller->Tick(absl::Now());
  for (int step = 0; step < 3 && !holder.listener.Saw(Change::kHandedOver); ++step) {
    ASSERT_TRUE(holder.controller->NextDeadline().has_value());
    holder.controller->Tick(*holder.controller->NextDeadline());
  }
  EXPECT_TRUE(holder.listener.Saw(Change::kHandedOver));
  EXPECT_TRUE(holder.controller->following());
  other.RunUntil([&] { return other.controller->can_write(); });
}

TEST(SessionControllerTest, ATurnStartedDuringTheHandoverCountdownKeepsTheLeaseUntilItEnds) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  daemon.service().OnStartTurn([](const std::string& turn_id) {
    v1::Event started = ::raw::testing::MakeEvent(turn_id);
    started.mutable_turn_started();
    return std::vector<v1::Event>{started};
  });
  Frontend holder(daemon.socket_path(), "raw (pid 1)");
  holder.Open("s1");
  Frontend other(daemon.socket_path(), "raw (pid 2)");
  other.Open("s1", Change::kFollowing);
  other.controller->RequestHandover();
  holder.RunUntil([&] { return holder.listener.Saw(Change::kHandoverRequested); });
  const absl::Time t0 = absl::Now();
  holder.controller->Tick(t0);
  ASSERT_EQ(holder.controller->lease().gate().phase(), HandoverGate::Phase::kCountdown);
  const absl::Time release_at = holder.controller->lease().gate().release_at();
  // A turn starts during the countdown without a key (as an ACP prompt).
  ASSERT_TRUE(holder.controller->StartTurn("hello", nullptr).ok());
  holder.RunUntil([&] { return holder.controller->activity().busy(); });
  holder.controller->Tick(release_at);
  holder.controller->Tick(release_at + absl::Minutes(1));
  EXPECT_FALSE(holder.listener.Saw(Change::kHandedOver));
  EXPECT_TRUE(holder.controller->can_write());
  EXPECT_EQ(holder.controller->lease().gate().phase(), HandoverGate::Phase::kAfterTurn);
  EXPECT_EQ(holder.controller->NextDeadline(), std::nullopt);
}

// A prompt sent and not yet answered (the daemon prepares its turn, say
// while MCP servers start) holds a handover as a running turn does: the
// holder's own prompt is not handed to the requester before it starts.
TEST(SessionControllerTest, AStartBeingPreparedHoldsAHandoverUntilItsTurnEnds) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  daemon.service().HoldStartTurns(/*abandon_on_interrupt=*/false);
  Frontend holder(daemon.socket_path(), "raw (pid 1)");
  holder.Open("s1");
  std::optional<absl::Status> started;
  ASSERT_TRUE(
      holder.controller->StartTurn("slow", [&](const absl::Status& s) { started = s; }).ok());
  daemon.service().WaitForCall("StartTurn:slow");
  Frontend other(daemon.socket_path(), "raw (pid 2)");
  other.Open("s1", Change::kFollowing);
  other.controller->RequestHandover();
  holder.RunUntil([&] { return holder.listener.Saw(Change::kHandoverRequested); });
  // Long past the idle time and the countdown: still held, no countdown.
  const absl::Time t0 = absl::Now();
  holder.controller->Tick(t0);
  holder.controller->Tick(t0 + absl::Minutes(1));
  holder.controller->Tick(t0 + absl::Minutes(2));
  EXPECT_FALSE(holder.listener.Saw(Change::kHandedOver));
  EXPECT_TRUE(holder.controller->can_write());
  EXPECT_EQ(holder.controller->lease().gate().phase(), HandoverGate::Phase::kAfterTurn);
  daemon.service().ReleaseStartTurns();
  holder.RunUntil([&] { return started.has_value(); });
  EXPECT_TRUE(started->ok()) << *started;
}

// An interrupt during a turn's slow preparation goes out at once, not
// after the StartTurn call that waits for the preparation: the daemon
// abandons the turn, and StartTurn answers CANCELLED.
TEST(SessionControllerTest, AnInterruptIsNotQueuedBehindAStartTurnBeingPrepared) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  daemon.service().HoldStartTurns(/*abandon_on_interrupt=*/true);
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  std::optional<absl::Status> started;
  ASSERT_TRUE(ui.controller->StartTurn("slow", [&](const absl::Status& s) { started = s; }).ok());
  daemon.service().WaitForCall("StartTurn:slow");
  std::optional<absl::Status> interrupted;
  ASSERT_TRUE(ui.controller->Interrupt([&](const absl::Status& s) { interrupted = s; }).ok());
  ui.RunUntil([&] { return started.has_value() && interrupted.has_value(); });
  EXPECT_TRUE(interrupted->ok()) << *interrupted;
  EXPECT_TRUE(absl::IsCancelled(*started)) << *started;
  std::vector<std::string> calls = daemon.service().calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "InterruptTurn"), 1);
}

// An interrupt while a start is unanswered names the operation that start
// chose, so that the daemon stops it whether the interrupt reaches it
// before or after the start (rawd remembers an id it has not seen start):
// sent once, and never again after the start's answer.
TEST(SessionControllerTest, AnInterruptDuringAStartNamesItsOperation) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().AddSession(Session("s1"));
  daemon.service().HoldStartTurns(/*abandon_on_interrupt=*/false);
  Frontend ui(daemon.socket_path(), "raw (pid 1)");
  ui.Open("s1");
  std::optional<absl::Status> started;
  std::string turn_id;
  absl::StatusOr<std::string> chosen =
      ui.controller->StartTurnWithId("hi", [&](const absl::Status& s, const std::string& id) {
        started = s;
        turn_id = id;
      });
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  daemon.service().WaitForCall("StartTurn:hi");
  std::optional<absl::Status> interrupted;
  ASSERT_TRUE(ui.controller->Interrupt([&](const absl::Status& s) { interrupted = s; }).ok());
  ui.RunUntil([&] { return interrupted.has_value(); });
  std::vector<std::string> starts = daemon.service().start_turn_ids();
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_TRUE(IsIdOfForm(starts[0], "turn_")) << starts[0];
  // The caller knew the id before the start was answered.
  EXPECT_EQ(*chosen, starts[0]);
  EXPECT_EQ(daemon.service().interrupt_operation_ids(), std::vector<std::string>{starts[0]});
  daemon.service().ReleaseStartTurns();
  ui.RunUntil([&] { return started.has_value(); });
  EXPECT_TRUE(started->ok()) << *started;  // this fake does not remember it
  EXPECT_EQ(turn_id, starts[0]);
  // With nothing unanswered, an interrupt names nothing.
  ASSERT_TRUE(ui.controller->Interrupt(nullptr).ok());
  ui.RunUntil([&] { return daemon.service().interrupt_operation_ids().size() == 2; });
  EXPECT_EQ(daemon.service().interrupt_operation_ids()[1], "");
}

TEST(SessionControllerTest, TheFirstConnectionFailingIsReported) {
  TempDir dir;
  Frontend ui(dir.File("nobody.sock"), "raw (pid 1)");
  ui.controller->Start();
  ui.RunUntil([&] { return !ui.listener.connect_error.ok(); });
  EXPECT_TRUE(absl::IsUnavailable(ui.listener.connect_error)) << ui.listener.connect_error;
  EXPECT_FALSE(ui.listener.connected);
}

}  // namespace
}  // namespace raw::client
