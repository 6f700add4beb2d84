#include "clients/lib/raw_client.h"

#include <sys/stat.h>

#include <atomic>
#include <map>
#include <thread>

#include "absl/synchronization/notification.h"
#include "clients/lib/event_stream.h"
#include "clients/lib/write_lease.h"
#include "common/version.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"

namespace raw::client {
namespace {

using ::raw::testing::FakeDaemon;
using ::raw::testing::MakeEvent;
using ::raw::testing::ReadFile;
using ::raw::testing::TempDir;
using ::raw::testing::WriteFile;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

ConnectOptions Options(const std::string& socket, Autostart autostart = Autostart::kNever) {
  ConnectOptions options;
  options.socket_path = socket;
  options.autostart = autostart;
  options.env = Env({});
  return options;
}

v1::Event TextDelta(const std::string& text) {
  v1::Event e = MakeEvent("turn_1");
  e.mutable_text_delta()->set_text(text);
  return e;
}

class Collector : public EventHandler {
 public:
  explicit Collector(int stop_after = -1) : stop_after_(stop_after) {}
  Next OnEvent(const v1::Event& event) override {
    events.push_back(event);
    if (first_event) first_event->Notify();
    if (stop_after_ > 0 && static_cast<int>(events.size()) == stop_after_) return Next::kStop;
    return Next::kContinue;
  }
  std::vector<v1::Event> events;
  absl::Notification* first_event = nullptr;

 private:
  int stop_after_;
};

TEST(ConnectTest, ConnectsAndReportsTheDaemon) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(client->socket_path(), daemon.socket_path());
  EXPECT_EQ(client->daemon_info().version(), "9.9.9");
  EXPECT_FALSE(client->started_daemon());
}

TEST(ConnectTest, SocketComesFromRawSocketWhenNotGiven) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  ConnectOptions options = Options("");
  options.env = Env({{"RAW_SOCKET", daemon.socket_path()}});
  EXPECT_EQ(SocketPathFor(options), daemon.socket_path());
  auto client = Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
}

TEST(ConnectTest, ExplicitSocketBeatsRawSocket) {
  ConnectOptions options = Options("/a/b.sock");
  options.env = Env({{"RAW_SOCKET", "/c/d.sock"}});
  EXPECT_EQ(SocketPathFor(options), "/a/b.sock");
}

TEST(ConnectTest, ProtocolMismatchIsAClearError) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  v1::GetDaemonInfoResponse info;
  info.set_version("7.0.0");
  info.set_protocol_version(kProtocolVersion + 1);
  daemon.service().SetInfo(info);
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(absl::IsFailedPrecondition(client.status())) << client.status();
  const std::string message(client.status().message());
  EXPECT_NE(message.find("protocol version " + std::to_string(kProtocolVersion + 1)),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("7.0.0"), std::string::npos) << message;
  EXPECT_NE(message.find("raw daemon stop"), std::string::npos) << message;

  ConnectOptions report = Options(daemon.socket_path());
  report.version_check = VersionCheck::kReport;
  auto inspecting = Connect(report);
  ASSERT_TRUE(inspecting.ok()) << inspecting.status();
  EXPECT_EQ(inspecting->daemon_info().protocol_version(), kProtocolVersion + 1);
}

TEST(ConnectTest, NoDaemonWithoutAutostartIsUnavailable) {
  TempDir dir;
  auto client = Connect(Options(dir.File("rawd.sock")));
  ASSERT_TRUE(absl::IsUnavailable(client.status())) << client.status();
  EXPECT_NE(client.status().message().find("no daemon is running at " + dir.File("rawd.sock")),
            std::string::npos);
}

TEST(ConnectTest, StaleSocketFileWithoutAutostartIsUnavailable) {
  TempDir dir;
  // A file nobody listens on (as a socket left behind by a crash) refuses
  // connections.
  WriteFile(dir.File("rawd.sock"), "");
  auto client = Connect(Options(dir.File("rawd.sock")));
  EXPECT_TRUE(absl::IsUnavailable(client.status())) << client.status();
}

