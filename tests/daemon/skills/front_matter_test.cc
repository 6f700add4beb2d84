#include "daemon/skills/front_matter.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::skills {
namespace {

using ::testing::HasSubstr;

TEST(FrontMatterTest, ParsesKeysAndBody) {
  absl::StatusOr<FrontMatter> fm = ParseFrontMatter(
      "---\n"
      "name: review\n"
      "description: Review a change: style, tests and risks\n"
      "# a comment\n"
      "\n"
      "license: MIT\n"
      "---\n"
      "\n"
      "# Review\n"
      "Step one.\n",
      "skills/review/SKILL.md");
  ASSERT_TRUE(fm.ok()) << fm.status();
  EXPECT_EQ(fm->fields.at("name"), "review");
  EXPECT_EQ(fm->fields.at("description"), "Review a change: style, tests and risks");
  EXPECT_EQ(fm->fields.at("license"), "MIT");
  EXPECT_EQ(fm->fields.size(), 3u);
  EXPECT_EQ(fm->body, "# Review\nStep one.\n");
}

TEST(FrontMatterTest, AcceptsQuotesCrlfBomAndContinuations) {
  absl::StatusOr<FrontMatter> fm = ParseFrontMatter(
      "\xEF\xBB\xBF---\r\n"
      "name: 'it''s'\r\n"
      "description: \"say \\\"hi\\\"\"\r\n"
      "long: first part\r\n"
      "  second part\r\n"
      "folded: >\n"
      "  one\n"
      "  two\n"
      "literal: |\n"
      "  line 1\n"
      "  line 2\n"
      "---   \r\n"
      "body",
      "f.md");
  ASSERT_TRUE(fm.ok()) << fm.status();
  EXPECT_EQ(fm->fields.at("name"), "it's");
  EXPECT_EQ(fm->fields.at("description"), "say \"hi\"");
  EXPECT_EQ(fm->fields.at("long"), "first part second part");
  EXPECT_EQ(fm->fields.at("folded"), "one two");
  EXPECT_EQ(fm->fields.at("literal"), "line 1\nline 2");
  EXPECT_EQ(fm->body, "body");
}

TEST(FrontMatterTest, ErrorsNameTheFileAndLine) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"# Title\n", "x/SKILL.md: no front matter"},
      {"", "x/SKILL.md: no front matter"},
      {"---\nname: a\n", "x/SKILL.md: front matter is not closed"},
      {"---\nname: a\njust words\n---\n", "x/SKILL.md:3: expected a \"key: value\" line"},
      {"---\nname: a\nname: b\n---\n", "x/SKILL.md:3: key \"name\" appears twice (first on line 2)"},
      {"---\n  indented: x\n---\n", "x/SKILL.md:2: indented line before any key"},
      {"---\nbad key: x\n---\n", "x/SKILL.md:2: invalid key \"bad key\""},
      {"---\nname: \"open\n---\n", "x/SKILL.md:2: the value of \"name\" has an unclosed quote"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<FrontMatter> fm = ParseFrontMatter(c.text, "x/SKILL.md");
    ASSERT_FALSE(fm.ok()) << c.text;
    EXPECT_EQ(fm.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(fm.status().message()), HasSubstr(c.expected)) << c.text;
  }
}

}  // namespace
}  // namespace raw::skills
