// raw-acp on two pipes, for tests that write its stdin line by line (no
// driver) and read its stdout only when they choose to.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "tests/e2e/acp/acp_fixture.h"

namespace raw::e2e {

class PipedBridge {
 public:
  explicit PipedBridge(const std::map<std::string, std::string>& env) {
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
  ~PipedBridge() {
    if (pid_ > 0 && !exited_.HasBeenNotified()) kill(pid_, SIGKILL);
    if (waiter_.joinable()) waiter_.join();
    for (int fd : {in_, out_}) {
      if (fd >= 0) close(fd);
    }
  }
  PipedBridge(const PipedBridge&) = delete;
  PipedBridge& operator=(const PipedBridge&) = delete;

  bool started() const { return pid_ > 0 && in_ >= 0; }
  // Writes `message` as one line (the whole of it, however long).
  void Send(const Json& message) {
    std::string line = DumpJson(message) + "\n";
    size_t written = 0;
    while (written < line.size()) {
      ssize_t n = write(in_, line.data() + written, line.size() - written);
      ASSERT_GT(n, 0) << "raw-acp's stdin closed";
      written += static_cast<size_t>(n);
    }
  }
  // Reads stdout until the answer to request `id` (null when stdout ends
  // first).
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
  // initialize, then session/new in the daemon's work directory (requests
  // 1 and 2); the new session's id, empty when either failed.
  std::string OpenSession(const std::string& cwd) {
    Send({{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params", {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}}}});
    if (!ResponseTo(1).contains("result")) return "";
    Send({{"jsonrpc", "2.0"},
          {"id", 2},
          {"method", "session/new"},
          {"params", {{"cwd", cwd}, {"mcpServers", Json::array()}}}});
    Json created = ResponseTo(2);
    const Json& id = created["result"]["sessionId"];
    return id.is_string() ? id.get<std::string>() : "";
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

}  // namespace raw::e2e