TEST(ConnectTest, RawNoAutostartDisablesAutostart) {
  TempDir dir;
  WriteFile(dir.File("rawd"), "#!/bin/sh\necho started >> \"$(dirname \"$0\")/log\"\n", 0755);
  ConnectOptions options = Options(dir.File("rawd.sock"), Autostart::kIfAllowed);
  options.env = Env({{"RAW_NO_AUTOSTART", "1"}, {"RAW_DAEMON", dir.File("rawd")}});
  EXPECT_FALSE(AutostartEnabled(options));
  auto client = Connect(options);
  ASSERT_TRUE(absl::IsUnavailable(client.status())) << client.status();
  EXPECT_NE(client.status().message().find("RAW_NO_AUTOSTART"), std::string::npos);
  EXPECT_EQ(ReadFile(dir.File("log")), "");

  options.env = Env({{"RAW_NO_AUTOSTART", "0"}});
  EXPECT_TRUE(AutostartEnabled(options));
  options.env = Env({{"RAW_NO_AUTOSTART", "1"}});
  options.autostart = Autostart::kRequested;
  EXPECT_TRUE(AutostartEnabled(options));
}

TEST(ConnectTest, AutostartFailureCarriesTheDaemonsMessage) {
  TempDir dir;
  WriteFile(dir.File("rawd"), "#!/bin/sh\necho 'cannot open the state database' >&2\nexit 1\n",
            0755);
  ConnectOptions options = Options(dir.File("run/rawd.sock"), Autostart::kIfAllowed);
  options.env = Env({{"RAW_DAEMON", dir.File("rawd")}});
  auto client = Connect(options);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find("cannot open the state database"), std::string::npos)
      << client.status();
  // The socket directory was created private, with the lock file inside.
  struct stat st;
  ASSERT_EQ(stat(dir.File("run").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(access(dir.File("run/rawd.sock.lock").c_str(), F_OK), 0);
}

TEST(ConnectTest, AutostartRefusesASharedSocketDirectory) {
  TempDir dir;
  ASSERT_EQ(mkdir(dir.File("shared").c_str(), 0777), 0);
  ASSERT_EQ(chmod(dir.File("shared").c_str(), 01777), 0);
  ConnectOptions options = Options(dir.File("shared/rawd.sock"), Autostart::kIfAllowed);
  auto client = Connect(options);
  ASSERT_TRUE(absl::IsPermissionDenied(client.status())) << client.status();
  EXPECT_NE(client.status().message().find("other users can write"), std::string::npos);
}

// Two clients find no daemon at the same moment: the lock makes exactly one
// of them start it, and both connect. The stand-in rawd announces itself on
// a FIFO; the test then serves the socket (as rawd would) and lets the
// stand-in report ready.
TEST(ConnectTest, RacingClientsStartOneDaemon) {
  TempDir dir;
  const std::string socket = dir.File("rawd.sock");
  ASSERT_EQ(mkfifo(dir.File("started").c_str(), 0600), 0);
  ASSERT_EQ(mkfifo(dir.File("serving").c_str(), 0600), 0);
  WriteFile(dir.File("rawd"),
            "#!/bin/bash\n"
            "d=\"$(dirname \"$0\")\"\n"
            "while [ $# -gt 0 ]; do [ \"$1\" = --ready-fd ] && ready=$2; shift; done\n"
            "echo launch >> \"$d/launches\"\n"
            "echo started > \"$d/started\"\n"
            "read line < \"$d/serving\"\n"
            "printf R >&\"$ready\"\n",
            0755);
  std::unique_ptr<FakeDaemon> daemon;
  std::thread server([&] {
    ReadFile(dir.File("started"));  // blocks until the stand-in runs
    daemon = std::make_unique<FakeDaemon>(socket);
    WriteFile(dir.File("serving"), "go\n");
  });

  ConnectOptions options = Options(socket, Autostart::kIfAllowed);
  options.env = Env({{"RAW_DAEMON", dir.File("rawd")}});
  options.ready_timeout = absl::Seconds(20);
  absl::StatusOr<RawClient> results[2] = {absl::UnknownError(""), absl::UnknownError("")};
  std::thread a([&] { results[0] = Connect(options); });
  std::thread b([&] { results[1] = Connect(options); });
  a.join();
  b.join();
  server.join();
  ASSERT_TRUE(results[0].ok()) << results[0].status();
  ASSERT_TRUE(results[1].ok()) << results[1].status();
  EXPECT_EQ(ReadFile(dir.File("launches")), "launch\n");
  EXPECT_NE(results[0]->started_daemon(), results[1]->started_daemon());
}

TEST(RawClientTest, ErrorsKeepTheDaemonsCodeAndMessage) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  v1::GetSessionRequest request;
  request.set_session_id("nope");
  auto session = client->GetSession(request);
  ASSERT_TRUE(absl::IsNotFound(session.status())) << session.status();
  EXPECT_EQ(session.status().message(), "no session with id \"nope\"");
}

