#include "common/pattern.h"

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "re2/re2.h"

namespace raw {
namespace {

using ::testing::HasSubstr;

Pattern Text(const std::string& text) {
  auto pattern = Pattern::Compile(text, Pattern::Style::kText);
  EXPECT_TRUE(pattern.ok()) << text << ": " << pattern.status();
  return *pattern;
}

Pattern Path(const std::string& text) {
  auto pattern = Pattern::Compile(text, Pattern::Style::kPath);
  EXPECT_TRUE(pattern.ok()) << text << ": " << pattern.status();
  return *pattern;
}

TEST(PatternTest, TextGlobStarMatchesAnyRunIncludingSlashes) {
  EXPECT_TRUE(Text("git diff *").Matches("git diff src/a.cc"));
  EXPECT_TRUE(Text("git diff *").Matches("git diff "));
  EXPECT_FALSE(Text("git diff *").Matches("git diff"));
  EXPECT_FALSE(Text("git diff *").Matches("git status"));
  EXPECT_TRUE(Text("builtin/*").Matches("builtin/bash"));
  EXPECT_TRUE(Text("mcp/*").Matches("mcp/server/tool"));
  EXPECT_TRUE(Text("*").Matches(""));
  EXPECT_TRUE(Text("**").Matches("a/b/c"));
  EXPECT_TRUE(Text("echo *").Matches("echo 'a\nb'"));
  EXPECT_TRUE(Text("git status").Matches("git status"));
  EXPECT_FALSE(Text("git status").Matches("git status -s"));
  EXPECT_FALSE(Text("git status").Matches("xgit status"));
}

TEST(PatternTest, QuestionMarkIsOneCharacter) {
  EXPECT_TRUE(Text("a?c").Matches("abc"));
  EXPECT_TRUE(Text("a?c").Matches("a/c"));
  EXPECT_TRUE(Text("a?c").Matches("aéc"));  // one character, two bytes
  EXPECT_FALSE(Text("a?c").Matches("ac"));
  EXPECT_FALSE(Text("a?c").Matches("abbc"));
  EXPECT_FALSE(Path("a?c").Matches("a/c"));
}

TEST(PatternTest, OtherCharactersAreLiteral) {
  EXPECT_TRUE(Text("a.b").Matches("a.b"));
  EXPECT_FALSE(Text("a.b").Matches("axb"));
  EXPECT_TRUE(Text("[ab]+{c}(d)|$^").Matches("[ab]+{c}(d)|$^"));
  EXPECT_FALSE(Text("[ab]").Matches("a"));
}

TEST(PatternTest, EscapesMakeMetacharactersLiteral) {
  EXPECT_TRUE(Text("a\\*b").Matches("a*b"));
  EXPECT_FALSE(Text("a\\*b").Matches("axb"));
  EXPECT_TRUE(Text("a\\?").Matches("a?"));
  EXPECT_FALSE(Text("a\\?").Matches("ab"));
  EXPECT_TRUE(Text("a\\\\b").Matches("a\\b"));
  EXPECT_TRUE(Text("\\x").Matches("x"));
}

TEST(PatternTest, PathStarStopsAtSlashDoubleStarDoesNot) {
  EXPECT_TRUE(Path("src/*.cc").Matches("src/a.cc"));
  EXPECT_FALSE(Path("src/*.cc").Matches("src/sub/a.cc"));
  EXPECT_TRUE(Path("src/**").Matches("src/sub/a.cc"));
  EXPECT_TRUE(Path("src/**").Matches("src/a"));
  EXPECT_FALSE(Path("src/**").Matches("src"));
  EXPECT_FALSE(Path("src/**").Matches("srcx/a"));
  EXPECT_TRUE(Path("src/**/*.cc").Matches("src/a.cc"));
  EXPECT_TRUE(Path("src/**/*.cc").Matches("src/x/y/a.cc"));
  EXPECT_FALSE(Path("src/**/*.cc").Matches("src/x/y/a.h"));
  EXPECT_TRUE(Path("a/**/b").Matches("a/b"));
  EXPECT_TRUE(Path("a/**/b").Matches("a/x/b"));
  EXPECT_TRUE(Path("a/**/b").Matches("a/x/y/b"));
  EXPECT_FALSE(Path("a/**/b").Matches("a/xb"));
  EXPECT_FALSE(Path("a/**/b").Matches("ab"));
  EXPECT_TRUE(Path("**/*.md").Matches("README.md"));
  EXPECT_TRUE(Path("**/*.md").Matches("/home/u/docs/x.md"));
  EXPECT_TRUE(Path("/tmp/**").Matches("/tmp/a/b"));
  EXPECT_TRUE(Path("/home/**.key").Matches("/home/u/.ssh/id.key"));
  EXPECT_TRUE(Path("**").Matches("/etc/passwd"));
  EXPECT_FALSE(Path("*").Matches("/etc/passwd"));
  EXPECT_TRUE(Path("/etc/*").Matches("/etc/passwd"));
}

TEST(PatternTest, RegexMustMatchTheWholeSubject) {
  Pattern re = Text("re:git (status|diff)( .*)?");
  EXPECT_TRUE(re.is_regex());
  EXPECT_TRUE(re.Matches("git status"));
  EXPECT_TRUE(re.Matches("git diff --stat"));
  EXPECT_FALSE(re.Matches("git statusx"));
  EXPECT_FALSE(re.Matches("sudo git status"));
  EXPECT_FALSE(Text("re:git (status|diff)( -[a-z]+)*").Matches("git status && rm -rf /"));
  // Unanchored-looking expressions are still anchored.
  EXPECT_FALSE(Text("re:rm").Matches("rm -rf x"));
  EXPECT_TRUE(Text("re:rm.*").Matches("rm -rf x"));
  // Regexes are the same in both styles: `.` crosses '/'.
  EXPECT_TRUE(Path("re:/tmp/.*\\.log").Matches("/tmp/a/b.log"));
  // And newlines, as `*` does in a glob: a value with a newline in it is
  // still matched by `.*`.
  EXPECT_TRUE(Text("re:rm .*").Matches("rm -f victim '\n'"));
  EXPECT_TRUE(Text("re:mcp/.*").Matches("mcp/evil/delete\nall"));
  EXPECT_TRUE(Path("re:/etc/.*").Matches("/etc/a\nb"));
  EXPECT_TRUE(Text("rm *").Matches("rm -f victim '\n'"));
  EXPECT_FALSE(Text("re:(?-s)rm .*").Matches("rm -f victim '\n'"));
  EXPECT_FALSE(Text("git *").is_regex());
}

TEST(PatternTest, InvalidPatternsFailWithTheReason) {
  auto empty = Pattern::Compile("", Pattern::Style::kText);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().message(), "pattern is empty");

