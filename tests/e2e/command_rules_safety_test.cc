// Command rules never fail open, end to end through a real rawd: variables
// set after env stay part of the command, allow_all asks for what the
// analysis cannot read, redirections are subjects, and the reason names
// every part that asks.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

class CommandSafetyTest : public ContractTest {
 protected:
  // Runs one turn whose model calls `calls` (then answers), denies the
  // approval request it raises and returns that request's calls.
  std::vector<raw::v1::ApprovalCall> AskedAndDenied(
      const std::vector<chat::ToolCall>& calls) {
    std::string session = daemon_->CreateSession();
    fake_.Enqueue(chat::ToolCallsAnswer(calls));
    fake_.Enqueue(chat::TextAnswer("done"));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "go");
    auto request = stream.WaitFor(IsApprovalRequest);
    EXPECT_TRUE(request.has_value());
    if (!request) return {};
    EXPECT_TRUE(Respond(session, request->approval_requested().request_id(),
                        raw::v1::APPROVAL_DECISION_DENY)
                    .ok());
    EXPECT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    const auto& asked = request->approval_requested().calls();
    return {asked.begin(), asked.end()};
  }
};

TEST_F(CommandSafetyTest, VariablesAfterEnvAreNotAllowedByTheInnerCommand) {
  StartDaemon(R"("rules": [{"allow": "builtin/bash", "command": "git status *"},
                           {"allow": "builtin/bash", "command": "git status"},
                           {"allow": "builtin/bash", "command": "env *"}])");
  auto calls = AskedAndDenied(
      {{"c1", "bash",
        R"({"command":"env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='touch pwned' git status"})"},
       {"c2", "bash", R"({"command":"LD_PRELOAD=/tmp/x.so git status"})"}});
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_THAT(calls[0].reason(),
              HasSubstr("sets GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0"));
  EXPECT_EQ(calls[1].state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_THAT(calls[1].reason(), HasSubstr("sets LD_PRELOAD"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/pwned"));
}

TEST_F(CommandSafetyTest, AllowAllAsksForLinesItCannotRead) {
  StartDaemon(R"("approval_mode": "allow_all",
                 "rules": [{"deny": "builtin/bash", "command": "rm *"}])");
  WriteFile(daemon_->workdir() + "/victim", "x");
  auto calls = AskedAndDenied(
      {{"c1", "bash", R"({"command":"x=rm; $x -f victim"})"},
       {"c2", "bash", R"({"command":"bash <<EOF\nrm -f victim\nEOF"})"},
       {"c3", "bash", R"({"command":"f() { rm -f victim; }; f"})"},
       {"c4", "bash", R"({"command":"flock /tmp/raw-e2e.lock rm -f victim"})"},
       {"c5", "bash", R"({"command":"ionice -c3 rm -f victim"})"},
       {"c6", "bash", R"({"command":"script -qc 'rm -f victim' /dev/null"})"},
       {"c7", "bash", R"({"command":"echo made > made.txt"})"}});
  ASSERT_EQ(calls.size(), 7u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(calls[i].state(), raw::v1::APPROVAL_STATE_PENDING) << i << ": " << calls[i].reason();
    EXPECT_THAT(calls[i].reason(), HasSubstr("approval_mode allow_all does not cover")) << i;
  }
  EXPECT_EQ(calls[6].state(), raw::v1::APPROVAL_STATE_ALLOWED) << calls[6].reason();
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/victim"));
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/made.txt"));
}

TEST_F(CommandSafetyTest, RedirectionsAreSubjectsOfTheirOwnRules) {
  StartDaemon(R"("rules": [{"allow": "builtin/bash", "command": "echo *"},
                           {"allow": "builtin/bash", "redirect": "out/*"}])");
  std::filesystem::create_directories(daemon_->workdir() + "/out");
  auto calls = AskedAndDenied({{"c1", "bash", R"({"command":"echo a >> notes.txt"})"},
                               {"c2", "bash", R"({"command":"echo b > out/b.txt"})"},
                               {"c3", "bash", R"({"command":"echo c > /dev/null"})"}});
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_THAT(calls[0].reason(), HasSubstr("\"redirect to " + daemon_->workdir() + "/notes.txt\""));
  EXPECT_EQ(calls[1].state(), raw::v1::APPROVAL_STATE_ALLOWED) << calls[1].reason();
  EXPECT_EQ(calls[2].state(), raw::v1::APPROVAL_STATE_ALLOWED) << calls[2].reason();
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/notes.txt"));
  EXPECT_EQ(ReadFile(daemon_->workdir() + "/out/b.txt"), "b\n");
}

TEST_F(CommandSafetyTest, TheReasonNamesEveryCommandThatAsks) {
  StartDaemon("");
  auto calls =
      AskedAndDenied({{"c1", "bash", R"({"command":"touch one && mkdir two | tee three"})"}});
  ASSERT_EQ(calls.size(), 1u);
  const std::string& reason = calls[0].reason();
  EXPECT_THAT(reason, HasSubstr("\"touch one\""));
  EXPECT_THAT(reason, HasSubstr("\"mkdir two\""));
  EXPECT_THAT(reason, HasSubstr("\"tee three\""));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/one"));
}

}  // namespace
}  // namespace raw::e2e