TEST(RawClientTest, CallsFailWithUnavailableOnceTheDaemonIsGone) {
  TempDir dir;
  auto daemon = std::make_unique<FakeDaemon>(dir.File("rawd.sock"));
  auto client = Connect(Options(daemon->socket_path()));
  ASSERT_TRUE(client.ok());
  daemon.reset();
  auto sessions = client->ListSessions(v1::ListSessionsRequest());
  EXPECT_TRUE(absl::IsUnavailable(sessions.status())) << sessions.status();
  EXPECT_TRUE(client->WaitUntilUnreachable(absl::Seconds(10)).ok());
}

// CancelCalls ends a call the daemon has not answered, at once, and fails
// the later ones without sending them.
TEST(RawClientTest, CancelCallsEndsTheCallInFlightAndLaterOnes) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  absl::Notification release;
  daemon.service().SetOnShutdown(
      [&release] { release.WaitForNotificationWithTimeout(absl::Seconds(30)); });
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  absl::Status in_flight;
  std::thread caller([&] { in_flight = client->Shutdown(v1::ShutdownRequest()).status(); });
  daemon.service().WaitForCall("Shutdown");
  client->CancelCalls();
  caller.join();  // before the daemon answers
  EXPECT_TRUE(absl::IsCancelled(in_flight)) << in_flight;
  auto later = client->ListSessions(v1::ListSessionsRequest());
  EXPECT_TRUE(absl::IsCancelled(later.status())) << later.status();
  release.Notify();
  for (const std::string& call : daemon.service().calls()) EXPECT_NE(call, "ListSessions:");
}

TEST(RawClientTest, WaitUntilUnreachableTimesOutWhileTheDaemonServes) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  absl::Status status = client->WaitUntilUnreachable(absl::Milliseconds(200));
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
}

TEST(SubscribeTest, DeliversEventsAfterTheGivenSeqUntilTheHandlerStops) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  for (const char* text : {"one", "two", "three", "four"}) {
    v1::Event e = MakeEvent("turn_1");
    e.mutable_notice()->set_text(text);
    daemon.service().Append(e);
  }
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  Collector collector(/*stop_after=*/2);
  absl::Status status = client->Subscribe("sess_new", 1, collector);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(collector.events.size(), 2u);
  EXPECT_EQ(collector.events[0].seq(), 2u);
  EXPECT_EQ(collector.events[0].notice().text(), "two");
  EXPECT_EQ(collector.events[1].notice().text(), "three");
}

