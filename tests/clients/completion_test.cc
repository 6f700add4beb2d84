#include "clients/cli/completion_command.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/cli/command_table.h"
#include "clients/cli/dispatch.h"
#include "gtest/gtest.h"
#include "tests/clients/temp_dir.h"

namespace raw::cli {
namespace {

// Runs bash with the completion script loaded and COMP_WORDS set to
// `words` (the last one is the word being completed); prints COMPREPLY.
std::string BashCompletions(const std::string& script_path, const std::string& words) {
  const std::string command = absl::StrCat(
      "bash -c 'source ", script_path, " && COMP_WORDS=(", words,
      ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _raw && echo \"${COMPREPLY[*]}\"' 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  pclose(pipe);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(CommandTableTest, EveryCommandOfTheTableRunsAndIsInTheHelp) {
  const EnvLookup no_env = [](const std::string&) -> std::optional<std::string> {
    return std::nullopt;
  };
  std::ostringstream help_out, help_err;
  ASSERT_EQ(Dispatch({"--help"}, help_out, help_err, no_env), 0);
  for (const CommandEntry& entry : CommandTable()) {
    EXPECT_NE(help_out.str().find("  " + entry.name), std::string::npos) << entry.name;
    // Its --help is another program's, which would take this process over.
    if (entry.replaces_process) continue;
    std::ostringstream out, err;
    EXPECT_EQ(Dispatch({entry.name, "--help"}, out, err, no_env), 0) << entry.name << err.str();
    EXPECT_NE(out.str().find("usage: raw " + entry.name), std::string::npos) << out.str();
  }
  std::ostringstream out, err;
  EXPECT_EQ(Dispatch({"nosuchcommand"}, out, err, no_env), 2);
}

TEST(CompletionTest, BashCompletesCommandsActionsOptionsAndPaths) {
  testing::TempDir dir;
  const std::string script = dir.File("raw.bash");
  std::ofstream(script) << CompletionScript(Shell::kBash);
  std::ofstream(dir.File("config-one.json")) << "{}";

  EXPECT_EQ(BashCompletions(script, "raw da"), "daemon dashboard");
  EXPECT_EQ(BashCompletions(script, "raw dae"), "daemon");
  EXPECT_EQ(BashCompletions(script, "raw --socket /tmp/x co"), "config completion");
  EXPECT_EQ(BashCompletions(script, "raw acp --l"), "--listen");
  EXPECT_EQ(BashCompletions(script, "raw daemon in"), "install-service");
  EXPECT_EQ(BashCompletions(script, "raw daemon install-service --socket-"), "--socket-activated");
  EXPECT_EQ(BashCompletions(script, "raw run --a"), "--agent");
  EXPECT_EQ(BashCompletions(script, "raw config check --config " + dir.File("config-")),
            dir.File("config-one.json"));
  EXPECT_EQ(BashCompletions(script, "raw completion \"\""), "bash zsh fish --help -h");
  // After the action, only options.
  EXPECT_EQ(BashCompletions(script, "raw sessions list s"), "");

  const std::string loaded = absl::StrCat("bash -c 'source ", script, " && complete -p raw'");
  FILE* pipe = popen(loaded.c_str(), "r");
  char buf[256] = {};
  fread(buf, 1, sizeof(buf) - 1, pipe);
  pclose(pipe);
  EXPECT_EQ(std::string(buf), "complete -F _raw raw\n");
}

TEST(CompletionTest, ZshAndFishScriptsNameEveryCommandActionAndOption) {
  const std::string zsh = CompletionScript(Shell::kZsh);
  const std::string fish = CompletionScript(Shell::kFish);
  EXPECT_EQ(zsh.rfind("#compdef raw\n", 0), 0u);
  for (const CommandEntry& entry : CommandTable()) {
    EXPECT_NE(zsh.find("'" + entry.name + ":"), std::string::npos) << entry.name;
    EXPECT_NE(fish.find("-a " + entry.name + " -d"), std::string::npos) << entry.name;
    for (const std::string& action : entry.actions) {
      EXPECT_NE(zsh.find(action), std::string::npos) << action;
      EXPECT_NE(fish.find(action), std::string::npos) << action;
    }
    for (const OptionSpec& option : entry.options()) {
      EXPECT_NE(zsh.find("'" + option.name), std::string::npos) << entry.name << option.name;
      EXPECT_NE(fish.find("__fish_seen_subcommand_from " + entry.name + "' -l " +
                          option.name.substr(2)),
                std::string::npos)
          << entry.name << option.name;
    }
  }
  EXPECT_NE(fish.find("-l cwd -r -x -a '(__fish_complete_directories)'"), std::string::npos);
}

}  // namespace
}  // namespace raw::cli
