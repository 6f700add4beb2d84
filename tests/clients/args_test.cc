#include "clients/cli/args.h"

#include "clients/cli/run_command.h"
#include "gtest/gtest.h"

namespace raw::cli {
namespace {

const std::vector<OptionSpec> kSpecs = {
    {"--json", OptionSpec::Kind::kFlag, ""},
    {"--agent", OptionSpec::Kind::kValue, ""},
    {"--help", OptionSpec::Kind::kFlag, "-h"},
};

TEST(ParseArgsTest, FlagsValuesAndPositionals) {
  auto parsed = ParseArgs({"show", "--agent", "coder", "id1", "--json"}, kSpecs,
                          OptionOrder::kAnywhere);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->Has("--json"));
  EXPECT_EQ(parsed->Value("--agent"), "coder");
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"show", "id1"}));
}

TEST(ParseArgsTest, InlineValueAndAlias) {
  auto parsed = ParseArgs({"--agent=a=b", "-h"}, kSpecs, OptionOrder::kAnywhere);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Value("--agent"), "a=b");
  EXPECT_TRUE(parsed->Has("--help"));
}

TEST(ParseArgsTest, DoubleDashEndsOptions) {
  auto parsed = ParseArgs({"--", "--json", "-"}, kSpecs, OptionOrder::kAnywhere);
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->Has("--json"));
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"--json", "-"}));
}

TEST(ParseArgsTest, BeforePositionalsKeepsTheRestVerbatim) {
  auto parsed =
      ParseArgs({"--json", "explain", "--force", "-h"}, kSpecs, OptionOrder::kBeforePositionals);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->Has("--json"));
  EXPECT_FALSE(parsed->Has("--help"));
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"explain", "--force", "-h"}));
}

TEST(ParseArgsTest, ErrorsNameTheProblem) {
  EXPECT_EQ(ParseArgs({"--bogus"}, kSpecs, OptionOrder::kAnywhere).status().message(),
            "unknown option --bogus");
  EXPECT_EQ(ParseArgs({"--bogus=1"}, kSpecs, OptionOrder::kAnywhere).status().message(),
            "unknown option --bogus");
  EXPECT_EQ(ParseArgs({"--agent"}, kSpecs, OptionOrder::kAnywhere).status().message(),
            "option --agent needs a value");
  EXPECT_EQ(ParseArgs({"--json=yes"}, kSpecs, OptionOrder::kAnywhere).status().message(),
            "option --json takes no value");
  EXPECT_EQ(
      ParseArgs({"--agent", "a", "--agent", "b"}, kSpecs, OptionOrder::kAnywhere).status().message(),
      "option --agent is given twice");
}

TEST(ParseRunArgsTest, JoinsThePromptAndResolvesTheDirectory) {
  auto options = ParseRunArgs({"--agent", "coder", "--cwd", "../src", "--json", "fix", "the",
                               "--failing", "test"},
                              "/home/u/project");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->agent, "coder");
  EXPECT_EQ(options->cwd, "/home/u/src");
  EXPECT_EQ(options->format, OutputFormat::kJson);
  EXPECT_EQ(options->prompt, "fix the --failing test");
  EXPECT_TRUE(options->session_id.empty());
}

TEST(ParseRunArgsTest, DefaultsToTheCurrentDirectoryAndText) {
  auto options = ParseRunArgs({"hello"}, "/work/dir");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->cwd, "/work/dir");
  EXPECT_EQ(options->format, OutputFormat::kText);
  EXPECT_TRUE(options->agent.empty());
}

TEST(ParseRunArgsTest, DirectoryHasNoTrailingSlash) {
  auto options = ParseRunArgs({"--cwd", "./", "p"}, "/work/dir");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->cwd, "/work/dir");
  options = ParseRunArgs({"--cwd", "/", "p"}, "/work/dir");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->cwd, "/");
}

TEST(ParseRunArgsTest, ContinuingASession) {
  auto options = ParseRunArgs({"--session", "01abc", "--socket", "/s.sock", "more"}, "/d");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->session_id, "01abc");
  EXPECT_EQ(options->socket, "/s.sock");
  EXPECT_EQ(options->prompt, "more");
}

TEST(ParseRunArgsTest, RefusesMeaninglessCombinations) {
  EXPECT_NE(ParseRunArgs({"--session", "x", "--agent", "a", "p"}, "/d")
                .status()
                .message()
                .find("--agent cannot be combined with --session"),
            std::string::npos);
  EXPECT_NE(ParseRunArgs({"--session", "x", "--cwd", "/t", "p"}, "/d")
                .status()
                .message()
                .find("--cwd cannot be combined with --session"),
            std::string::npos);
}

TEST(ParseRunArgsTest, PromptIsRequired) {
  EXPECT_EQ(ParseRunArgs({}, "/d").status().message(), "a prompt is required");
  EXPECT_EQ(ParseRunArgs({"--json", " "}, "/d").status().message(), "a prompt is required");
}

TEST(ParseRunArgsTest, HelpNeedsNoPrompt) {
  auto options = ParseRunArgs({"--help"}, "/d");
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->help);
}

}  // namespace
}  // namespace raw::cli