TEST(SubscribeTest, OnOpenRunsBeforeEventsAndSeesLiveOnes) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  v1::AcquireLeaseRequest acquire;
  acquire.set_session_id("sess_new");
  WriteLease lease(*client, acquire);
  absl::StatusOr<std::string> lease_id = lease.WaitGranted();
  ASSERT_TRUE(lease_id.ok()) << lease_id.status();
  struct Starter : Collector {
    Starter(RawClient& c, std::string lease) : Collector(2), client(c), lease_id(std::move(lease)) {}
    Next OnOpen() override {
      opened_before_events = events.empty();
      v1::StartTurnRequest start;
      start.set_session_id("sess_new");
      start.set_text("hi");
      start.set_lease_id(lease_id);
      return client.StartTurn(start).ok() ? Next::kContinue : Next::kStop;
    }
    RawClient& client;
    std::string lease_id;
    bool opened_before_events = false;
  } starter(*client, *lease_id);
  daemon.service().OnStartTurn([](const std::string& turn) {
    std::vector<v1::Event> events;
    for (const char* t : {"Hel", "lo"}) {
      v1::Event e = MakeEvent(turn);
      e.mutable_text_delta()->set_text(t);
      events.push_back(e);
    }
    return events;
  });
  ASSERT_TRUE(client->Subscribe("sess_new", 0, starter).ok());
  EXPECT_TRUE(starter.opened_before_events);
  EXPECT_TRUE(daemon.service().subscriber_attached_at_start());
  ASSERT_EQ(starter.events.size(), 2u);
  EXPECT_EQ(starter.events[0].text_delta().text(), "Hel");
}

// Stores notices "one", "two" and "three", which a subscription from the
// start then replays in one message.
void StoreThreeInOneMessage(FakeDaemon& daemon) {
  for (const char* text : {"one", "two", "three"}) {
    v1::Event e = MakeEvent("turn_1");
    e.mutable_notice()->set_text(text);
    daemon.service().Append(e);
  }
  daemon.service().ReplayInOneMessage();
}

TEST(SubscribeTest, TheEventsOfOneMessageComeBeforeItsBatchEnd) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  StoreThreeInOneMessage(daemon);
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  // The three stored events come in one message; the fourth, appended once
  // that message was read, in a message of its own.
  struct Marks : EventHandler {
    explicit Marks(FakeDaemon& d) : daemon(d) {}
    Next OnEvent(const v1::Event& event) override {
      marks.push_back(event.notice().text());
      return event.notice().text() == "four" ? Next::kStop : Next::kContinue;
    }
    void OnBatchEnd() override {
      marks.push_back("end");
      if (marks.size() != 4) return;
      v1::Event e = MakeEvent("turn_1");
      e.mutable_notice()->set_text("four");
      daemon.service().Append(e);
    }
    FakeDaemon& daemon;
    std::vector<std::string> marks;
  } handler(daemon);
  ASSERT_TRUE(client->Subscribe("sess_new", 0, handler).ok());
  EXPECT_EQ(handler.marks,
            (std::vector<std::string>{"one", "two", "three", "end", "four", "end"}));
}

// An owner thread's queue for EventStream: what is posted waits until the
// test runs it.
class PostedTasks {
 public:
  EventStream::Executor Executor() {
    return [this](std::function<void()> task) {
      absl::MutexLock lock(&mu_);
      tasks_.push_back(std::move(task));
    };
  }
  // Waits until something was posted, then runs what was, in order.
  void RunWhenPosted() {
    std::vector<std::function<void()>> tasks;
    {
      absl::MutexLock lock(&mu_);
      auto posted = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !tasks_.empty(); };
      ASSERT_TRUE(mu_.AwaitWithTimeout(absl::Condition(&posted), absl::Seconds(30)));
      tasks.swap(tasks_);
    }
    for (auto& task : tasks) task();
  }
  size_t Count() {
    absl::MutexLock lock(&mu_);
    return tasks_.size();
  }

 private:
  absl::Mutex mu_;
  std::vector<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
};

// A client of `daemon`, whose session then holds three events stored in
// one message.
std::shared_ptr<RawClient> ClientOfThreeInOneMessage(FakeDaemon& daemon) {
  StoreThreeInOneMessage(daemon);
  auto client = Connect(Options(daemon.socket_path()));
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? std::make_shared<RawClient>(std::move(*client)) : nullptr;
}