  auto bad_regex = Pattern::Compile("re:git (status", Pattern::Style::kText);
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_THAT(bad_regex.status().message(), HasSubstr("invalid regular expression"));
  EXPECT_THAT(bad_regex.status().message(), HasSubstr("missing )"));

  auto empty_regex = Pattern::Compile("re:", Pattern::Style::kText);
  ASSERT_FALSE(empty_regex.ok());
  EXPECT_THAT(empty_regex.status().message(), HasSubstr("empty"));

  auto trailing = Pattern::Compile("abc\\", Pattern::Style::kPath);
  ASSERT_FALSE(trailing.ok());
  EXPECT_THAT(trailing.status().message(), HasSubstr("ends with a backslash"));
}

TEST(PatternTest, OversizedPatternsFailWithAShortMessage) {
  std::string huge(2 * 1024 * 1024, 'a');
  auto pattern = Pattern::Compile(huge + "*", Pattern::Style::kText);
  ASSERT_FALSE(pattern.ok());
  EXPECT_THAT(std::string(pattern.status().message()), HasSubstr("cannot be compiled"));
  EXPECT_LT(pattern.status().message().size(), 1000u);
  // A long but reasonable one (an exact command for a session rule) works.
  std::string command(100000, 'x');
  auto exact = Pattern::Compile(EscapeGlob(command), Pattern::Style::kText);
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_TRUE(exact->Matches(command));
}

TEST(PatternTest, PathologicalGlobsRunInLinearTime) {
  // A backtracking matcher needs exponential time for these; RE2 does not.
  std::string subject(200000, 'a');
  std::string pattern;
  for (int i = 0; i < 40; ++i) pattern += "*a";
  pattern += "*b";
  EXPECT_FALSE(Text(pattern).Matches(subject));
  EXPECT_FALSE(Path(pattern).Matches(subject));
  EXPECT_FALSE(Text("*a*a*a*a*a*b").Matches(subject));
  EXPECT_TRUE(Text("*a*a*a*a*a*").Matches(subject));
  EXPECT_FALSE(Text("re:(a*)*b").Matches(subject));
}

TEST(PatternTest, EscapeGlobMatchesExactlyTheText) {
  for (const std::string& text :
       {std::string("rm -rf *"), std::string("a?b\\c"), std::string("re:x.*"),
        std::string("/tmp/dir with space/**"), std::string("plain")}) {
    SCOPED_TRACE(text);
    std::string escaped = EscapeGlob(text);
    for (auto style : {Pattern::Style::kText, Pattern::Style::kPath}) {
      auto pattern = Pattern::Compile(escaped, style);
      ASSERT_TRUE(pattern.ok()) << pattern.status();
      EXPECT_FALSE(pattern->is_regex());
      EXPECT_TRUE(pattern->Matches(text));
      EXPECT_FALSE(pattern->Matches(text + "x"));
    }
  }
  EXPECT_FALSE(Text(EscapeGlob("rm -rf *")).Matches("rm -rf /"));
  EXPECT_EQ(EscapeGlob("a*b"), "a\\*b");
}

TEST(PatternTest, GlobsMatchBytesThatAreNotUtf8) {
  std::string invalid =
      "a\xff"
      "b";
  EXPECT_TRUE(Text("a*b").Matches(invalid));
  EXPECT_TRUE(Text("a?b").Matches(invalid));
  EXPECT_TRUE(Path("/tmp/*").Matches("/tmp/" + invalid));
  EXPECT_FALSE(Text("ab").Matches(invalid));
  EXPECT_TRUE(Text(invalid).Matches(invalid));
  EXPECT_TRUE(Path("/d/" + invalid + "/**").Matches("/d/" + invalid + "/x"));
}

}  // namespace
}  // namespace raw

