#include "clients/lib/session_lease.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"
#include "tests/clients/owner_queue.h"

namespace raw::client {
namespace {

using ::raw::testing::FakeDaemon;
using ::raw::testing::OwnerQueue;
using ::raw::testing::TempDir;
using Change = SessionLease::Change;
using State = SessionLease::State;

class LeaseRecorder : public SessionLease::Listener {
 public:
  void OnLeaseChange(Change change, State) override { changes.push_back(change); }
  bool Saw(Change change) const {
    return std::find(changes.begin(), changes.end(), change) != changes.end();
  }
  std::vector<Change> changes;
};

std::shared_ptr<RawClient> ConnectTo(FakeDaemon& daemon) {
  ConnectOptions options;
  options.socket_path = daemon.socket_path();
  options.autostart = Autostart::kNever;
  options.env = [](const std::string&) { return std::nullopt; };
  auto client = Connect(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return std::make_shared<RawClient>(*std::move(client));
}

// One client: its queue, listener and lease.
// With `quiet`, it waits for the lease while following (as `raw` does).
struct Client {
  Client(const std::string& name, HandoverGate::Timing timing, bool quiet = true)
      : lease(
            {name, "raw", 1, /*interrupt_on_release=*/false, quiet}, timing,
            [this](std::function<void()> t) { queue.Post(std::move(t)); },
            // DeclineHandover runs at once: the fake answers without waiting.
            [](std::function<void()> t) { t(); }, listener) {}
  void RunUntil(Change change) {
    queue.RunUntil([this, change] { return listener.Saw(change); });
  }
  OwnerQueue queue;
  LeaseRecorder listener;
  SessionLease lease;
};

// `a` writes to session "s1", `b` follows it.
void WriterAndFollower(const std::shared_ptr<RawClient>& rpc, Client& a, Client& b) {
  a.lease.Acquire(rpc, "s1");
  a.RunUntil(Change::kGranted);
  b.lease.Acquire(rpc, "s1");
  b.RunUntil(Change::kFollowing);
}

const absl::Time kT0 = absl::FromUnixSeconds(1000);
const HandoverGate::Timing kTiming{absl::Seconds(10), absl::Seconds(10)};

TEST(SessionLeaseTest, TheFirstClientWritesTheSecondFollowsNamingIt) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  Client a("raw (pid 1)", kTiming), b("raw (pid 2)", kTiming);
  a.lease.Acquire(rpc, "s1");
  a.RunUntil(Change::kGranted);
  EXPECT_EQ(a.lease.state(), State::kHeld);
  EXPECT_EQ(a.lease.lease_id(), "lease_1");
  b.lease.Acquire(rpc, "s1");
  b.RunUntil(Change::kFollowing);
  EXPECT_TRUE(b.lease.following());
  EXPECT_EQ(b.lease.holder(), "raw (pid 1)");
  EXPECT_TRUE(b.lease.lease_id().empty());
}

TEST(SessionLeaseTest, AnIdleHolderHandsOverAtTheEndOfTheCountdown) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  Client a("raw (pid 1)", kTiming), b("raw (pid 2)", kTiming);
  WriterAndFollower(rpc, a, b);
  b.lease.RequestHandover();
  b.RunUntil(Change::kWaiting);
  EXPECT_EQ(b.lease.state(), State::kRequesting);
  a.RunUntil(Change::kHandoverRequested);
  EXPECT_EQ(a.lease.requester().client_name(), "raw (pid 2)");
  a.lease.Tick(/*turn_running=*/false, kT0);
  EXPECT_EQ(a.lease.gate().phase(), HandoverGate::Phase::kCountdown);
  a.lease.Tick(false, kT0 + absl::Seconds(9));
  EXPECT_EQ(a.lease.state(), State::kHeld);
  a.lease.Tick(false, kT0 + absl::Seconds(10));
  EXPECT_EQ(a.listener.changes.back(), Change::kHandedOver);
  EXPECT_EQ(a.lease.state(), State::kFollowing);
  EXPECT_EQ(a.lease.holder(), "raw (pid 2)");
  b.queue.RunUntil([&b] { return b.lease.state() == State::kHeld; });
  EXPECT_EQ(b.lease.lease_id(), "lease_2");
}

// The client that asked quits during the countdown: the daemon says nobody
// asks any more, and the holder keeps the session instead of handing it to
// whoever else waits (or to nobody) when the countdown would have ended.
TEST(SessionLeaseTest, AWithdrawnRequestEndsTheCountdownAndTheHolderKeepsTheLease) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  Client a("raw (pid 1)", kTiming), b("raw (pid 2)", kTiming);
  WriterAndFollower(rpc, a, b);
  b.lease.RequestHandover();
  b.RunUntil(Change::kWaiting);
  a.RunUntil(Change::kHandoverRequested);
  a.lease.Tick(/*turn_running=*/false, kT0);
  ASSERT_EQ(a.lease.gate().phase(), HandoverGate::Phase::kCountdown);
  b.lease.Release();  // the asking client quits
  a.RunUntil(Change::kHandoverWithdrawn);
  EXPECT_EQ(a.lease.gate().phase(), HandoverGate::Phase::kNone);
  a.lease.Tick(false, kT0 + absl::Seconds(10));
  a.lease.Tick(false, kT0 + absl::Minutes(5));
  EXPECT_FALSE(a.listener.Saw(Change::kHandedOver));
  EXPECT_EQ(a.lease.state(), State::kHeld);
}

