// Fixture for the dashboard's browser tests: a real rawd with the fake
// provider on 127.0.0.1, a real raw-dashboard in front of it, and the Node
// driver tests/dashboard/browser_driver.mjs, which opens the printed URL in
// Debian's chromium (playwright-core, headless) and runs one scenario.
//
// The driver prints one JSON object per line: {"step": NAME} when it needs
// the test to act (release a parked answer, ...), after which it waits for
// a line on its stdin; {"done": true, ...} with what it saw at the end.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "tests/support/line_process.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {

inline constexpr char kBrowserTestConfig[] = R"({
  "default_agent": "coder",
  "models": {
    "fake": {"provider": "openai", "method": "openai-chat-completions", "model_id": "gpt-test",
             "base_url": "${BASE_URL}", "api_key_env": "RAW_TEST_KEY",
             "context_window_tokens": 100000}
  },
  "agents": {
    "coder": {"model": "fake", "system_prompt": "You are a test agent.", "max_steps": 6,
              "tools": {"use": ["builtin/*"]}, "approval_mode": "allow_all",
              "compact": {"keep_recent_turns": 1}},
    "asker": {"model": "fake", "system_prompt": "You ask first.", "max_steps": 6,
              "tools": {"use": ["builtin/*"]}, "approval_mode": "default"}
  },
  "tools": {"bash": {"timeout_seconds": 30}}
})";

class DashboardBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    daemon_ = std::make_unique<TestDaemon>(
        absl::StrReplaceAll(kBrowserTestConfig, {{"${BASE_URL}", fake_.base_url()}}));
  }

  void TearDown() override {
    gateway_.reset();
    fake_.Stop();
  }

  // Starts rawd and raw-dashboard; reads the URL the gateway prints.
  void StartAll() {
    if (access(BinaryPath("raw-dashboard").c_str(), X_OK) != 0) {
      GTEST_SKIP() << "raw-dashboard is not built";
    }
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
    StartGateway();
  }

  // Starts raw-dashboard (a new run: a new port and token; the gateway that
  // ran before, if any, is stopped first) and reads the URL it prints.
  void StartGateway() {
    gateway_.reset();
    gateway_ = std::make_unique<LineProcess>(std::vector<std::string>{BinaryPath("raw-dashboard")},
                                             daemon_->env(), GatewayLog());
    ASSERT_TRUE(gateway_->running());
    std::optional<std::string> line = gateway_->ReadLine();
    ASSERT_TRUE(line.has_value()) << ReadText(GatewayLog());
    constexpr char kPrefix[] = "Raw dashboard: ";
    ASSERT_TRUE(absl::StartsWith(*line, kPrefix)) << *line;
    url_ = line->substr(sizeof(kPrefix) - 1);
  }

  // Runs `scenario`; `on_step` answers each step the driver announces.
  // Returns the driver's final object (empty on failure, which fails the
  // test with the driver's and the gateway's stderr).
  Json Drive(const std::string& scenario, const std::map<std::string, std::string>& extra = {},
             const std::function<void(const std::string&)>& on_step = {}) {
    std::map<std::string, std::string> env = daemon_->env();
    env["DASHBOARD_URL"] = url_;
    env["WORKDIR"] = daemon_->workdir();
    env["SCREENSHOT_DIR"] = absl::StrCat(RAW_SOURCE_DIR, "/docs/images");
    for (const auto& [k, v] : extra) env[k] = v;
    std::string log = absl::StrCat(daemon_->root(), "/driver-", scenario, ".err");
    LineProcess driver({Node(env["PATH"]), absl::StrCat(RAW_SOURCE_DIR, "/tests/dashboard/browser_driver.mjs"), scenario},
                       env, log);
    Json result = Json::object();
    bool done = false;
    while (std::optional<std::string> line = driver.ReadLine()) {
      absl::StatusOr<Json> parsed = ParseJson(*line);
      if (!parsed.ok() || !parsed->is_object()) continue;
      if (parsed->contains("step")) {
        if (on_step) on_step((*parsed)["step"].get<std::string>());
        driver.WriteLine("go");
      } else if (parsed->value("done", false)) {
        result = *parsed;
        done = true;
      }
    }
    int code = driver.Wait();
    EXPECT_EQ(code, 0) << "driver stderr:\n" << ReadText(log) << "\ngateway stderr:\n" << ReadText(GatewayLog());
    EXPECT_TRUE(done) << "driver stderr:\n" << ReadText(log);
    return result;
  }

  static std::string Node(const std::string& path) {
    for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
      std::string candidate = absl::StrCat(dir, "/node");
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "/usr/bin/node";
  }

  static std::string ReadText(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string GatewayLog() const { return absl::StrCat(daemon_->root(), "/gateway.err"); }

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
  std::unique_ptr<LineProcess> gateway_;
  std::string url_;
};

}  // namespace raw::e2e