namespace raw {
namespace {

// Globs that are a literal text, or a literal text and a trailing run of
// stars that takes anything, are answered by comparing bytes; the answers
// are those of the RE2 program the glob translates to, kept here as the
// reference: the literal quoted, in Latin-1, then "(?s:.*)" for such a run.
TEST(PatternTest, LiteralAndTrailingRunGlobsAnswerAsTheirProgram) {
  struct Case {
    std::string glob;
    Pattern::Style style;
    std::string literal;  // the glob's text, unescaped, without the run
    bool run;
  };
  const std::string nul_and_high = std::string("a\0b\xff", 4);
  const Case cases[] = {
      {"/home/u/.ssh", Pattern::Style::kPath, "/home/u/.ssh", false},
      {"/home/u/.ssh/**", Pattern::Style::kPath, "/home/u/.ssh/", true},
      {"/home/u/.ssh**", Pattern::Style::kPath, "/home/u/.ssh", true},
      {"**", Pattern::Style::kPath, "", true},
      {"git status *", Pattern::Style::kText, "git status ", true},
      {"builtin/*", Pattern::Style::kText, "builtin/", true},
      {"a\\*b\\?", Pattern::Style::kPath, "a*b?", false},
      {"a\\**", Pattern::Style::kText, "a*", true},
      {"a\\***", Pattern::Style::kPath, "a*", true},
      {nul_and_high, Pattern::Style::kText, nul_and_high, false},
      {nul_and_high + "/**", Pattern::Style::kPath, nul_and_high + "/", true},
  };
  const std::vector<std::string> subjects = {
      "",
      "/home/u/.ssh",
      "/home/u/.ssh/",
      "/home/u/.ssh/id_ed25519",
      "/home/u/.ssh/a/b",
      "/home/u/.sshx",
      "/home/u/.ss",
      "/HOME/u/.ssh",
      "git status ",
      "git status -s src/a.cc",
      "git status",
      "builtin/bash",
      "builtin",
      "a*b?",
      "axbx",
      "a*",
      "a*/x",
      "ab",
      nul_and_high,
      nul_and_high + "/",
      nul_and_high + "/x\n",
      std::string("a\0", 2),
  };
  for (const Case& c : cases) {
    absl::StatusOr<Pattern> pattern = Pattern::Compile(c.glob, c.style);
    ASSERT_TRUE(pattern.ok()) << pattern.status();
    RE2::Options latin1;
    latin1.set_encoding(RE2::Options::EncodingLatin1);
    const RE2 reference(RE2::QuoteMeta(c.literal) + (c.run ? "(?s:.*)" : ""), latin1);
    ASSERT_TRUE(reference.ok()) << reference.error();
    for (const std::string& subject : subjects) {
      EXPECT_EQ(pattern->Matches(subject),
                RE2::FullMatch(re2::StringPiece(subject.data(), subject.size()), reference))
          << "glob \"" << absl::CHexEscape(c.glob) << "\" subject \"" << absl::CHexEscape(subject)
          << "\"";
    }
  }
  // A single trailing star of a path glob stays within a directory: no
  // shortcut may take it for a prefix.
  EXPECT_TRUE(Path("/home/u/*").Matches("/home/u/a"));
  EXPECT_FALSE(Path("/home/u/*").Matches("/home/u/a/b"));
  EXPECT_FALSE(Path("/home/u/.ssh/**").Matches("/home/u/.ssh"));
  EXPECT_FALSE(Path("a\\**").Matches("a*/x"));
}

// The cache answers as Compile does, for a style and a text each, errors
// included, and stays correct past its size.
TEST(PatternCacheTest, CachedPatternsMatchAsCompiledOnesDo) {
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<Pattern> path = Pattern::CompileCached("/home/u/*.env", Pattern::Style::kPath);
    ASSERT_TRUE(path.ok());
    EXPECT_TRUE(path->Matches("/home/u/.env"));
    EXPECT_FALSE(path->Matches("/home/u/sub/.env"));  // `*` stays within a directory
    absl::StatusOr<Pattern> text = Pattern::CompileCached("/home/u/*.env", Pattern::Style::kText);
    ASSERT_TRUE(text.ok());
    EXPECT_TRUE(text->Matches("/home/u/sub/.env"));
    absl::StatusOr<Pattern> bad = Pattern::CompileCached("re:(", Pattern::Style::kText);
    EXPECT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().message(),
              Pattern::Compile("re:(", Pattern::Style::kText).status().message());
  }
  for (size_t i = 0; i < Pattern::kCachedPatterns + 10; ++i) {
    const std::string text = absl::StrCat("file", i, ".txt");
    absl::StatusOr<Pattern> p = Pattern::CompileCached(text, Pattern::Style::kPath);
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(p->Matches(text));
    EXPECT_FALSE(p->Matches(absl::StrCat("file", i + 1, ".txt")));
  }
}

}  // namespace
}  // namespace raw
