// Command rules end to end: a real rawd matches bash calls by the commands
// bash runs (through assignments, quoting, prefixes, find actions and
// bash -c), and never lets an allow pattern pass a command hidden where bash
// evaluates it later.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

// Bash evaluates the array subscript of the value as arithmetic, running the
// command substitution quoted inside it.
constexpr char kHiddenTouch[] = R"json({"command":"echo $(( ${y:-'a[$(touch pwned)]'} ))"})json";

TEST_F(ContractTest, CommandRulesDenyRmHoweverItIsWritten) {
  StartDaemon(R"("rules": [{"deny": "builtin/bash", "command": "rm *"},
                           {"allow": "builtin/bash", "command": "*"}])");
  const char* files[] = {"f1", "f2", "f3", "f4", "f5"};
  for (const char* name : files) WriteFile(daemon_->workdir() + "/" + name, "x");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"FOO=1 rm f1"})"},
                                       {"c2", "bash", R"({"command":"\\rm f2"})"},
                                       {"c3", "bash", R"({"command":"bash -c \"rm f3\""})"},
                                       {"c4", "bash", R"({"command":"echo f4 | xargs rm"})"},
                                       {"c5", "bash",
                                        R"({"command":"find . -name f5 -exec rm {} \\;"})"},
                                       {"c6", "bash", R"({"command":"echo kept"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "remove the files");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto events = stream.TurnEvents(turn);
  EXPECT_FALSE(Has(events, raw::v1::Event::kApprovalRequested));  // denied without asking
  auto results = Results(events);
  ASSERT_EQ(results.size(), 6u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(results[i].status(), raw::v1::TOOL_RESULT_STATUS_DENIED) << i;
    EXPECT_THAT(results[i].content(), HasSubstr("deny builtin/bash command \"rm *\"")) << i;
  }
  EXPECT_THAT(results[0].content(), HasSubstr("\"rm f1\""));
  EXPECT_EQ(results[5].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(results[5].content(), HasSubstr("kept"));
  for (const char* name : files) {
    EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/" + name)) << name;
  }
}

TEST_F(ContractTest, CommandRulesNeverAllowACommandHiddenInQuotes) {
  StartDaemon(R"("rules": [{"allow": "builtin/bash", "command": "echo *"}])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", kHiddenTouch}, {"c2", "bash", R"({"command":"echo plain"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "echo things");

  auto request = stream.WaitFor(IsApprovalRequest);
  ASSERT_TRUE(request.has_value());
  const auto& calls = request->approval_requested().calls();
  ASSERT_EQ(calls.size(), 2);
  EXPECT_EQ(calls[0].state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_THAT(calls[0].reason(),
              HasSubstr("the command line hides a command in quotes that bash may evaluate"));
  EXPECT_EQ(calls[1].state(), raw::v1::APPROVAL_STATE_ALLOWED);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/pwned"));
  ASSERT_TRUE(
      Respond(session, request->approval_requested().request_id(), raw::v1::APPROVAL_DECISION_DENY)
          .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/pwned"));
}

// The same call, allowed by a rule on the whole tool, does run the hidden
// command: what the test above guards against is real.
TEST_F(ContractTest, CommandRulesTheHiddenCommandRunsWhenTheWholeToolIsAllowed) {
  StartDaemon(R"("rules": [{"allow": "builtin/bash"}])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", kHiddenTouch}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "echo things");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  EXPECT_FALSE(Has(stream.TurnEvents(turn), raw::v1::Event::kApprovalRequested));
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/pwned"));
}

}  // namespace
}  // namespace raw::e2e
