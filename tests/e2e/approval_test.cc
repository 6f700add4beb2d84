// Rules and approval end to end: a real rawd decides each call of a batch by
// the agent's rules and approval mode, asks clients over RespondToApproval,
// and records every decision as events and tool results.
#include <signal.h>

#include <algorithm>
#include <filesystem>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/support/terminal_run.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(ContractTest, AllowRuleForOneCommandDoesNotAllowACompoundCommand) {
  StartDaemon(R"("rules": [{"allow": "builtin/bash", "command": "echo *"}])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"echo one"})"},
       {"c2", "bash", R"({"command":"echo two && touch pwned"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "run things");

  auto request = stream.WaitFor(IsApprovalRequest);
  ASSERT_TRUE(request.has_value());
  const auto& calls = request->approval_requested().calls();
  ASSERT_EQ(calls.size(), 2);  // the whole batch is listed
  EXPECT_EQ(calls[0].state(), raw::v1::APPROVAL_STATE_ALLOWED);
  EXPECT_EQ(calls[1].state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_EQ(calls[1].tool(), "builtin/bash");
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_DENY, "do not touch files")
                  .ok());
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(results[0].content(), HasSubstr("one"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[1].content(), HasSubstr("do not touch files"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/pwned"));
  // The model saw the denial as the call's result.
  auto body = fake_.requests().back().BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_THAT(body->dump(), HasSubstr("do not touch files"));
}

TEST_F(ContractTest, DenyRuleDeniesWithoutAskingEvenThroughDotDotAndSymlinks) {
  StartDaemon(R"("rules": [{"deny": "builtin/write_file", "path": "secret/**"},
                           {"allow": "builtin/write_file"}])");
  std::filesystem::create_directories(daemon_->workdir() + "/secret");
  std::filesystem::create_directories(daemon_->workdir() + "/sub");
  std::filesystem::create_directory_symlink(daemon_->workdir() + "/secret",
                                            daemon_->workdir() + "/link");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "write_file", R"({"path":"sub/../secret/a.txt","content":"x"})"},
       {"c2", "write_file", R"({"path":"link/b.txt","content":"x"})"},
       {"c3", "write_file", R"({"path":"sub/ok.txt","content":"x"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "write");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto events = stream.TurnEvents(turn);
  EXPECT_FALSE(Has(events, raw::v1::Event::kApprovalRequested));
  auto results = Results(events);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[0].content(), HasSubstr("secret/**"));
  EXPECT_EQ(results[2].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/secret/a.txt"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/secret/b.txt"));
}

TEST_F(ContractTest, OneAnswerCoversTheBatchAndAllowForSessionAddsARule) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "write_file", R"({"path":"a.txt","content":"1"})"},
       {"c2", "write_file", R"({"path":"b.txt","content":"2"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "write two");
  auto request = stream.WaitFor(IsApprovalRequest);
  ASSERT_TRUE(request.has_value());
  // Read-only tools would be allowed; write_file asks by default.
  EXPECT_EQ(request->approval_requested().calls(0).state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_EQ(request->approval_requested().calls(1).state(), raw::v1::APPROVAL_STATE_PENDING);
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_ALLOW_SESSION)
                  .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);

  // The same call again in a later turn runs without asking.
  fake_.Enqueue(chat::ToolCallsAnswer({{"c3", "write_file", R"({"path":"a.txt","content":"1"})"}}));
  fake_.Enqueue(chat::TextAnswer("again"));
  std::string turn2 = StartTurn(stub(), session, "write again");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn2).has_value());
  auto events2 = stream.TurnEvents(turn2);
  EXPECT_FALSE(Has(events2, raw::v1::Event::kApprovalRequested));
  ASSERT_EQ(Results(events2).size(), 1u);
  EXPECT_EQ(Results(events2)[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
}

TEST_F(ContractTest, PerCallAnswersAndBadAnswersAreRefusedClearly) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "write_file", R"({"path":"a.txt","content":"1"})"},
       {"c2", "write_file", R"({"path":"b.txt","content":"2"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "write two");
  auto request = stream.WaitFor(IsApprovalRequest);
  ASSERT_TRUE(request.has_value());
  const std::string id = request->approval_requested().request_id();

  EXPECT_EQ(Respond(session, "apr_nope", raw::v1::APPROVAL_DECISION_ALLOW_ONCE).error_code(),
            grpc::StatusCode::NOT_FOUND);
  raw::v1::ApprovalAnswer unknown;
  unknown.set_call_id("c9");
  unknown.set_decision(raw::v1::APPROVAL_DECISION_ALLOW_ONCE);
  EXPECT_EQ(Respond(session, id, raw::v1::APPROVAL_DECISION_UNSPECIFIED, "", {unknown})
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  // "No one to ask" is a reason for a denial, never for an allowance.
  raw::v1::ApprovalAnswer unattended_allow;
  unattended_allow.set_call_id("c1");
  unattended_allow.set_decision(raw::v1::APPROVAL_DECISION_ALLOW_ONCE);
  unattended_allow.set_unattended(true);
  grpc::Status refused =
      Respond(session, id, raw::v1::APPROVAL_DECISION_UNSPECIFIED, "", {unattended_allow});
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("answers[0].unattended is only for a denial"));

  raw::v1::ApprovalAnswer allow;
  allow.set_call_id("c1");
  allow.set_decision(raw::v1::APPROVAL_DECISION_ALLOW_ONCE);
  ASSERT_TRUE(Respond(session, id, raw::v1::APPROVAL_DECISION_UNSPECIFIED, "", {allow}).ok());
  raw::v1::ApprovalAnswer deny;
  deny.set_call_id("c2");
  deny.set_decision(raw::v1::APPROVAL_DECISION_DENY);
  ASSERT_TRUE(Respond(session, id, raw::v1::APPROVAL_DECISION_UNSPECIFIED, "", {deny}).ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/a.txt"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/b.txt"));
}

TEST_F(ContractTest, UnansweredRequestIsDeniedAtTheTimeoutAndSaysWhy) {
  StartDaemon(R"("approval_timeout_seconds": 0.3)");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch late"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "touch");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto events = stream.TurnEvents(turn);
  auto resolved = stream.WaitFor([](const raw::v1::Event& e) { return e.has_approval_resolved(); });
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(resolved->approval_resolved().resolution(), raw::v1::APPROVAL_RESOLUTION_TIMED_OUT);
  auto results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[0].content(), HasSubstr("no answer"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/late"));
}

TEST_F(ContractTest, InterruptWhileWaitingForApprovalCancelsEveryUnfinishedCall) {
  StartDaemon(R"("rules": [{"allow": "builtin/bash", "command": "echo *"}])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo first"})"},
                                       {"c2", "write_file", R"({"path":"x","content":"1"})"}}));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  ASSERT_TRUE(stream.WaitFor(IsApprovalRequest).has_value());
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub(), session));
  raw::v1::InterruptTurnResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().InterruptTurn(&ctx, req, &resp).ok());
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_CANCELLED);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_CANCELLED);
  auto resolved = stream.WaitFor([](const raw::v1::Event& e) { return e.has_approval_resolved(); });
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(resolved->approval_resolved().resolution(), raw::v1::APPROVAL_RESOLUTION_CANCELLED);
}

TEST_F(ContractTest, RawRunDeniesWithoutTerminalAndYesApprovesButDenyRulesStillDeny) {
  StartDaemon(R"("rules": [{"deny": "builtin/bash", "command": "rm *"}])");
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "write_file", R"({"path":"n.txt","content":"1"})"}}));
  fake_.Enqueue(chat::TextAnswer("ok"));
  CommandResult denied = daemon_->RunRaw({"run", "--cwd", daemon_->workdir(), "write it"});
  EXPECT_EQ(denied.exit_code, 0) << denied.err;
  EXPECT_THAT(denied.err, HasSubstr("no terminal"));
  EXPECT_THAT(denied.err, HasSubstr("denied, no one to ask"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/n.txt"));
  // The model reads that no one could be asked, not that the user said no.
  {
    auto body = fake_.requests().back().BodyJson();
    ASSERT_TRUE(body.ok());
    EXPECT_THAT(body->dump(), HasSubstr("no one was there to approve it: raw run had no terminal"));
    EXPECT_THAT(body->dump(), Not(HasSubstr("denied by the user")));
    EXPECT_THAT(body->dump(), Not(HasSubstr("Message from the user")));
  }

  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "write_file", R"({"path":"n.txt","content":"1"})"},
                                       {"c2", "bash", R"({"command":"rm -f n.txt"})"}}));
  fake_.Enqueue(chat::TextAnswer("ok"));
  CommandResult yes = daemon_->RunRaw({"run", "--yes", "--cwd", daemon_->workdir(), "write it"});
  EXPECT_EQ(yes.exit_code, 0) << yes.err;
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/n.txt")) << yes.err;
  EXPECT_THAT(yes.err, HasSubstr("denied"));
}

// kill -9 while a batch waits for approval: after the restart the request is
// closed (so no client offers to answer it) and the calls are cancelled.
TEST_F(ContractTest, ApprovalLeftOpenByKill9IsClosedAfterRestart) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "write_file", R"({"path":"k.txt","content":"1"})"}}));
  {
    EventStream stream(stub(), session);
    StartTurn(stub(), session, "write");
    ASSERT_TRUE(stream.WaitFor(IsApprovalRequest).has_value());
  }
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  grpc::ClientContext ctx;
  raw::v1::GetHistoryRequest req;
  req.set_session_id(session);
  req.set_limit(100);
  raw::v1::GetHistoryResponse history;
  ASSERT_TRUE(stub().GetHistory(&ctx, req, &history).ok());
  std::vector<raw::v1::Event> events(history.events().begin(), history.events().end());
  auto resolved = std::find_if(events.begin(), events.end(),
                               [](const raw::v1::Event& e) { return e.has_approval_resolved(); });
  ASSERT_NE(resolved, events.end());
  EXPECT_EQ(resolved->approval_resolved().resolution(), raw::v1::APPROVAL_RESOLUTION_CANCELLED);
  auto results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_CANCELLED);
  EXPECT_TRUE(events.back().has_turn_ended());
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/k.txt"));
}

// On a terminal, raw run puts the batch to the user: here a pseudo-terminal
// on which the test types each answer once its question shows, answering
// "m" (deny with a message) and the message.
TEST_F(ContractTest, RawRunOnATerminalAsksAndSendsTheUsersAnswer) {
  StartDaemon("");
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "write_file", R"({"path":"t.txt","content":"1"})"}}));
  fake_.Enqueue(chat::TextAnswer("understood"));
  // An answer that is none of the keys is asked again, saying so. Each
  // answer waits for the whole question, so its echo never lands inside it.
  const std::string kPrompt =
      "Allow? [y] once  [a] for this session  [n] deny  [m] deny with a message: ";
  CommandResult result = RunOnTerminal(
      {BinaryPath("raw"), "run", "--cwd", daemon_->workdir(), "write it"}, daemon_->env(),
      {{kPrompt, "mno thanks\n"},
       {"Not an answer; type y, a, n or m and press Enter.\r\n" + kPrompt, "m\n"},
       {"Message for the model: ", "please use a temp dir\n"}});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("Waiting for your answer: 1 call of 1 (builtin/write_file)\r\n"
                                    "Allow? [y] once"));
  EXPECT_THAT(result.out, HasSubstr("Not an answer; type y, a, n or m and press Enter."));
  EXPECT_THAT(result.out, HasSubstr("Message for the model"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/t.txt"));
  auto body = fake_.requests().back().BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_THAT(body->dump(), HasSubstr("please use a temp dir"));
}

}  // namespace
}  // namespace raw::e2e
