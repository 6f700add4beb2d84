#include "daemon/skills/skill_set.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/skills/skill_test_support.h"

namespace raw::skills {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteSkill;
using testing::WriteText;

std::vector<std::string> Names(const SkillSet& set) {
  std::vector<std::string> names;
  for (const Skill& s : set.skills()) names.push_back(s.name);
  return names;
}

std::string ErrorOf(const absl::StatusOr<SkillSet>& set) {
  EXPECT_FALSE(set.ok());
  return set.ok() ? "" : std::string(set.status().message());
}

TEST(SkillTextHashTest, IsFnv1a64InHex) {
  EXPECT_EQ(SkillTextHash(""), "cbf29ce484222325");
  EXPECT_EQ(SkillTextHash("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(SkillTextHash("foobar"), "85944171f73967e8");
}

TEST(SkillSetTest, DirectoryWithSkillMdIsOneSkill) {
  TempDir tmp;
  WriteSkill(tmp.Join("review"), "review", "Review a change", "Read the diff.\n");
  absl::StatusOr<SkillSet> set = SkillSet::Load({tmp.Join("review")}, "", {"review"});
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->skills().size(), 1u);
  const Skill& skill = set->skills()[0];
  EXPECT_EQ(skill.name, "review");
  EXPECT_EQ(skill.description, "Review a change");
  EXPECT_EQ(skill.dir, tmp.Join("review"));
  EXPECT_EQ(skill.text, "Read the diff.\n");
  EXPECT_EQ(skill.text_hash, SkillTextHash("Read the diff.\n"));
  EXPECT_EQ(set->Find("review"), &set->skills()[0]);
  EXPECT_EQ(set->Find("other"), nullptr);
}

TEST(SkillSetTest, ParentDirectoryHoldsOneSkillPerSubdirectory) {
  TempDir tmp;
  WriteSkill(tmp.Join("skills/zeta"), "zeta", "Z", "z");
  WriteSkill(tmp.Join("skills/alpha"), "alpha", "A", "a");
  WriteText(tmp.Join("skills/notes/README.md"), "not a skill");
  WriteSkill(tmp.Join("skills/.hidden"), "hidden", "H", "h");
  WriteSkill(tmp.Join("skills/alpha/nested"), "nested", "N", "n");  // not scanned
  // A relative entry is taken relative to the base directory.
  absl::StatusOr<SkillSet> set = SkillSet::Load({"skills"}, tmp.path(), {"*"});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(Names(*set), ElementsAre("alpha", "zeta"));
  EXPECT_EQ(set->skills()[0].dir, tmp.Join("skills/alpha"));
}

TEST(SkillSetTest, SkillFolderReachedThroughASymlinkHasItsRealPath) {
  TempDir tmp;
  WriteSkill(tmp.Join("real/review"), "review", "R", "r");
  std::filesystem::create_directories(tmp.Join("linked"));
  std::filesystem::create_directory_symlink(tmp.Join("real/review"), tmp.Join("linked/review"));
  absl::StatusOr<SkillSet> set = SkillSet::Load({tmp.Join("linked")}, "", {"review"});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->skills()[0].dir, tmp.Join("real/review"));
}

TEST(SkillSetTest, EmptySelectionLoadsNothingAndReadsNoDirectory) {
  absl::StatusOr<SkillSet> set = SkillSet::Load({"/nonexistent/raw-skills"}, "", {});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_TRUE(set->skills().empty());
  EXPECT_EQ(set->PromptSection(), "");
}

TEST(SkillSetTest, MissingDirectoryIsNamed) {
  TempDir tmp;
  std::string error = ErrorOf(SkillSet::Load({"missing"}, tmp.path(), {"*"}));
  EXPECT_THAT(error, HasSubstr("skill directory \"missing\""));
  EXPECT_THAT(error, HasSubstr(tmp.Join("missing")));
  EXPECT_THAT(error, HasSubstr("does not exist"));
}

TEST(SkillSetTest, FrontMatterErrorsNameTheFile) {
  struct Case {
    std::string content;
    std::string expected;
  };
  const Case cases[] = {
      {"# Just text\n", "no front matter"},
      {"---\ndescription: d\n---\ntext", "has no \"name\""},
      {"---\nname: ok\n---\ntext", "has no \"description\""},
      {"---\nname: Bad_Name\ndescription: d\n---\n", "skill name \"Bad_Name\" is not valid"},
      {"---\nname: -dash\ndescription: d\n---\n", "skill name \"-dash\" is not valid"},
      {"---\nname: ok\ndescription: d\n", "front matter is not closed"},
  };
  for (const Case& c : cases) {
    TempDir tmp;
    WriteText(tmp.Join("skills/one/SKILL.md"), c.content);
    std::string error = ErrorOf(SkillSet::Load({tmp.Join("skills")}, "", {"*"}));
    EXPECT_THAT(error, HasSubstr(tmp.Join("skills/one/SKILL.md"))) << c.content;
    EXPECT_THAT(error, HasSubstr(c.expected)) << c.content;
  }
}

// One broken folder that the selection cannot mean does not stop the skills
// it does mean; it is set aside, named, and its error is the answer when
// the selection could mean it or meets nothing else.
TEST(SkillSetTest, ABrokenFolderTheSelectionDoesNotMeanIsSetAside) {
  TempDir tmp;
  WriteSkill(tmp.Join("skills/good"), "good", "Good", "g");
  WriteText(tmp.Join("skills/bad/SKILL.md"), "# no front matter\n");
  absl::StatusOr<SkillSet> set = SkillSet::Load({tmp.Join("skills")}, "", {"good"});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(Names(*set), ElementsAre("good"));
  ASSERT_EQ(set->broken().size(), 1u);
  EXPECT_EQ(set->broken()[0].dir, tmp.Join("skills/bad"));
  EXPECT_THAT(set->broken()[0].error.message(), HasSubstr("no front matter"));

  // The selection may mean it: its folder's name matches.
  std::string error = ErrorOf(SkillSet::Load({tmp.Join("skills")}, "", {"good", "ba*"}));
  EXPECT_THAT(error, HasSubstr("skill selection \"ba*\": " + tmp.Join("skills/bad/SKILL.md")));
  EXPECT_THAT(error, HasSubstr("no front matter"));
  // A selection that meets nothing names what was set aside.
  error = ErrorOf(SkillSet::Load({tmp.Join("skills")}, "", {"review"}));
  EXPECT_THAT(error, HasSubstr("matches no skill"));
  EXPECT_THAT(error, HasSubstr("set aside: " + tmp.Join("skills/bad/SKILL.md")));

  absl::StatusOr<std::vector<BrokenSkill>> unreadable =
      SkillSet::Unreadable({tmp.Join("skills")}, "");
  ASSERT_TRUE(unreadable.ok()) << unreadable.status();
  ASSERT_EQ(unreadable->size(), 1u);
  EXPECT_EQ((*unreadable)[0].dir, tmp.Join("skills/bad"));
}

TEST(SkillSetTest, NameOfSixtyFiveCharactersIsRefused) {
  TempDir tmp;
  std::string long_name(65, 'a');
  WriteSkill(tmp.Join("s"), long_name, "d", "");
  EXPECT_THAT(ErrorOf(SkillSet::Load({tmp.Join("s")}, "", {"*"})), HasSubstr("is not valid"));
  WriteSkill(tmp.Join("s"), std::string(64, 'a'), "d", "");
  EXPECT_TRUE(SkillSet::Load({tmp.Join("s")}, "", {"*"}).ok());
}

TEST(SkillSetTest, DuplicateNamesAreAnErrorNamingBothFiles) {
  TempDir tmp;
  WriteSkill(tmp.Join("a/review"), "review", "first", "");
  WriteSkill(tmp.Join("b/review2"), "review", "second", "");
  std::string error = ErrorOf(SkillSet::Load({tmp.Join("a"), tmp.Join("b")}, "", {"*"}));
  EXPECT_THAT(error, HasSubstr("two skills are named \"review\""));
  EXPECT_THAT(error, HasSubstr(tmp.Join("a/review/SKILL.md")));
  EXPECT_THAT(error, HasSubstr(tmp.Join("b/review2/SKILL.md")));
}

TEST(SkillSetTest, TheSameFolderListedTwiceIsOneSkill) {
  TempDir tmp;
  WriteSkill(tmp.Join("a/review"), "review", "R", "");
  absl::StatusOr<SkillSet> set =
      SkillSet::Load({tmp.Join("a"), tmp.Join("a/review")}, "", {"review"});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(Names(*set), ElementsAre("review"));
}

TEST(SkillSetTest, SelectionTakesExactNamesAndGlobs) {
  TempDir tmp;
  for (const char* name : {"review", "revert", "lint", "deploy"}) {
    WriteSkill(tmp.Join(std::string("s/") + name), name, "d", "");
  }
  absl::StatusOr<SkillSet> set = SkillSet::Load({tmp.Join("s")}, "", {"rev*", "lint", "rev*"});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(Names(*set), ElementsAre("lint", "revert", "review"));
  set = SkillSet::Load({tmp.Join("s")}, "", {"re:de.*"});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(Names(*set), ElementsAre("deploy"));
}

TEST(SkillSetTest, SelectionMatchingNothingIsAnError) {
  TempDir tmp;
  WriteSkill(tmp.Join("s/review"), "review", "d", "");
  WriteSkill(tmp.Join("s/lint"), "lint", "d", "");
  absl::StatusOr<SkillSet> set = SkillSet::Load({tmp.Join("s")}, "", {"review", "deploy*"});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(set.status().message()),
              HasSubstr("skill selection \"deploy*\" matches no skill"));
  EXPECT_THAT(std::string(set.status().message()), HasSubstr("lint, review"));
}

