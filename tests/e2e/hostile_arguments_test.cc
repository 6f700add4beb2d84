// Hostile tool arguments end to end: a real rawd refuses arguments that are
// too large or absurdly nested with a clear error result, runs nothing, and
// the session goes on.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

TEST_F(ContractTest, HugeAndDeeplyNestedArgumentsAreRefusedAndNothingRuns) {
  StartDaemon(R"("approval_mode": "allow_all")");
  std::string session = daemon_->CreateSession();
  // 5 MiB of content: over the 4 MiB limit on one call's arguments.
  const std::string huge =
      absl::StrCat(R"({"path":"big.txt","content":")", std::string(5 << 20, 'x'), R"("})");
  // 200 000 levels of nesting in a value the schema says is a string.
  const std::string nested = absl::StrCat(R"({"path":"nested.txt","content":)",
                                          std::string(200000, '['), std::string(200000, ']'),
                                          "}");
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "write_file", huge},
                                       {"c2", "write_file", nested},
                                       {"c3", "write_file",
                                        R"({"path":"ok.txt","content":"fine"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "write");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value())
      << stream.status().error_message() << "\n" << daemon_->ReadLog();
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[0].content(), HasSubstr("more than the limit"));
  EXPECT_LT(results[0].content().size(), 1000u);  // the error does not echo the arguments
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[1].content(), HasSubstr("nested more than 512 levels"));
  EXPECT_LT(results[1].content().size(), 2000u);
  EXPECT_EQ(results[2].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/big.txt"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/nested.txt"));
  EXPECT_EQ(ReadFile(daemon_->workdir() + "/ok.txt"), "fine");

  // The session is intact: the next turn runs and its request carries the
  // refused calls' results.
  fake_.Enqueue(chat::TextAnswer("still here"));
  std::string next = StartTurn(stub(), session, "again");
  ASSERT_TRUE(stream.WaitForTurnEnd(next).has_value());
  EXPECT_THAT(fake_.requests().back().body, HasSubstr("more than the limit"));
}

}  // namespace
}  // namespace raw::e2e
