#include "clients/lib/write_lease.h"

#include <filesystem>
#include <set>
#include <string>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"

namespace raw::client {
namespace {

using ::raw::testing::FakeDaemon;
using ::raw::testing::TempDir;

RawClient ConnectTo(FakeDaemon& daemon) {
  ConnectOptions options;
  options.socket_path = daemon.socket_path();
  options.autostart = Autostart::kNever;
  options.env = [](const std::string&) { return std::nullopt; };
  auto client = Connect(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return *std::move(client);
}

v1::AcquireLeaseRequest Request(const std::string& name, bool handover) {
  v1::AcquireLeaseRequest request;
  request.set_session_id("s1");
  request.set_client_name(name);
  request.set_client_kind("raw");
  request.set_client_pid(7);
  request.set_request_handover(handover);
  return request;
}

// What a lease stream reported, for the test thread to wait on.
class Recorder {
 public:
  WriteLease::Callbacks Callbacks() {
    WriteLease::Callbacks c;
    c.waiting = [this](const v1::LeaseHolder& h) { Add("waiting:" + h.client_name()); };
    c.handover_requested = [this](const v1::LeaseHolder& h) { Add("asked:" + h.client_name()); };
    c.granted = [this](const std::string&) { Add("granted"); };
    c.ended = [this](const absl::Status& s) { Add("ended:" + absl::StatusCodeToString(s.code())); };
    return c;
  }
  void WaitFor(const std::string& what) {
    absl::MutexLock l(&mu_);
    auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return std::find(seen_.begin(), seen_.end(), what) != seen_.end();
    };
    mu_.Await(absl::Condition(&seen));
  }
  std::vector<std::string> seen() {
    absl::MutexLock l(&mu_);
    return seen_;
  }

 private:
  void Add(const std::string& what) {
    absl::MutexLock l(&mu_);
    seen_.push_back(what);
  }
  absl::Mutex mu_;
  std::vector<std::string> seen_ ABSL_GUARDED_BY(mu_);
};

TEST(WriteLeaseTest, AFreeLeaseIsGrantedAndReleasedWithTheObject) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  RawClient client = ConnectTo(daemon);
  {
    WriteLease lease(client, Request("a", false));
    auto id = lease.WaitGranted();
    ASSERT_TRUE(id.ok()) << id.status();
    EXPECT_EQ(*id, "lease_1");
  }
  daemon.service().WaitForLeaseFree("s1");
}

// The sockets this process has open (the fake daemon's included), by
// inode: sockets of earlier connections that gRPC closes in the background
// leave the set without hiding the new ones.
std::set<std::string> OpenSockets() {
  std::set<std::string> sockets;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().rfind("socket:", 0) == 0) sockets.insert(target.string());
  }
  return sockets;
}

// How many of `now` are not in `before`.
int NewSockets(const std::set<std::string>& before, const std::set<std::string>& now) {
  int n = 0;
  for (const std::string& socket : now) n += before.count(socket) == 0 ? 1 : 0;
  return n;
}

TEST(WriteLeaseTest, ALeaseConnectionOfItsOwnCarriesTheLeaseStream) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  for (bool own : {false, true}) {
    ConnectOptions options;
    options.socket_path = daemon.socket_path();
    options.autostart = Autostart::kNever;
    options.env = [](const std::string&) { return std::nullopt; };
    options.lease_connection = own;
    auto client = Connect(options);
    ASSERT_TRUE(client.ok()) << client.status();
    const std::set<std::string> before = OpenSockets();
    {
      WriteLease lease(*client, Request("a", false));
      ASSERT_TRUE(lease.WaitGranted().ok());
      // Its own connection: one socket more at each end.
      EXPECT_EQ(NewSockets(before, OpenSockets()), own ? 2 : 0) << "lease_connection " << own;
    }
    daemon.service().WaitForLeaseFree("s1");
  }
}

TEST(WriteLeaseTest, AHeldLeaseIsRefusedAtOnceNamingTheHolder) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  RawClient client = ConnectTo(daemon);
  WriteLease first(client, Request("first", false));
  ASSERT_TRUE(first.WaitGranted().ok());
  WriteLease second(client, Request("second", false));
  auto refused = second.WaitGranted();
  ASSERT_TRUE(absl::IsFailedPrecondition(refused.status())) << refused.status();
  EXPECT_NE(refused.status().message().find("open for writing in \"first\" (raw, pid 7"),
            std::string::npos)
      << refused.status();
}

TEST(WriteLeaseTest, AHandoverWaitsForTheHolderToRelease) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  RawClient client = ConnectTo(daemon);
  Recorder holder_events, waiter_events;
  auto holder = std::make_unique<WriteLease>(client, Request("holder", false),
                                             holder_events.Callbacks());
  ASSERT_TRUE(holder->WaitGranted().ok());
  WriteLease waiter(client, Request("waiter", true), waiter_events.Callbacks());
  waiter_events.WaitFor("waiting:holder");
  holder_events.WaitFor("asked:waiter");
  holder.reset();  // the holder releases
  auto id = waiter.WaitGranted();
  ASSERT_TRUE(id.ok()) << id.status();
  // The callback may run just after WaitGranted returns.
  waiter_events.WaitFor("granted");
  EXPECT_EQ(waiter_events.seen(), (std::vector<std::string>{"waiting:holder", "granted"}));
}

TEST(WriteLeaseTest, ADeclinedHandoverEndsTheWaiter) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  RawClient client = ConnectTo(daemon);
  Recorder holder_events;
  WriteLease holder(client, Request("holder", false), holder_events.Callbacks());
  auto lease_id = holder.WaitGranted();
  ASSERT_TRUE(lease_id.ok());
  WriteLease waiter(client, Request("waiter", true));
  holder_events.WaitFor("asked:waiter");
  v1::DeclineHandoverRequest decline;
  decline.set_session_id("s1");
  decline.set_lease_id(*lease_id);
  ASSERT_TRUE(client.DeclineHandover(decline).ok());
  auto refused = waiter.WaitGranted();
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status())) << refused.status();
}

}  // namespace
}  // namespace raw::client
