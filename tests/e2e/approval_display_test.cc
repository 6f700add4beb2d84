// What approvals show and what "allow for this session" adds, end to end
// through a real rawd: the session rule options travel in the request and
// the chosen one is added; `raw run` on a real pseudo-terminal shows every
// line of the command and writes no escape sequence it was sent.
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/support/terminal_run.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> Rules(const raw::v1::SessionRuleOption& option) {
  return {option.rules().begin(), option.rules().end()};
}

TEST_F(ContractTest, AllowForSessionOffersTheProgramPatternAndAddsTheChosenRules) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo one"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "echo");
  auto request = stream.WaitFor(IsApprovalRequest);
  ASSERT_TRUE(request.has_value());
  const raw::v1::ApprovalCall& call = request->approval_requested().calls(0);
  ASSERT_EQ(call.session_rules_size(), 2);
  EXPECT_THAT(Rules(call.session_rules(0)),
              ElementsAre("allow builtin/bash command \"echo one\""));
  EXPECT_THAT(Rules(call.session_rules(1)), ElementsAre("allow builtin/bash command \"echo *\""));
  const std::string id = request->approval_requested().request_id();

  // An option the call does not offer is refused clearly.
  raw::v1::RespondToApprovalRequest bad;
  bad.set_session_id(session);
  bad.set_request_id(id);
  bad.set_lease_id(LeaseFor(stub(), session));
  raw::v1::ApprovalAnswer* answer = bad.add_answers();
  answer->set_call_id("c1");
  answer->set_decision(raw::v1::APPROVAL_DECISION_ALLOW_SESSION);
  answer->set_session_rule(2);
  raw::v1::RespondToApprovalResponse response;
  grpc::ClientContext bad_ctx;
  grpc::Status refused = stub().RespondToApproval(&bad_ctx, bad, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("session_rule 2 is not one of them"));

  raw::v1::RespondToApprovalRequest good = bad;
  good.clear_answers();
  good.set_all(raw::v1::APPROVAL_DECISION_ALLOW_SESSION);
  good.set_all_session_rule(1);
  grpc::ClientContext good_ctx;
  ASSERT_TRUE(stub().RespondToApproval(&good_ctx, good, &response).ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  // "echo *" now allows another echo, but not its redirection nor another program.
  fake_.Enqueue(chat::ToolCallsAnswer({{"c2", "bash", R"({"command":"echo two"})"}}));
  fake_.Enqueue(chat::TextAnswer("again"));
  std::string turn2 = StartTurn(stub(), session, "echo again");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn2).has_value());
  auto events2 = stream.TurnEvents(turn2);
  EXPECT_FALSE(Has(events2, raw::v1::Event::kApprovalRequested));
  ASSERT_EQ(Results(events2).size(), 1u);
  EXPECT_THAT(Results(events2)[0].content(), HasSubstr("two"));

  fake_.Enqueue(chat::ToolCallsAnswer({{"c3", "bash", R"({"command":"echo three > three.txt"})"}}));
  fake_.Enqueue(chat::TextAnswer("third"));
  std::string turn3 = StartTurn(stub(), session, "echo into a file");
  auto third = stream.WaitFor([](const raw::v1::Event& e) {
    return e.has_approval_requested() && e.approval_requested().calls(0).call_id() == "c3";
  });
  ASSERT_TRUE(third.has_value());
  ASSERT_TRUE(
      Respond(session, third->approval_requested().request_id(), raw::v1::APPROVAL_DECISION_DENY)
          .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn3).has_value());
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/three.txt"));
}

// raw run on a real pseudo-terminal: the whole command is shown,
// every line and a long line uncut, with the session rules it would add;
// the escape sequences in the command (so in the reason), in the tool's
// output and in the model's text reach the terminal as harmless text.
TEST_F(ContractTest, RawRunShowsTheWholeCommandAndWritesNoEscapeSequence) {
  StartDaemon("");
  const std::string long_word(3000, 'y');
  std::string command = absl::StrCat("echo ", long_word,
                                     "\\nprintf '\\u001b[1A\\u001b[2Kboom\\\\n'\\nexit 3");
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", "{\"command\":\"" + command + "\"}"}}));
  fake_.Enqueue(chat::TextAnswer("done \x1b[1A\x1b[2Kthere"));
  CommandResult result =
      RunOnTerminal({BinaryPath("raw"), "run", "--cwd", daemon_->workdir(), "go"}, daemon_->env(),
                    {{"[m] deny with a message: ", "y\n"}});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  const std::string& terminal = result.out;
  EXPECT_THAT(terminal, HasSubstr("echo " + long_word));
  EXPECT_THAT(terminal, HasSubstr("exit 3"));
  EXPECT_THAT(terminal, HasSubstr("[a] allow for this session adds:"));
  EXPECT_THAT(terminal, HasSubstr("allow builtin/bash command \"exit 3\""));
  EXPECT_THAT(terminal, HasSubstr("Allow? [y] once"));
  EXPECT_THAT(terminal, HasSubstr("\xEF\xBF\xBD[1A\xEF\xBF\xBD[2Kboom"));   // the tool's output
  EXPECT_THAT(terminal, HasSubstr("done \xEF\xBF\xBD[1A\xEF\xBF\xBD[2Kthere"));  // the model's text
  EXPECT_THAT(terminal, Not(HasSubstr("\x1b[1A")));
  EXPECT_THAT(terminal, Not(HasSubstr("\x1b[2K")));
}

}  // namespace
}  // namespace raw::e2e
