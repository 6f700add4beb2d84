// Shared fixture for the end-to-end tests of the terminal client: a real
// rawd (TestDaemon) with its agents pointed at a FakeProviderServer, and the
// real `raw` binary running in a private tmux server. The config has two
// agents: "coder" (the default, every builtin tool) and "reviewer".
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"
#include "tests/tui/tmux_harness.h"

namespace raw::tui::testing {

inline constexpr char kTuiConfig[] = R"({
  "default_agent": "coder",
  "models": {
    "fake": {
      "provider": "openai",
      "method": "openai-chat-completions",
      "model_id": "gpt-test",
      "base_url": "${BASE_URL}",
      "api_key_env": "RAW_TEST_KEY",
      "images": true
    }
  },
  "agents": {
    "coder": {
      "model": "fake",
      "system_prompt": "You are a test agent.",
      "max_steps": 6,
      "tools": { "use": ["builtin/*"] },
      "compact": { "keep_recent_turns": 1 },
      "approval_mode": "${APPROVAL}"
    },
    "reviewer": {
      "model": "fake",
      "system_prompt": "You are the reviewer.",
      "max_steps": 2,
      "tools": { "use": ["builtin/read_file"] }
    }
  }
})";

class TuiE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TmuxHarness::Available()) GTEST_SKIP() << "tmux is not installed";
  }

  void StartDaemon(const std::string& approval = "allow_all") {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    daemon_ = std::make_unique<e2e::TestDaemon>(absl::StrReplaceAll(
        kTuiConfig, {{"${BASE_URL}", fake_.base_url()}, {"${APPROVAL}", approval}}));
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }

  // The environment of `raw`: the daemon's, a 256-colour terminal, UTF-8,
  // and `extra` on top.
  std::map<std::string, std::string> RawEnv(
      const std::map<std::string, std::string>& extra = {}) const {
    auto env = daemon_->env();
    env["TERM"] = "tmux-256color";
    env["LANG"] = "C.UTF-8";
    for (const auto& [k, v] : extra) env[k] = v;
    return env;
  }

  // Starts `raw args...` in tmux session `name` and waits for its prompt.
  void StartRaw(const std::string& name, std::vector<std::string> args, int cols = 100,
                int rows = 30, const std::string& ready_text = "· idle",
                const std::map<std::string, std::string>& extra_env = {}) {
    args.insert(args.begin(), e2e::BinaryPath("raw"));
    absl::Status s = tmux_.Start(name, args, RawEnv(extra_env), cols, rows);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_TRUE(tmux_.WaitForText(name, ready_text)) << tmux_.Capture(name);
  }

  void Send(const std::string& name, const std::string& text) {
    tmux_.SendText(name, text);
    tmux_.SendKeys(name, {"Enter"});
  }

  // Runs one turn over gRPC (under the test's write lease) and waits for
  // its end; then lets go of the lease, so that `raw` can write.
  void RunTurn(const std::string& session, const std::string& text) {
    e2e::EventStream stream(daemon_->stub(), session, LastSeq(session));
    std::string turn = e2e::StartTurn(daemon_->stub(), session, text);
    ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    e2e::ReleaseLease(daemon_->stub(), session);
  }

  // Stops the daemon that `raw` started after the test's own was killed
  // (autostart), and waits until it is gone.
  void StopAutostartedDaemon() {
    auto channel = raw::e2e::MakeChannel(daemon_->socket_path());
    auto stub = raw::v1::Raw::NewStub(channel);
    raw::v1::GetDaemonInfoResponse info;
    {
      grpc::ClientContext ctx;
      ASSERT_TRUE(stub->GetDaemonInfo(&ctx, raw::v1::GetDaemonInfoRequest(), &info).ok());
    }
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(info.pid()), 0));
    ASSERT_GE(pidfd, 0);
    grpc::ClientContext ctx;
    raw::v1::ShutdownResponse response;
    EXPECT_TRUE(stub->Shutdown(&ctx, raw::v1::ShutdownRequest(), &response).ok());
    pollfd exited = {pidfd, POLLIN, 0};
    if (poll(&exited, 1, 30000) != 1) {
      ADD_FAILURE() << "the restarted daemon did not exit";
      kill(static_cast<pid_t>(info.pid()), SIGKILL);
    }
    close(pidfd);
  }

  uint64_t LastSeq(const std::string& session) {
    grpc::ClientContext ctx;
    raw::v1::GetSessionRequest request;
    request.set_session_id(session);
    raw::v1::GetSessionResponse response;
    EXPECT_TRUE(daemon_->stub().GetSession(&ctx, request, &response).ok());
    return response.session().last_seq();
  }

  raw::testing::FakeProviderServer fake_;
  std::unique_ptr<e2e::TestDaemon> daemon_;
  TmuxHarness tmux_;
};

inline size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace raw::tui::testing
