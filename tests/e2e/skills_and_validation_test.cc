// Skills, argument validation and tool selection end to end.
#include <filesystem>

#include "gmock/gmock.h"
#include "common/json.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

std::vector<std::string> ToolNames(const Json& body) {
  std::vector<std::string> names;
  for (const auto& t : body["tools"]) names.push_back(t["function"]["name"]);
  return names;
}

TEST_F(ContractTest, InvalidArgumentsGetAnErrorNamingThePathAndNeverRun) {
  StartDaemon(R"("approval_mode": "allow_all")");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({
      {"c1", "write_file", R"({"path": 5, "content": "x"})"},
      {"c2", "write_file", R"({"content": "x"})"},
      {"c3", "write_file", R"({"path": "a", "content": "x", "colour": "red"})"},
      {"c4", "write_file", R"({"path": "a", "content": )"},
      {"c5", "no_such_tool", R"({})"},
  }));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto events = stream.TurnEvents(turn);
  EXPECT_FALSE(Has(events, raw::v1::Event::kToolStarted));
  auto results = Results(events);
  ASSERT_EQ(results.size(), 5u);
  for (const auto& r : results) EXPECT_EQ(r.status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[0].content(), HasSubstr("/path"));
  EXPECT_THAT(results[0].content(), HasSubstr("string"));
  EXPECT_THAT(results[1].content(), HasSubstr("path"));
  EXPECT_THAT(results[1].content(), HasSubstr("required"));
  EXPECT_THAT(results[2].content(), HasSubstr("colour"));
  EXPECT_THAT(results[3].content(), HasSubstr("not valid JSON"));
  EXPECT_THAT(results[4].content(), HasSubstr("unknown tool \"no_such_tool\""));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/a"));
}

TEST_F(ContractTest, GlobSelectionExposesOnlyTheMatchingToolsInStableOrder) {
  StartDaemon(R"("approval_mode": "allow_all")", "",
              R"(["builtin/read_*", "builtin/list_dir", "builtin/read_file"])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("hi"));
  fake_.Enqueue(chat::TextAnswer("hi again"));
  EventStream stream(stub(), session);
  ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), session, "one")).has_value());
  ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), session, "two")).has_value());
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  auto first = reqs[0].BodyJson();
  auto second = reqs[1].BodyJson();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_THAT(ToolNames(*first), ::testing::ElementsAre("list_dir", "read_file"));
  // Same bytes for the tool definitions on every request.
  EXPECT_EQ((*first)["tools"].dump(), (*second)["tools"].dump());
}

TEST_F(ContractTest, SkillsAreListedLoadedAndAChangedSkillGetsANotice) {
  std::string skills = scratch_ + "/skills";
  WriteFile(skills + "/review/SKILL.md",
            "---\nname: review\ndescription: How to review a change\n---\nStep 1: read the diff.\n");
  WriteFile(skills + "/review/checklist.md", "- tests\n- docs\n");
  WriteFile(skills + "/deploy/SKILL.md",
            "---\nname: deploy\ndescription: How to deploy\n---\nNever on Fridays.\n");
  // Selected but never loaded by the model: a change to it needs no notice.
  WriteFile(skills + "/lint/SKILL.md",
            "---\nname: lint\ndescription: How to lint\n---\nRun the linter.\n");
  StartDaemon(R"("skills": ["review", "lint"], "approval_mode": "allow_all")",
              absl::StrCat(R"("skill_dirs": [")", skills, R"("])"));
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "load_skill", R"({"name":"review"})"},
                                       {"c2", "load_skill",
                                        R"({"name":"review","file":"checklist.md"})"}}));
  fake_.Enqueue(chat::TextAnswer("loaded"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "review my change");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(results[0].content(), HasSubstr("Step 1: read the diff."));
  EXPECT_THAT(results[1].content(), HasSubstr("- docs"));

  auto first = fake_.requests()[0].BodyJson();
  ASSERT_TRUE(first.ok());
  std::string system = (*first)["messages"][0]["content"];
  EXPECT_THAT(system, HasSubstr("review"));
  EXPECT_THAT(system, HasSubstr("How to review a change"));
  EXPECT_THAT(system, ::testing::Not(HasSubstr("deploy")));  // not selected

  // The skill's text changes: the next turn's user item carries a notice,
  // the cache key and the earlier history stay the same.
  WriteFile(skills + "/review/SKILL.md",
            "---\nname: review\ndescription: How to review a change\n---\nStep 1: run the tests.\n");
  WriteFile(skills + "/lint/SKILL.md",
            "---\nname: lint\ndescription: How to lint\n---\nRun the linter twice.\n");
  fake_.Enqueue(chat::TextAnswer("ok"));
  std::string turn2 = StartTurn(stub(), session, "next");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn2).has_value());
  auto reqs = fake_.requests();
  auto last = reqs.back().BodyJson();
  ASSERT_TRUE(last.ok());
  const auto& msgs = (*last)["messages"];
  std::string user = msgs.back()["content"];
  EXPECT_THAT(user, HasSubstr("next"));
  EXPECT_THAT(user, HasSubstr("\"review\" has changed"));
  EXPECT_THAT(user, ::testing::Not(HasSubstr("\"lint\"")));
  EXPECT_EQ((*last)["prompt_cache_key"], (*first)["prompt_cache_key"]);
  EXPECT_EQ(msgs[0], (*first)["messages"][0]);
  EXPECT_EQ(msgs[1], (*first)["messages"][1]);
  // Display history shows the user's own words only.
  for (const auto& e : stream.TurnEvents(turn2)) {
    if (e.has_user_message()) {
      EXPECT_EQ(e.user_message().text(), "next");
    }
  }
}

TEST_F(ContractTest, EditFileResultCarriesADiffForClientsOnly) {
  StartDaemon(R"("approval_mode": "allow_all")");
  WriteFile(daemon_->workdir() + "/main.c", "int main() {\n  return 1;\n}\n");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "edit_file",
        R"({"path":"main.c","old_string":"return 1;","new_string":"return 0;"})"}}));
  fake_.Enqueue(chat::TextAnswer("fixed"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "fix");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[0].content();
  EXPECT_THAT(results[0].display(), HasSubstr("-  return 1;"));
  EXPECT_THAT(results[0].display(), HasSubstr("+  return 0;"));
  EXPECT_EQ(ReadFile(daemon_->workdir() + "/main.c"), "int main() {\n  return 0;\n}\n");
  EXPECT_THAT(fake_.requests().back().body, ::testing::Not(HasSubstr("+  return 0;")));
}

}  // namespace
}  // namespace raw::e2e
