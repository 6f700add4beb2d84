// A client's approval mode for a session (ConfigureSession.approval_mode)
// through a real rawd: it turns the asks of calls no rule matched into
// allows for the turns its lease starts, never opens what a rule denies,
// cannot leave an agent configured deny_all, and ends with the lease.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

class ApprovalModeTest : public ContractTest {
 protected:
  // ConfigureSession with only approval_mode, under this test's lease.
  grpc::Status ChooseMode(const std::string& session, const std::string& mode,
                          raw::v1::ConfigureSessionResponse* response) {
    raw::v1::ConfigureSessionRequest request;
    request.set_session_id(session);
    request.set_lease_id(LeaseFor(stub(), session));
    request.set_approval_mode(mode);
    grpc::ClientContext ctx;
    return stub().ConfigureSession(&ctx, request, response);
  }
};

TEST_F(ApprovalModeTest, AllowAllRunsUnmatchedCallsWithoutAskingButADenyRuleStillDenies) {
  StartDaemon(R"("rules": [{"deny": "builtin/bash", "command": "rm *"}],
                 "approval_mode": "default")");
  { std::ofstream(daemon_->workdir() + "/keep.txt") << "keep\n"; }
  std::string session = daemon_->CreateSession();
  raw::v1::ConfigureSessionResponse chosen;
  grpc::Status s = ChooseMode(session, "allow_all", &chosen);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(chosen.approval_mode(), "allow_all");

  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"},
                                       {"c2", "bash", R"({"command":"rm -f keep.txt"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "use the tools");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto events = stream.TurnEvents(turn);
  EXPECT_FALSE(Has(events, raw::v1::Event::kApprovalRequested));
  auto results = Results(events);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/ran"));
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/keep.txt"));
}

TEST_F(ApprovalModeTest, TheModeEndsWithTheLeaseThatChoseIt) {
  StartDaemon(R"("approval_mode": "default")");
  std::string session = daemon_->CreateSession();
  raw::v1::ConfigureSessionResponse chosen;
  ASSERT_TRUE(ChooseMode(session, "allow_all", &chosen).ok());
  ReleaseLease(stub(), session);

  // A new lease: the agent's own mode again, so the call asks.
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "use the tools");
  auto request = stream.WaitFor([](const raw::v1::Event& e) { return e.has_approval_requested(); });
  ASSERT_TRUE(request.has_value());
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_DENY, "no")
                  .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/ran"));
}

TEST_F(ApprovalModeTest, ADenyAllAgentCannotBeLoosenedAndUnknownModesAreRefused) {
  StartDaemon(R"("approval_mode": "deny_all")");
  raw::v1::ListAgentsResponse agents;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub().ListAgents(&ctx, raw::v1::ListAgentsRequest(), &agents).ok());
  }
  auto coder = std::find_if(agents.agents().begin(), agents.agents().end(),
                           [](const raw::v1::AgentInfo& a) { return a.name() == "coder"; });
  ASSERT_NE(coder, agents.agents().end());
  EXPECT_EQ(coder->approval_mode(), "deny_all");

  std::string session = daemon_->CreateSession();
  raw::v1::ConfigureSessionResponse response;
  grpc::Status loosen = ChooseMode(session, "allow_all", &response);
  EXPECT_EQ(loosen.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(loosen.error_message(), HasSubstr("deny_all"));
  grpc::Status unknown = ChooseMode(session, "yolo", &response);
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(unknown.error_message(),
              HasSubstr("unknown approval mode \"yolo\" (modes: default, ask_all, allow_all, "
                        "deny_all)"));
  grpc::Status same = ChooseMode(session, "deny_all", &response);
  ASSERT_TRUE(same.ok()) << same.error_message();
  EXPECT_EQ(response.approval_mode(), "deny_all");

  // The call no rule matched is still denied, without asking.
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "use the tools");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
}

// A configure that changes the agent and chooses a mode is one change: a
// mode the new agent refuses, or one unknown, leaves the agent as it was
// (it used to be stored before the mode was checked).
TEST_F(ApprovalModeTest, AnAgentChangeWithARefusedModeChangesNothing) {
  // agents.coder, then a second agent configured deny_all.
  StartDaemon(R"("approval_mode": "default" },
                 "locked": { "model": "fake", "system_prompt": "Locked.",
                             "approval_mode": "deny_all")");
  std::string session = daemon_->CreateSession();
  const std::string lease = LeaseFor(stub(), session);
  for (const char* mode : {"allow_all", "yolo"}) {
    raw::v1::ConfigureSessionRequest request;
    request.set_session_id(session);
    request.set_lease_id(lease);
    request.set_agent("locked");
    request.set_approval_mode(mode);
    raw::v1::ConfigureSessionResponse response;
    grpc::ClientContext ctx;
    grpc::Status s = stub().ConfigureSession(&ctx, request, &response);
    EXPECT_FALSE(s.ok()) << mode;
    raw::v1::GetSessionRequest get;
    get.set_session_id(session);
    raw::v1::GetSessionResponse got;
    grpc::ClientContext get_ctx;
    ASSERT_TRUE(stub().GetSession(&get_ctx, get, &got).ok());
    EXPECT_EQ(got.session().agent(), "coder") << mode;
  }
  // The same change with the agent's own mode goes through.
  raw::v1::ConfigureSessionRequest request;
  request.set_session_id(session);
  request.set_lease_id(lease);
  request.set_agent("locked");
  request.set_approval_mode("deny_all");
  raw::v1::ConfigureSessionResponse response;
  grpc::ClientContext ctx;
  grpc::Status s = stub().ConfigureSession(&ctx, request, &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(response.session().agent(), "locked");
  EXPECT_EQ(response.approval_mode(), "deny_all");
}

}  // namespace
}  // namespace raw::e2e
