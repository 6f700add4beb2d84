#include "daemon/tools/builtin/load_skill.h"

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "daemon/skills/skill_set.h"
#include "daemon/tools/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::builtin {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::TempDir;
using testing::WriteText;

class LoadSkillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteText(tmp_.Join("skills/pdf/SKILL.md"),
              "---\nname: pdf\ndescription: Work with PDF files\n---\n# PDF\nSee forms.md.\n");
    WriteText(tmp_.Join("skills/pdf/reference/forms.md"), "Fill forms like this.\n");
    WriteText(tmp_.Join("skills/review/SKILL.md"),
              "---\nname: review\ndescription: Review code\n---\nReview carefully.\n");
    WriteText(tmp_.Join("secret.txt"), "outside the skill\n");
    absl::StatusOr<skills::SkillSet> set = skills::SkillSet::Load({tmp_.Join("skills")}, "", {"*"});
    ASSERT_TRUE(set.ok()) << set.status();
    skills_ = std::move(*set);
  }

  ToolOutput Call(const Json& args) {
    CancelToken cancel;
    ToolContext ctx{tmp_.path(), settings_, cancel};
    ctx.skills = &skills_;
    return spec_.handler(args, ctx);
  }

  TempDir tmp_;
  skills::SkillSet skills_;
  config::ToolSettings settings_;
  ToolSpec spec_ = MakeLoadSkillTool();
};

TEST_F(LoadSkillTest, SpecIsReadOnlyWithoutRuleSubject) {
  EXPECT_EQ(spec_.qualified_name, "builtin/load_skill");
  EXPECT_EQ(spec_.model_name, "load_skill");
  EXPECT_TRUE(spec_.read_only);
  EXPECT_EQ(spec_.rule_subject, RuleSubject::kNone);
  ToolRegistry registry;  // compiles and checks the schema
  EXPECT_TRUE(registry.Register(MakeLoadSkillTool()).ok());
}

TEST_F(LoadSkillTest, ReturnsTheCurrentSkillText) {
  ToolOutput out = Call({{"name", "pdf"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "Skill \"pdf\" (folder " + tmp_.Join("skills/pdf") +
                             "):\n\n# PDF\nSee forms.md.\n");

  // Edited after loading: the tool reads the file again.
  WriteText(tmp_.Join("skills/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Work with PDF files\n---\nVersion 2.\n");
  out = Call({{"name", "pdf"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(out.content, HasSubstr("):\n\nVersion 2.\n"));
}

TEST_F(LoadSkillTest, ReadsAFileInsideTheSkillFolder) {
  ToolOutput out = Call({{"name", "pdf"}, {"file", "reference/./forms.md"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  EXPECT_THAT(out.content, StartsWith("File \"reference/forms.md\" of skill \"pdf\""));
  EXPECT_THAT(out.content, HasSubstr("\n\nFill forms like this.\n"));
}

TEST_F(LoadSkillTest, DotDotLeavingTheFolderIsRefused) {
  ToolOutput out = Call({{"name", "pdf"}, {"file", "../../secret.txt"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("outside the folder of skill \"pdf\""));
  EXPECT_THAT(out.content, Not(HasSubstr("outside the skill\n")));

  // ".." that stays inside is fine.
  out = Call({{"name", "pdf"}, {"file", "reference/../reference/forms.md"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk) << out.content;
}

TEST_F(LoadSkillTest, SymlinkLeavingTheFolderIsRefused) {
  std::filesystem::create_symlink(tmp_.Join("secret.txt"), tmp_.Join("skills/pdf/link.md"));
  std::filesystem::create_directory_symlink(tmp_.path(), tmp_.Join("skills/pdf/up"));
  for (const char* file : {"link.md", "up/secret.txt"}) {
    ToolOutput out = Call({{"name", "pdf"}, {"file", file}});
    EXPECT_EQ(out.status, events::ToolStatus::kError) << file;
    EXPECT_THAT(out.content, HasSubstr("resolves to " + tmp_.Join("secret.txt"))) << file;
    EXPECT_THAT(out.content, HasSubstr("outside the folder")) << file;
  }
  // A symlink to the skill's own files is followed.
  std::filesystem::create_symlink("reference/forms.md", tmp_.Join("skills/pdf/forms-link.md"));
  ToolOutput out = Call({{"name", "pdf"}, {"file", "forms-link.md"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk) << out.content;
}

TEST_F(LoadSkillTest, AbsolutePathIsRefused) {
  ToolOutput out = Call({{"name", "pdf"}, {"file", tmp_.Join("skills/pdf/reference/forms.md")}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("must be a path relative to the folder of skill \"pdf\""));
}

TEST_F(LoadSkillTest, UnknownSkillListsTheAvailableOnes) {
  ToolOutput out = Call({{"name", "docx"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "unknown skill \"docx\"; available skills: \"pdf\", \"review\"");
}

TEST_F(LoadSkillTest, MissingDirectoryAndBinaryFilesAreErrors) {
  ToolOutput out = Call({{"name", "pdf"}, {"file", "nope.md"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("skill \"pdf\" has no file \"nope.md\""));

  out = Call({{"name", "pdf"}, {"file", "reference"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("is not a regular file"));

  WriteText(tmp_.Join("skills/pdf/blob.bin"), std::string("PK\0\0data", 8));
  out = Call({{"name", "pdf"}, {"file", "blob.bin"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("binary"));
}

// A FIFO would block the open until some writer came, past any
// cancellation of the turn: it is refused at once, whether it is named as a
// skill's file or put where its SKILL.md was.
TEST_F(LoadSkillTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  ASSERT_EQ(mkfifo(tmp_.Join("skills/pdf/pipe.md").c_str(), 0600), 0);
  ToolOutput out = Call({{"name", "pdf"}, {"file", "pipe.md"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("is not a regular file"));

  std::filesystem::remove(tmp_.Join("skills/review/SKILL.md"));
  ASSERT_EQ(mkfifo(tmp_.Join("skills/review/SKILL.md").c_str(), 0600), 0);
  out = Call({{"name", "review"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("is not a regular file"));
}

TEST_F(LoadSkillTest, LargeFilesAreCutAtTheReadLimit) {
  settings_.files.max_read_bytes = 10;
  WriteText(tmp_.Join("skills/pdf/long.md"), "0123456789abcdef");
  ToolOutput out = Call({{"name", "pdf"}, {"file", "long.md"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(out.content, HasSubstr("\n\n0123456789\n[truncated at 10 of 16 bytes"));
  EXPECT_THAT(out.content, Not(HasSubstr("abcdef")));
}

TEST_F(LoadSkillTest, NoSkillsAvailable) {
  CancelToken cancel;
  ToolContext ctx{tmp_.path(), settings_, cancel};
  ToolOutput out = spec_.handler(Json{{"name", "pdf"}}, ctx);
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "no skills are available to this agent");
}

}  // namespace
}  // namespace raw::tools::builtin
