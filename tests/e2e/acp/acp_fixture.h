// Fixture for the raw-acp end-to-end tests: a real rawd with the fake
// provider on 127.0.0.1 (two model entries, an agent that runs everything
// and one that asks before anything that is not read-only), and the Node
// drivers in tests/acp/ (the official ACP SDK from npm) that run raw-acp
// and print what they saw as one JSON line.
#pragma once

#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {

inline constexpr char kAcpConfig[] = R"({
  "default_agent": "coder",
  "models": {
    "fake": {"provider": "openai", "method": "openai-chat-completions", "model_id": "gpt-test",
             "base_url": "${BASE_URL}", "api_key_env": "RAW_TEST_KEY",
             "context_window_tokens": 100000, "images": true},
    "other": {"provider": "openai", "method": "openai-chat-completions", "model_id": "gpt-other",
              "base_url": "${BASE_URL}", "api_key_env": "RAW_TEST_KEY"}
  },
  "agents": {
    "coder": {"model": "fake", "system_prompt": "You are a test agent.", "max_steps": 6,
              "tools": {"use": ["builtin/*"]}, "approval_mode": "allow_all"},
    "asker": {"model": "fake", "system_prompt": "You ask first.", "max_steps": 6,
              "tools": {"use": ["builtin/*"]}, "approval_mode": "default"},
    "editor": {"model": "fake", "system_prompt": "You use the editor's tools.", "max_steps": 6,
               "tools": {"use": ["builtin/*", "mcp/*"]}, "approval_mode": "allow_all"}
  },
  "tools": {"bash": {"timeout_seconds": 30}}
})";

// Starts raw-acp with `env` as its whole environment, its stdin, stdout
// and (unless -1) stderr the descriptors given; returns its pid (-1 when
// fork failed). The child's ends stay open in the caller, which closes them.
inline pid_t SpawnRawAcp(const std::map<std::string, std::string>& env, int stdin_fd, int stdout_fd,
                         int stderr_fd) {
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(absl::StrCat(k, "=", v));
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string bin = BinaryPath("raw-acp");
  char* argv[] = {bin.data(), nullptr};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(stdin_fd, STDIN_FILENO);
    dup2(stdout_fd, STDOUT_FILENO);
    if (stderr_fd >= 0) dup2(stderr_fd, STDERR_FILENO);
    execve(bin.c_str(), argv, envp.data());
    _exit(127);
  }
  return pid;
}

struct DriverResult {
  int exit_code = -1;
  Json json;  // the driver's last stdout line
  std::string err;
};

class AcpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    daemon_ = std::make_unique<TestDaemon>(
        absl::StrReplaceAll(kAcpConfig, {{"${BASE_URL}", fake_.base_url()}}));
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }

  raw::v1::Raw::Stub& stub() { return daemon_->stub(); }

  static std::string AcpDir() { return absl::StrCat(RAW_SOURCE_DIR, "/tests/acp"); }

  // `node` on the test environment's PATH (RunCommand does not search it).
  static std::string Node(const std::string& path) {
    for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
      std::string candidate = absl::StrCat(dir, "/node");
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "node";
  }

  // Runs `node tests/acp/<driver> <scenario>` with the daemon's environment,
  // RAW_ACP_BIN and WORKDIR, plus `env`.
  DriverResult RunDriver(const std::string& driver, const std::string& scenario,
                         const std::map<std::string, std::string>& env = {},
                         const std::vector<std::string>& acp_args = {}) {
    std::map<std::string, std::string> full = daemon_->env();
    full["RAW_ACP_BIN"] = BinaryPath("raw-acp");
    full["WORKDIR"] = daemon_->workdir();
    if (!acp_args.empty()) full["RAW_ACP_ARGS"] = DumpJson(Json(acp_args));
    for (const auto& [k, v] : env) full[k] = v;
    CommandResult r =
        RunCommand({Node(full["PATH"]), absl::StrCat(AcpDir(), "/", driver), scenario}, full);
    DriverResult out;
    out.exit_code = r.exit_code;
    out.err = r.err;
    std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipWhitespace());
    if (!lines.empty()) {
      absl::StatusOr<Json> parsed = ParseJson(lines.back());
      if (parsed.ok()) out.json = *parsed;
    }
    return out;
  }

  // The result JSON of a driver run that must succeed.
  Json Drive(const std::string& driver, const std::string& scenario,
             const std::map<std::string, std::string>& env = {},
             const std::vector<std::string>& acp_args = {}) {
    DriverResult r = RunDriver(driver, scenario, env, acp_args);
    EXPECT_EQ(r.exit_code, 0) << "driver stderr:\n" << r.err;
    EXPECT_TRUE(r.json.is_object()) << "driver stderr:\n" << r.err;
    return r.json.is_object() ? r.json : Json::object();
  }

  // The session's stored history, oldest first.
  std::vector<raw::v1::Event> History(const std::string& session_id) {
    raw::v1::GetHistoryRequest request;
    request.set_session_id(session_id);
    request.set_limit(1000);
    raw::v1::GetHistoryResponse response;
    grpc::ClientContext ctx;
    grpc::Status s = stub().GetHistory(&ctx, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return {response.events().begin(), response.events().end()};
  }

  raw::v1::Session GetSession(const std::string& session_id) {
    raw::v1::GetSessionRequest request;
    request.set_session_id(session_id);
    raw::v1::GetSessionResponse response;
    grpc::ClientContext ctx;
    grpc::Status s = stub().GetSession(&ctx, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.session();
  }

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
};

}  // namespace raw::e2e