TEST(SkillSetTest, PromptSectionListsNamesAndDescriptions) {
  TempDir tmp;
  WriteSkill(tmp.Join("s/review"), "review", "Review a change", "text");
  WriteText(tmp.Join("s/lint/SKILL.md"),
            "---\nname: lint\ndescription: Fix lint\n  warnings fast\n---\n");
  absl::StatusOr<SkillSet> set = SkillSet::Load({tmp.Join("s")}, "", {"*"});
  ASSERT_TRUE(set.ok()) << set.status();
  const std::string expected =
      "# Skills\n\n"
      "Skills are folders of instructions for particular kinds of work. When a task matches a "
      "skill's description, call the load_skill tool with the skill's name before you start, and "
      "follow the instructions it returns. Files that the instructions mention are read with "
      "load_skill's \"file\" argument, relative to the skill's folder.\n\n"
      "Available skills:\n"
      "- lint: Fix lint warnings fast\n"
      "- review: Review a change\n";
  EXPECT_EQ(set->PromptSection(), expected);
  absl::StatusOr<SkillSet> again = SkillSet::Load({tmp.Join("s")}, "", {"review", "lint"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->PromptSection(), expected);
}

TEST(SkillSetTest, ReloadReadsTheCurrentFile) {
  TempDir tmp;
  WriteSkill(tmp.Join("review"), "review", "d", "version 1\n");
  absl::StatusOr<SkillSet> set = SkillSet::Load({tmp.Join("review")}, "", {"review"});
  ASSERT_TRUE(set.ok()) << set.status();
  const std::string old_hash = set->skills()[0].text_hash;

  absl::StatusOr<Skill> same = set->Reload("review");
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->text_hash, old_hash);

  WriteSkill(tmp.Join("review"), "review", "d2", "version 2\n");
  absl::StatusOr<Skill> changed = set->Reload("review");
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed->text, "version 2\n");
  EXPECT_EQ(changed->description, "d2");
  EXPECT_NE(changed->text_hash, old_hash);
  EXPECT_EQ(changed->text_hash, SkillTextHash("version 2\n"));
  // The loaded set itself is unchanged.
  EXPECT_EQ(set->skills()[0].text, "version 1\n");

  WriteSkill(tmp.Join("review"), "renamed", "d", "");
  EXPECT_THAT(std::string(set->Reload("review").status().message()),
              HasSubstr("now names the skill \"renamed\""));

  std::filesystem::remove(tmp.Join("review/SKILL.md"));
  EXPECT_EQ(set->Reload("review").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(set->Reload("unknown").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace raw::skills