TEST(SessionLeaseTest, ARunningTurnDelaysTheHandoverAndAKeyKeepsTheLease) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  Client a("raw (pid 1)", kTiming), b("raw (pid 2)", kTiming);
  a.lease.Acquire(rpc, "s1");
  a.RunUntil(Change::kGranted);
  a.lease.Tick(/*turn_running=*/true, kT0);
  b.lease.Acquire(rpc, "s1");
  b.RunUntil(Change::kFollowing);
  b.lease.RequestHandover();
  a.RunUntil(Change::kHandoverRequested);
  a.lease.Tick(true, kT0 + absl::Minutes(5));
  EXPECT_EQ(a.lease.gate().phase(), HandoverGate::Phase::kAfterTurn);
  a.lease.Tick(false, kT0 + absl::Minutes(6));  // the turn ended
  EXPECT_EQ(a.lease.gate().phase(), HandoverGate::Phase::kCountdown);
  EXPECT_TRUE(a.lease.KeyPressed(kT0 + absl::Minutes(6) + absl::Seconds(2)));
  EXPECT_EQ(a.listener.changes.back(), Change::kKept);
  EXPECT_EQ(a.lease.state(), State::kHeld);
  b.RunUntil(Change::kDeclined);
  EXPECT_EQ(b.lease.state(), State::kFollowing);
  EXPECT_FALSE(a.lease.KeyPressed(kT0 + absl::Minutes(7)));  // nothing pending any more
}

// A follower names the writer it follows, also after the lease passed from
// one other client to another while it followed.
TEST(SessionLeaseTest, AFollowerNamesTheNewWriterAfterAHandoverBetweenOthers) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  // `a` does not wait for the session once it handed it over, so that `c`
  // is the only follower waiting when `b` lets go.
  Client a("raw (pid 1)", kTiming, /*quiet=*/false), b("raw (pid 2)", kTiming),
      c("raw (pid 3)", kTiming);
  WriterAndFollower(rpc, a, c);
  b.lease.Acquire(rpc, "s1");
  b.RunUntil(Change::kFollowing);
  b.lease.RequestHandover();
  a.RunUntil(Change::kHandoverRequested);
  a.lease.Tick(/*turn_running=*/false, kT0);
  a.lease.Tick(false, kT0 + absl::Seconds(10));
  EXPECT_EQ(a.listener.changes.back(), Change::kHandedOver);
  b.queue.RunUntil([&b] { return b.lease.state() == State::kHeld; });

  c.RunUntil(Change::kWriterChanged);
  EXPECT_EQ(c.lease.holder(), "raw (pid 2)");
  EXPECT_EQ(c.lease.state(), State::kFollowing);
  EXPECT_EQ(c.listener.changes, (std::vector<Change>{Change::kFollowing, Change::kWriterChanged}));
  // When the new writer lets go, the follower writes.
  b.lease.Release();
  c.queue.RunUntil([&c] { return c.lease.state() == State::kHeld; });
}

