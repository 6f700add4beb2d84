// Shared fixture for end-to-end tests: a FakeProviderServer on 127.0.0.1 and
// a TestDaemon whose config points the agent "coder" at it.
#pragma once

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/support/test_daemon.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"

namespace raw::e2e {

// ${BASE_URL} and ${MAX_STEPS} are substituted.
inline constexpr char kConfigTemplate[] = R"({
  // A test config: one fake model, one agent with the built-in tools.
  "default_agent": "coder",
  "models": {
    "fake": {
      "provider": "openai",
      "method": "openai-chat-completions",
      "model_id": "gpt-test",
      "base_url": "${BASE_URL}",
      "api_key_env": "RAW_TEST_KEY"
    }
  },
  "agents": {
    "coder": {
      "model": "fake",
      "system_prompt": "You are a test agent.",
      "max_steps": ${MAX_STEPS},
      "tools": { "use": ["builtin/*"] },
      // The loop tests are not about approval (tool_contract_test.cc is).
      "approval_mode": "allow_all"
    }
  },
  "tools": { "bash": { "timeout_seconds": 30 } }
})";

inline std::string TestConfig(const std::string& base_url, int max_steps = 6) {
  return absl::StrReplaceAll(kConfigTemplate, {{"${BASE_URL}", base_url},
                                               {"${MAX_STEPS}", absl::StrCat(max_steps)}});
}

class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override { StartDaemon(6); }

  void StartDaemon(int max_steps) {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    daemon_ = std::make_unique<TestDaemon>(TestConfig(fake_.base_url(), max_steps));
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }

  raw::v1::Raw::Stub& stub() { return daemon_->stub(); }

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
};

inline std::vector<std::string> Kinds(const std::vector<raw::v1::Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) {
    const auto* field = e.GetDescriptor()->FindOneofByName("payload");
    const auto* set = e.GetReflection()->GetOneofFieldDescriptor(e, field);
    out.push_back(set ? set->name() : "none");
  }
  return out;
}

}  // namespace raw::e2e
