// Path rules end to end: a real rawd judges the file a tool actually opens,
// judges a call again when an earlier call of its batch changed what its
// path or a redirection's target names, and keeps denied paths out of grep, glob and list_dir
// walks.
#include <filesystem>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kDenySecret[] =
    R"("approval_mode": "allow_all",
       "rules": [{"deny": "builtin/*", "path": "secret/**"}])";

class PathRulesE2eTest : public ContractTest {
 protected:
  void MakeProject() {
    WriteFile(daemon_->workdir() + "/secret/key.txt", "TOKEN-SECRET-42\n");
    WriteFile(daemon_->workdir() + "/src/a.txt", "TOKEN in src\n");
  }

  // What the model was sent after the batch: no denied file's text.
  std::string LastRequest() { return fake_.requests().back().body; }
};

TEST_F(PathRulesE2eTest, DotDotAfterASymlinkCannotHideTheFileTheToolOpens) {
  StartDaemon(kDenySecret);
  MakeProject();
  // "link/.." is <workdir>/other physically, but the tools open
  // "link/../secret/key.txt" as <workdir>/secret/key.txt; so must the rules.
  std::filesystem::create_directories(daemon_->workdir() + "/other/deep");
  std::filesystem::create_directory_symlink(daemon_->workdir() + "/other/deep",
                                            daemon_->workdir() + "/link");
  auto results = RunBatch(
      {{"c1", "read_file", R"({"path":"link/../secret/key.txt"})"},
       {"c2", "write_file", R"({"path":"link/../secret/new.txt","content":"x"})"}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[0].content(), HasSubstr(daemon_->workdir() + "/secret/key.txt"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/secret/new.txt"));
  EXPECT_THAT(LastRequest(), Not(HasSubstr("TOKEN-SECRET-42")));
}

TEST_F(PathRulesE2eTest, ALinkMadeEarlierInTheBatchIsJudgedAgainBeforeTheCallRuns) {
  StartDaemon(kDenySecret);
  MakeProject();
  // When the batch is judged, "alias.txt" does not exist (it names itself);
  // by the time the second call runs it is a link into secret/.
  auto results = RunBatch({{"c1", "bash", R"({"command":"ln -s secret/key.txt alias.txt"})"},
                           {"c2", "read_file", R"({"path":"alias.txt"})"}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  ASSERT_TRUE(std::filesystem::is_symlink(daemon_->workdir() + "/alias.txt"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[1].content(),
              HasSubstr("now resolves to " + daemon_->workdir() + "/secret/key.txt"));
  EXPECT_THAT(results[1].content(), HasSubstr("secret/**"));
  EXPECT_THAT(LastRequest(), Not(HasSubstr("TOKEN-SECRET-42")));
}

TEST_F(PathRulesE2eTest, ARedirectTargetLinkedEarlierInTheBatchIsJudgedAgain) {
  // Writing build logs is allowed, and so is making links (as a checkout of
  // a tree holding one would): neither on its own writes outside build/.
  StartDaemon(R"("rules": [
       {"allow": "builtin/bash", "command": "ln *"},
       {"allow": "builtin/bash", "command": "echo *"},
       {"allow": "builtin/bash", "redirect": "build/*.log"}])");
  const std::string outside = daemon_->workdir() + "/profile.sh";
  WriteFile(outside, "# mine\n");
  std::filesystem::create_directories(daemon_->workdir() + "/build");
  // When the batch is judged, build/m.log is a plain new file; by the time
  // the second call runs it is a link to profile.sh.
  auto results = RunBatch({{"c1", "bash", R"({"command":"ln -s ../profile.sh build/m.log"})"},
                           {"c2", "bash", R"({"command":"echo pwned > build/m.log"})"},
                           {"c3", "bash", R"({"command":"echo fine > build/n.log"})"}});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[0].content();
  ASSERT_TRUE(std::filesystem::is_symlink(daemon_->workdir() + "/build/m.log"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[1].content(),
              HasSubstr("the redirect target build/m.log resolved to " + daemon_->workdir() +
                        "/build/m.log when the call was judged and now resolves to " + outside));
  EXPECT_EQ(ReadFile(outside), "# mine\n");
  // A target that still leads where it did is written as judged.
  EXPECT_EQ(results[2].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[2].content();
  EXPECT_EQ(ReadFile(daemon_->workdir() + "/build/n.log"), "fine\n");
}

TEST_F(PathRulesE2eTest, WalksFromTheWorkingDirectoryLeaveDeniedPathsOut) {
  StartDaemon(kDenySecret);
  MakeProject();
  auto results = RunBatch({{"c1", "grep", R"({"pattern":"TOKEN"})"},
                           {"c2", "glob", R"({"pattern":"**/*.txt"})"},
                           {"c3", "list_dir", R"({"depth":3})"}});
  ASSERT_EQ(results.size(), 3u);
  for (const auto& result : results) {
    EXPECT_EQ(result.status(), raw::v1::TOOL_RESULT_STATUS_OK) << result.content();
    EXPECT_THAT(result.content(), HasSubstr("withheld by the agent's rules"));
    EXPECT_THAT(result.content(), Not(HasSubstr("key.txt")));
  }
  EXPECT_THAT(results[0].content(), HasSubstr("src/a.txt:1: TOKEN in src"));
  EXPECT_THAT(results[1].content(), HasSubstr("src/a.txt"));
  EXPECT_THAT(LastRequest(), Not(HasSubstr("TOKEN-SECRET-42")));
}

}  // namespace
}  // namespace raw::e2e