TEST(SessionLeaseTest, AFollowerWritesOnceTheWriterLetsGoWithoutAskingIt) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  Client b("raw (pid 2)", kTiming);
  {
    Client a("raw (pid 1)", kTiming);
    a.lease.Acquire(rpc, "s1");
    a.RunUntil(Change::kGranted);
    b.lease.Acquire(rpc, "s1");
    b.RunUntil(Change::kFollowing);
    EXPECT_EQ(b.lease.holder(), "raw (pid 1)");
    // The writer was not asked anything.
    EXPECT_FALSE(a.listener.Saw(Change::kHandoverRequested));
  }  // the writer quits: its lease ends
  b.RunUntil(Change::kGranted);
  EXPECT_EQ(b.lease.state(), State::kHeld);
  EXPECT_EQ(b.lease.lease_id(), "lease_2");
  EXPECT_EQ(b.listener.changes, (std::vector<Change>{Change::kFollowing, Change::kGranted}));
}

// raw-acp's kind: it follows without waiting; the lease stays free when
// the writer goes, for the next client that asks.
TEST(SessionLeaseTest, AFollowerThatDoesNotWaitIsNotGrantedWhenTheWriterLeaves) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  Client b("raw-acp (pid 2)", kTiming, /*quiet=*/false);
  {
    Client a("raw (pid 1)", kTiming);
    WriterAndFollower(rpc, a, b);
  }
  // A third client finds the lease free: nobody took it.
  Client c("raw (pid 3)", kTiming);
  c.lease.Acquire(rpc, "s1");
  c.RunUntil(Change::kGranted);
  EXPECT_EQ(b.lease.state(), State::kFollowing);
  EXPECT_FALSE(b.listener.Saw(Change::kGranted));
}

TEST(SessionLeaseTest, AfterADeclineOrAHandoverTheFollowerWaitsAgain) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto rpc = ConnectTo(daemon);
  Client a("raw (pid 1)", kTiming), b("raw (pid 2)", kTiming);
  WriterAndFollower(rpc, a, b);
  // b asks; a keeps the session with a key during the countdown.
  b.lease.RequestHandover();
  a.RunUntil(Change::kHandoverRequested);
  a.lease.Tick(false, kT0);
  EXPECT_TRUE(a.lease.KeyPressed(kT0 + absl::Seconds(1)));
  b.RunUntil(Change::kDeclined);
  EXPECT_EQ(b.lease.state(), State::kFollowing);
  // b waits again, unasked: a's next countdown sees no request from it.
  b.lease.RequestHandover();
  a.queue.RunUntil([&a] {
    return std::count(a.listener.changes.begin(), a.listener.changes.end(),
                      Change::kHandoverRequested) == 2;
  });
  // This time a hands over, and waits itself.
  a.lease.Tick(false, kT0 + absl::Minutes(1));
  a.lease.Tick(false, kT0 + absl::Minutes(1) + absl::Seconds(10));
  EXPECT_EQ(a.listener.changes.back(), Change::kHandedOver);
  b.queue.RunUntil([&b] { return b.lease.state() == State::kHeld; });
  // b quits: a, following, writes again without having asked.
  b.lease.Release();
  a.queue.RunUntil([&a] { return a.lease.state() == State::kHeld; });
  EXPECT_EQ(std::count(a.listener.changes.begin(), a.listener.changes.end(), Change::kGranted), 2);
}

TEST(SessionLeaseTest, ADaemonWithoutQuietWaitsLeavesTheFollowerAsBefore) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().RefuseQuietWaits();
  auto rpc = ConnectTo(daemon);
  Client a("raw (pid 1)", kTiming), b("raw (pid 2)", kTiming);
  WriterAndFollower(rpc, a, b);
  EXPECT_EQ(b.lease.holder(), "raw (pid 1)");
  b.lease.RequestHandover();
  a.RunUntil(Change::kHandoverRequested);
  a.lease.Tick(false, kT0);
  EXPECT_TRUE(a.lease.KeyPressed(kT0 + absl::Seconds(1)));
  b.RunUntil(Change::kDeclined);
  // The wait started again is refused: nothing new is said.
  b.queue.RunUntil(
      [&b] { return absl::StrContains(b.lease.status().message(), "is open for writing in"); });
  EXPECT_EQ(b.listener.changes,
            (std::vector<Change>{Change::kFollowing, Change::kWaiting, Change::kDeclined}));
  EXPECT_EQ(b.lease.state(), State::kFollowing);
}

TEST(SessionLeaseTest, HolderFromRefusal) {
  EXPECT_EQ(HolderFromRefusal("session s is open for writing in \"raw (pid 4)\" (raw, pid 4, since x)"),
            "raw (pid 4)");
  EXPECT_EQ(HolderFromRefusal("something else"), "");
}

}  // namespace
}  // namespace raw::client
