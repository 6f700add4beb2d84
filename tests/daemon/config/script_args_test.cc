// ScriptArguments, and the config resolving what it finds like a program
// path: a hook `["sh", "hooks/guard.sh"]` runs the config's script, not the
// project's.
#include "daemon/config/script_args.h"

#include <string>
#include <vector>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<size_t> Found(std::vector<std::string> argv) { return ScriptArguments(argv); }

TEST(ScriptArgumentsTest, TheScriptOfAnInterpreterIsFoundPastItsOptions) {
  EXPECT_THAT(Found({"sh", "hooks/guard.sh"}), ElementsAre(1));
  EXPECT_THAT(Found({"/bin/bash", "-e", "-o", "pipefail", "+o", "posix", "g.sh", "-c"}),
              ElementsAre(6));
  EXPECT_THAT(Found({"bash", "--norc", "--rcfile", "rc", "--", "-x.sh"}), ElementsAre(5));
  EXPECT_THAT(Found({"python3.12", "-u", "-W", "ignore", "-Xdev", "check.py", "-c"}),
              ElementsAre(5));
  EXPECT_THAT(Found({"/usr/bin/node", "--require", "ts-node/register", "--max-old-space-size=64",
                     "hook.js"}),
              ElementsAre(4));
  EXPECT_THAT(Found({"deno", "run", "--config", "deno.json", "-A", "hook.ts"}), ElementsAre(5));
  EXPECT_THAT(Found({"bun", "run", "hook.ts"}), ElementsAre(2));
  EXPECT_THAT(Found({"perl", "-MFile::Temp", "-I", "lib", "-w", "hook.pl"}), ElementsAre(5));
  EXPECT_THAT(Found({"ruby", "-r", "json", "hook.rb"}), ElementsAre(3));
  EXPECT_THAT(Found({"php", "-d", "x=1", "-f", "hook.php"}), ElementsAre(4));
  EXPECT_THAT(Found({"lua5.4", "-l", "mod", "hook.lua"}), ElementsAre(3));
  EXPECT_THAT(Found({"tclsh", "-encoding", "utf-8", "hook.tcl"}), ElementsAre(3));
  EXPECT_THAT(Found({"pwsh", "-NoProfile", "-ExecutionPolicy", "Bypass", "-File", "h.ps1"}),
              ElementsAre(5));
  EXPECT_THAT(Found({"fish", "hook.fish"}), ElementsAre(1));
}

TEST(ScriptArgumentsTest, CodeInAnOptionOrOnStandardInputHasNoScript) {
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"sh", "-c", "hooks/x.sh"},
           {"bash", "-ec", "hooks/x.sh"},
           {"bash", "-s", "arg"},
           {"sh", "-"},
           {"sh"},
           {"python3", "-c", "print(1)"},
           {"python3", "-m", "tool"},
           {"node", "-e", "1"},
           {"node", "--eval", "1"},
           {"node", "-p", "1"},
           {"node", "--print", "1"},
           {"perl", "-le", "print 1"},
           {"perl", "-E", "say 1"},
           {"ruby", "-e", "1"},
           {"php", "-r", "echo 1;"},
           {"lua", "-e", "x=1"},
           {"deno", "eval", "1"},
           {"deno", "task", "lint"},
           {"bun", "-e", "1"},
           {"pwsh", "-Command", "Get-Date"},
           {"pwsh", "-c", "x.ps1"},
           {"git", "status"},
           {"hooks/guard.sh", "arg"},
           {"env", "-S", "sh x.sh"},
           {"env", "-C", "/tmp", "sh", "x.sh"},
       }) {
    EXPECT_THAT(ScriptArguments(argv), IsEmpty()) << argv[0] << " " << argv[1 % argv.size()];
  }
}

TEST(ScriptArgumentsTest, EnvIsTakenApart) {
  EXPECT_THAT(Found({"/usr/bin/env", "python3", "hook.py"}), ElementsAre(2));
  EXPECT_THAT(Found({"env", "-i", "-u", "HOME", "A=1", "bin/hook", "x"}), ElementsAre(5));
  EXPECT_THAT(Found({"env", "A=1", "--", "bash", "hook.sh"}), ElementsAre(4));
  EXPECT_THAT(Found({"env", "logger", "x"}), IsEmpty());
}

ParseContext Context() { return ParseContext{"/home/u/.config/raw", "/home/u"}; }

// The config resolves an interpreter's script as it resolves a program
// path: against its own directory, "~/" as home, an absolute one as is.
TEST(ScriptArgumentsTest, TheConfigResolvesAHooksAndAVariablesScript) {
  absl::StatusOr<Config> config = ParseConfig(R"({
    "hooks": {
      "guard": {"event": "pre_tool_use", "command": ["sh", "hooks/guard.sh", "x.sh"]},
      "bare": {"event": "pre_tool_use", "command": ["python3", "-u", "guard.py"]},
      "home": {"event": "pre_tool_use", "command": ["/bin/bash", "~/bin/g.sh"]},
      "abs": {"event": "pre_tool_use", "command": ["bash", "/opt/g.sh"]},
      "inline": {"event": "pre_tool_use", "command": ["sh", "-c", "hooks/x.sh"]},
      "env": {"event": "pre_tool_use", "command": ["env", "A=1", "node", "h.js"]}
    },
    "variables": {"K": {"command": ["sh", "bin/key.sh"]}}
  })",
                                              Context());
  ASSERT_TRUE(config.ok()) << config.status();
  const std::string dir = "/home/u/.config/raw";
  EXPECT_THAT(config->hooks.at("guard").command,
              ElementsAre("sh", dir + "/hooks/guard.sh", "x.sh"));
  EXPECT_THAT(config->hooks.at("bare").command, ElementsAre("python3", "-u", dir + "/guard.py"));
  EXPECT_THAT(config->hooks.at("home").command, ElementsAre("/bin/bash", "/home/u/bin/g.sh"));
  EXPECT_THAT(config->hooks.at("abs").command, ElementsAre("bash", "/opt/g.sh"));
  EXPECT_THAT(config->hooks.at("inline").command, ElementsAre("sh", "-c", "hooks/x.sh"));
  EXPECT_THAT(config->hooks.at("env").command, ElementsAre("env", "A=1", "node", dir + "/h.js"));
  EXPECT_THAT(config->variables.at("K").command, ElementsAre("sh", dir + "/bin/key.sh"));
}

TEST(ScriptArgumentsTest, AScriptThatCannotBeResolvedIsAProblem) {
  std::vector<ConfigProblem> problems;
  EXPECT_FALSE(ParseConfig(R"({"hooks": {"h": {"event": "turn_end", "command": ["sh", "~me/x"]}}})",
                           Context(), &problems)
                   .ok());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "hooks.h.command[1]");
}

}  // namespace
}  // namespace raw::config