TEST(EventStreamTest, HandsTheEventsOfOneMessageOverAsOneTask) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  std::shared_ptr<RawClient> client = ClientOfThreeInOneMessage(daemon);
  ASSERT_NE(client, nullptr);
  PostedTasks owner;
  std::vector<std::string> seen;
  {
    EventStream stream(
        client, owner.Executor(), "sess_new", 0,
        [&](const v1::Event& event) { seen.push_back(event.notice().text()); },
        [](const absl::Status&) {});
    // The three events come as one task.
    owner.RunWhenPosted();
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"one", "two", "three"}));
}

TEST(EventStreamTest, AnEventRunOnTheStreamsThreadMayDestroyTheStream) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  std::shared_ptr<RawClient> client = ClientOfThreeInOneMessage(daemon);
  ASSERT_NE(client, nullptr);
  PostedTasks owner;
  std::vector<std::string> seen;
  std::thread::id ran_on;
  absl::Notification destroyed;
  // The thread may read the message before make_unique's result is in
  // `stream`: the events wait for it, or the callback would reset nothing.
  absl::Notification assigned;
  std::unique_ptr<EventStream> stream;
  stream = std::make_unique<EventStream>(
      client, owner.Executor(), "sess_new", 0,
      [&](const v1::Event& event) {
        seen.push_back(event.notice().text());
        ran_on = std::this_thread::get_id();
        // The stream's own thread ends its stream: it cannot join itself.
        stream.reset();
        destroyed.Notify();
      },
      [&](const absl::Status&) { seen.push_back("end"); },
      // `deliver` runs the events at once, on the stream's thread.
      [&assigned](std::function<void()> task) {
        assigned.WaitForNotification();
        task();
      });
  assigned.Notify();
  ASSERT_TRUE(destroyed.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_NE(ran_on, std::this_thread::get_id());
  // The detached thread ends on its own, holding the client until then; it
  // delivers nothing more and posts nothing (its owner may be gone).
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (client.use_count() > 1 && absl::Now() < deadline) std::this_thread::yield();
  EXPECT_EQ(client.use_count(), 1);
  EXPECT_EQ(owner.Count(), 0u);
  EXPECT_EQ(seen, (std::vector<std::string>{"one"}));
}

TEST(SubscribeTest, StreamEndingCleanlyIsOk) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  daemon.service().Append(TextDelta("x"));
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  daemon.service().Close();
  Collector collector;
  EXPECT_TRUE(client->Subscribe("sess_new", 0, collector).ok());
  EXPECT_TRUE(collector.events.empty()) << "deltas are not replayed";
}

TEST(SubscribeTest, CancellerEndsAStreamFromAnotherThread) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  v1::Event stored = MakeEvent("turn_1");
  stored.mutable_notice()->set_text("stored");
  daemon.service().Append(stored);
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  StreamCanceller canceller;
  absl::Notification got_first;
  Collector collector;
  collector.first_event = &got_first;
  std::thread cancel([&] {
    got_first.WaitForNotification();  // the stream is open and idle now
    canceller.Cancel();
  });
  absl::Status status = client->Subscribe("sess_new", 0, collector, canceller);
  cancel.join();
  EXPECT_TRUE(absl::IsCancelled(status)) << status;
  EXPECT_EQ(collector.events.size(), 1u);
}

TEST(SubscribeTest, CancelBeforeStartNeverOpensTheStream) {
  TempDir dir;
  FakeDaemon daemon(dir.File("rawd.sock"));
  auto client = Connect(Options(daemon.socket_path()));
  ASSERT_TRUE(client.ok());
  StreamCanceller canceller;
  canceller.Cancel();
  Collector collector;
  EXPECT_TRUE(absl::IsCancelled(client->Subscribe("sess_new", 0, collector, canceller)));
  EXPECT_TRUE(canceller.cancelled());
}

}  // namespace
}  // namespace raw::client
