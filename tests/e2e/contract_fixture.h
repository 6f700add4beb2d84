// Shared fixture for the tool-contract end-to-end tests (rules, approval,
// hooks, skills, validation): a fake provider, a scratch directory for hook
// scripts and skill folders, and a rawd whose agent "coder" is configured by
// each test.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {

// True for the event that asks for approval of a batch of calls.
inline bool IsApprovalRequest(const raw::v1::Event& e) { return e.has_approval_requested(); }

class ContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    char tmpl[] = "/tmp/raw-contract-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    scratch_ = tmpl;
  }
  void TearDown() override {
    daemon_.reset();
    std::error_code ec;
    std::filesystem::remove_all(scratch_, ec);
  }

  // `agent_extra`, `top_extra` and `model_extra` are JSON members (without
  // a leading comma) added to agents.coder, the top level and models.fake.
  void StartDaemon(const std::string& agent_extra, const std::string& top_extra = "",
                   const std::string& tools_use = R"(["builtin/*"])",
                   const std::string& model_extra = "") {
    config_ = Config(agent_extra, top_extra, tools_use, model_extra);
    daemon_ = std::make_unique<TestDaemon>(config_);
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }

  static std::string Config(const std::string& agent_extra, const std::string& top_extra,
                            const std::string& tools_use, const std::string& model_extra,
                            const std::string& base_url) {
    std::string config = absl::StrCat(R"({
      "default_agent": "coder",
      "models": { "fake": { "provider": "openai", "method": "openai-chat-completions",
                            "model_id": "gpt-test", "base_url": ")",
                                      base_url, R"(", "api_key_env": "RAW_TEST_KEY")",
                                      model_extra.empty() ? "" : ", ", model_extra, R"( } },
      "agents": { "coder": { "model": "fake", "system_prompt": "You are a test agent.",
                             "max_steps": 6, "tools": { "use": )",
                                      tools_use, R"( })",
                                      agent_extra.empty() ? "" : ", ", agent_extra, R"( } })",
                                      top_extra.empty() ? "" : ", ", top_extra, "}");
    return config;
  }
  std::string Config(const std::string& agent_extra, const std::string& top_extra,
                     const std::string& tools_use, const std::string& model_extra) const {
    return Config(agent_extra, top_extra, tools_use, model_extra, fake_.base_url());
  }

  // Writes an executable /bin/sh script into the scratch dir; returns its path.
  std::string Script(const std::string& name, const std::string& body) {
    std::string path = scratch_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }

  void WriteFile(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  raw::v1::Raw::Stub& stub() { return daemon_->stub(); }

  grpc::Status Respond(const std::string& session, const std::string& request_id,
                       raw::v1::ApprovalDecision all, const std::string& message = "",
                       const std::vector<raw::v1::ApprovalAnswer>& answers = {}) {
    raw::v1::RespondToApprovalRequest req;
    req.set_session_id(session);
    req.set_request_id(request_id);
    req.set_all(all);
    req.set_all_message(message);
    for (const auto& a : answers) *req.add_answers() = a;
    req.set_lease_id(LeaseFor(stub(), session));
    raw::v1::RespondToApprovalResponse resp;
    grpc::ClientContext ctx;
    return stub().RespondToApproval(&ctx, req, &resp);
  }

  static std::vector<raw::v1::ToolResult> Results(const std::vector<raw::v1::Event>& events) {
    std::vector<raw::v1::ToolResult> out;
    for (const auto& e : events) {
      if (e.has_tool_result()) out.push_back(e.tool_result());
    }
    return out;
  }

  // Runs one turn in a new session in which the model calls `calls` as one
  // batch, then answers "done"; returns the results in call order.
  std::vector<raw::v1::ToolResult> RunBatch(const std::vector<testing::chat::ToolCall>& calls) {
    std::string session = daemon_->CreateSession();
    fake_.Enqueue(testing::chat::ToolCallsAnswer(calls));
    fake_.Enqueue(testing::chat::TextAnswer("done"));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "use the tools");
    EXPECT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    return Results(stream.TurnEvents(turn));
  }

  static bool Has(const std::vector<raw::v1::Event>& events, raw::v1::Event::PayloadCase kind) {
    for (const auto& e : events) {
      if (e.payload_case() == kind) return true;
    }
    return false;
  }

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
  std::string scratch_;
  std::string config_;  // the config text of the last StartDaemon
};

}  // namespace raw::e2e
