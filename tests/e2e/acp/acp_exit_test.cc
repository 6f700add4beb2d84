// raw-acp's exit when its client has stopped reading stdout: the bridge
// lets go of its turns and leases, and then does not wait for good on the
// output nobody reads. Spawns raw-acp itself (no driver), so that the test
// decides exactly when stdout stops being read.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "absl/synchronization/notification.h"
#include "tests/e2e/acp/acp_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;

// raw-acp on two pipes: the test writes its stdin and reads its stdout
// only when it chooses to.
class UnreadBridge {
 public:
  explicit UnreadBridge(const std::map<std::string, std::string>& env) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return;
    pid_ = SpawnRawAcp(env, in[0], out[1], -1);
    close(in[0]);
    close(out[1]);
    in_ = in[1];
    out_ = out[0];
    waiter_ = std::thread([this] {
      waitpid(pid_, &status_, 0);
      exited_.Notify();
    });
  }
  ~UnreadBridge() {
    if (pid_ > 0 && !exited_.HasBeenNotified()) kill(pid_, SIGKILL);
    if (waiter_.joinable()) waiter_.join();
    for (int fd : {in_, out_}) {
      if (fd >= 0) close(fd);
    }
  }

  bool started() const { return pid_ > 0 && in_ >= 0; }
  void Send(const Json& message) {
    std::string line = DumpJson(message) + "\n";
    ASSERT_EQ(write(in_, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  }
  // Reads stdout until the answer to request `id`.
  Json ResponseTo(int id) {
    for (;;) {
      size_t nl;
      while ((nl = pending_.find('\n')) == std::string::npos) {
        char buf[65536];
        ssize_t n = read(out_, buf, sizeof buf);
        if (n <= 0) return Json();
        pending_.append(buf, static_cast<size_t>(n));
      }
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      absl::StatusOr<Json> m = ParseJson(line);
      if (m.ok() && m->contains("id") && (*m)["id"] == id && !m->contains("method")) return *m;
    }
  }
  void Signal(int sig) { kill(pid_, sig); }
  bool WaitForExit(absl::Duration timeout) {
    return exited_.WaitForNotificationWithTimeout(timeout);
  }
  int status() const { return status_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string pending_;
  std::thread waiter_;
  int status_ = 0;
  absl::Notification exited_;
};

// A long streamed answer: far more than a pipe holds.
testing::ScriptedResponse LongAnswer() {
  std::vector<std::string> events = {chat::RoleChunk()};
  for (int i = 0; i < 40; ++i)
    events.push_back(chat::TextChunk(std::string(16 * 1024, 'a' + i % 26)));
  events.push_back(chat::FinishChunk("stop"));
  events.push_back(chat::UsageChunk(10, 10, 0));
  events.push_back(chat::Done());
  return chat::Stream(std::move(events));
}

// The client stops reading stdout while a long answer streams and then
// sends SIGTERM: raw-acp lets go of the session and exits 0, instead of
// waiting for good in a write nobody takes.
TEST_F(AcpTest, StopSignalWithAnUnreadStdoutStillExits) {
  std::map<std::string, std::string> env = daemon_->env();
  UnreadBridge bridge(env);
  ASSERT_TRUE(bridge.started());
  bridge.Send({{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "initialize"},
               {"params", {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}}}});
  ASSERT_TRUE(bridge.ResponseTo(1).contains("result"));
  bridge.Send({{"jsonrpc", "2.0"},
               {"id", 2},
               {"method", "session/new"},
               {"params", {{"cwd", daemon_->workdir()}, {"mcpServers", Json::array()}}}});
  Json created = bridge.ResponseTo(2);
  ASSERT_TRUE(created["result"]["sessionId"].is_string()) << created.dump();
  const std::string id = created["result"]["sessionId"];

  fake_.Enqueue(LongAnswer());
  EventStream events(stub(), id);
  // From here on stdout is never read again.
  bridge.Send({{"jsonrpc", "2.0"},
               {"id", 3},
               {"method", "session/prompt"},
               {"params", {{"sessionId", id}, {"prompt", {{{"type", "text"}, {"text", "go"}}}}}}});
  ASSERT_TRUE(events.WaitFor([](const raw::v1::Event& e) { return e.has_turn_ended(); }));
  bridge.Signal(SIGTERM);
  EXPECT_TRUE(bridge.WaitForExit(absl::Seconds(10))) << "raw-acp still runs 10 s after SIGTERM";
  if (bridge.WaitForExit(absl::ZeroDuration())) {
    EXPECT_TRUE(WIFEXITED(bridge.status()) && WEXITSTATUS(bridge.status()) == 0)
        << "status " << bridge.status();
  }
}

}  // namespace
}  // namespace raw::e2e
