// ScriptArguments behind the wrappers that start a program given as their
// arguments (timeout, nice, nohup, setsid, stdbuf, ionice, chrt, taskset,
// flock, env), and UnresolvedArguments where a command cannot be taken
// apart reliably (env -C, env -S, xargs, an option not known).
#include <string>
#include <vector>

#include "daemon/config/config_loader.h"
#include "daemon/config/script_args.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using Argv = std::vector<std::string>;

std::vector<size_t> Scripts(const Argv& argv) { return ScriptArguments(argv); }

std::vector<size_t> Unresolved(const Argv& argv) {
  std::vector<size_t> indices;
  for (const UnresolvedArgument& u : UnresolvedArguments(argv)) indices.push_back(u.index);
  return indices;
}

// Found behind the wrapper and nothing left unresolved.
void ExpectFound(const Argv& argv, const std::vector<size_t>& expected) {
  EXPECT_EQ(Scripts(argv), expected) << ::testing::PrintToString(argv);
  EXPECT_THAT(Unresolved(argv), IsEmpty()) << ::testing::PrintToString(argv);
}

// Refused: `expected` unresolved, and nothing resolved.
void ExpectUnresolved(const Argv& argv, const std::vector<size_t>& expected) {
  EXPECT_EQ(Unresolved(argv), expected) << ::testing::PrintToString(argv);
  EXPECT_THAT(Scripts(argv), IsEmpty()) << ::testing::PrintToString(argv);
}

TEST(ScriptWrappersTest, TimeoutIsTakenApartPastItsOptionsAndDuration) {
  ExpectFound({"timeout", "5", "sh", "hooks/guard.sh"}, {3});
  ExpectFound({"timeout", "-s", "KILL", "-k", "2", "5", "python3", "x.py"}, {7});
  ExpectFound({"timeout", "-sKILL", "-vk2", "5", "python3", "x.py"}, {5});
  ExpectFound({"timeout", "--signal=TERM", "--kill-after=1", "5s", "bash", "g.sh"}, {5});
  ExpectFound({"timeout", "--signal", "TERM", "--kill-after", "1", "5", "bash", "g.sh"}, {7});
  ExpectFound({"timeout", "--preserve-status", "--foreground", "-v", "1m", "sh", "g.sh"}, {6});
  ExpectFound({"timeout", "--sig=KILL", "--pres", "5", "sh", "g.sh"}, {5});  // prefixes
  ExpectFound({"/usr/bin/timeout", "--", "5", "bin/hook", "x"}, {3});        // the program
}

TEST(ScriptWrappersTest, NiceNohupSetsidAndStdbufAreTakenApart) {
  ExpectFound({"nice", "-n", "5", "python3", "x.py"}, {4});
  ExpectFound({"nice", "-n5", "sh", "x.sh"}, {3});
  ExpectFound({"nice", "-10", "sh", "x.sh"}, {3});
  ExpectFound({"nice", "--5", "sh", "x.sh"}, {3});
  ExpectFound({"nice", "--adjustment=3", "sh", "x.sh"}, {3});
  ExpectFound({"nice", "--adjustment", "3", "sh", "x.sh"}, {4});
  ExpectFound({"nice", "sh", "x.sh"}, {2});
  ExpectFound({"nohup", "sh", "x.sh"}, {2});
  ExpectFound({"nohup", "--", "bin/x"}, {2});
  ExpectFound({"setsid", "-f", "-w", "sh", "x.sh"}, {4});
  ExpectFound({"setsid", "--fork", "-cw", "sh", "x.sh"}, {4});
  ExpectFound({"stdbuf", "-oL", "-e", "0", "python3", "x.py"}, {5});
  ExpectFound({"stdbuf", "--output=L", "--input", "0", "sh", "x.sh"}, {5});
}

TEST(ScriptWrappersTest, IoniceChrtTasksetAndFlockAreTakenApart) {
  ExpectFound({"ionice", "-c", "3", "-n", "7", "-t", "sh", "x.sh"}, {7});
  ExpectFound({"ionice", "-c3", "sh", "x.sh"}, {3});
  ExpectFound({"ionice", "--class", "idle", "--classdata=4", "sh", "x.sh"}, {5});
  ExpectFound({"chrt", "-f", "10", "sh", "x.sh"}, {4});
  ExpectFound({"chrt", "--rr", "-R", "5", "python3", "x.py"}, {5});
  ExpectFound({"chrt", "-T", "100", "-P", "200", "-D", "150", "--deadline", "0", "sh", "x.sh"},
              {10});
  ExpectFound({"chrt", "--other", "sh", "x.sh"}, {3});  // no priority: the program
  ExpectFound({"taskset", "0x3", "sh", "x.sh"}, {3});
  ExpectFound({"taskset", "-c", "0,1", "sh", "x.sh"}, {4});
  ExpectFound({"taskset", "--cpu-list", "0-3", "bin/x"}, {3});
  ExpectFound({"flock", "/tmp/lock", "sh", "x.sh"}, {3});
  ExpectFound({"flock", "-w", "5", "-E", "9", "-x", "lockfile", "python3", "x.py"}, {8});
  ExpectFound({"flock", "--timeout=5", "--nb", "lockfile", "bin/x"}, {4});
}

TEST(ScriptWrappersTest, WrappersNest) {
  ExpectFound({"timeout", "5", "nice", "sh", "x.sh"}, {4});
  ExpectFound({"env", "FOO=1", "timeout", "5", "sh", "x.sh"}, {5});
  ExpectFound({"timeout", "5", "env", "-u", "HOME", "./bin/tool"}, {5});
  ExpectFound({"/usr/bin/timeout", "5", "./bin/nice", "-n", "1", "sh", "x.sh"}, {2, 6});
  ExpectFound({"nohup", "setsid", "stdbuf", "-oL", "ionice", "-c3", "chrt", "-o", "0", "taskset",
               "1", "flock", "l", "env", "A=1", "nice", "sh", "x.sh"},
              {17});
}

// A duration, priority, mask, lock file or option value is never taken for
// a script, and a wrapper that runs no program (or runs code) has none.
TEST(ScriptWrappersTest, OperandsOptionValuesAndCodeAreNeverScripts) {
  ExpectFound({"timeout", "x.sh", "sh", "y.sh"}, {3});
  ExpectFound({"timeout", "-s", "sh", "5", "sh", "y.sh"}, {5});
  ExpectFound({"timeout", "-k", "bin/x", "5", "sh", "y.sh"}, {5});
  ExpectFound({"nice", "-n", "x.sh", "sh", "y.sh"}, {4});
  ExpectFound({"stdbuf", "-o", "sh", "sh", "y.sh"}, {4});
  ExpectFound({"ionice", "-c", "sh", "-n", "x.sh", "sh", "y.sh"}, {6});
  ExpectFound({"chrt", "-T", "x.sh", "5", "sh", "y.sh"}, {5});
  ExpectFound({"taskset", "-c", "1", "sh", "y.sh"}, {4});
  ExpectFound({"flock", "hooks/lock.sh", "sh", "y.sh"}, {3});
  ExpectFound({"flock", "-w", "sh", "lock", "sh", "y.sh"}, {5});
  for (const Argv& argv : std::vector<Argv>{
           {"timeout", "5", "true"},
           {"timeout", "x.sh", "true"},
           {"timeout", "-s", "sh", "5", "true"},
           {"timeout", "5"},
           {"timeout", "--help"},
           {"timeout", "5", "sh", "-c", "hooks/x.sh"},
           {"nice", "-n", "x.sh", "true"},
           {"nice"},
           {"stdbuf", "-o", "sh", "true"},
           {"ionice", "-p", "1", "sh", "x.sh"},
           {"ionice", "-c", "sh", "true"},
           {"chrt", "5", "true"},
           {"chrt", "-p", "5", "123"},
           {"chrt", "-m"},
           {"taskset", "-c", "1", "true"},
           {"taskset", "-p", "3", "123"},
           {"flock", "hooks/lock.sh", "true"},
           {"flock", "lock", "-c", "sh x.sh"},
           {"flock", "-w", "sh", "lock", "true"},
           {"setsid", "-h", "sh", "x.sh"},
           {"env", "--version", "sh", "x.sh"},
       }) {
    EXPECT_THAT(Scripts(argv), IsEmpty()) << ::testing::PrintToString(argv);
    EXPECT_THAT(Unresolved(argv), IsEmpty()) << ::testing::PrintToString(argv);
  }
}

// env -C runs its program in another directory: a relative program or
// script is relative to that, and is refused rather than resolved.
TEST(ScriptWrappersTest, BehindEnvChdirARelativeScriptIsUnresolved) {
  ExpectUnresolved({"env", "-C", "/srv", "sh", "x.sh"}, {4});
  ExpectUnresolved({"env", "-C/srv", "A=1", "python3", "~/x.py"}, {4});
  ExpectUnresolved({"env", "--chdir=/srv", "bin/x"}, {2});
  ExpectUnresolved({"env", "--ch", "/srv", "timeout", "5", "sh", "x.sh"}, {6});
  ExpectUnresolved({"timeout", "5", "env", "-iC", "/srv", "sh", "x.sh"}, {6});
  ExpectFound({"env", "-C", "/srv", "sh", "/opt/x.sh"}, {});
  ExpectFound({"env", "-C", "sub", "true", "a/b"}, {});
  const std::vector<UnresolvedArgument> u = UnresolvedArguments({"env", "-C", "/srv", "sh", "x"});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_THAT(u[0].reason, HasSubstr("env -C"));
}

// env -S splits its string: what follows the string is read as usual;
// a relative program or script inside it cannot be rewritten.
TEST(ScriptWrappersTest, EnvSplitStringIsSplitAndWhatIsInItUnresolved) {
  ExpectUnresolved({"env", "-S", "sh x.sh"}, {2});
  ExpectUnresolved({"env", "-Ssh x.sh"}, {1});
  ExpectUnresolved({"env", "--split-string=sh -e x.sh"}, {1});
  ExpectUnresolved({"env", "-S", "A=1 timeout 5 bin/tool"}, {2});
  ExpectUnresolved({"env", "-S", "-C /srv", "sh", "x.sh"}, {4});
  ExpectFound({"env", "-S", "sh -e", "x.sh"}, {3});
  ExpectFound({"env", "-S", "timeout 5 python3 -u", "x.py"}, {3});
  ExpectFound({"env", "-S", "sh /opt/x.sh"}, {});
  ExpectFound({"env", "-S", "printf hi"}, {});
  // Quotes, escapes and variables are not followed: the string is refused
  // when a word of it holds a '/' or reads as a script, and so is what
  // follows it.
  ExpectUnresolved({"env", "-S", "sh 'x.sh'"}, {2});
  ExpectUnresolved({"env", "-S", "grep -q 'a b' sub/file"}, {2});
  ExpectUnresolved({"env", "-S", "'sh' -e", "x.sh"}, {3});
  ExpectFound({"env", "-S", "printf '%s' hi"}, {});
}

// xargs adds what it reads to its command, and an option not known leaves
// the command's start unknown: relative paths and scripts after them are
// refused; a command with none stays allowed.
TEST(ScriptWrappersTest, AfterXargsOrAnUnknownOptionRelativePathsAreUnresolved) {
  ExpectUnresolved({"xargs", "sh", "x.sh"}, {2});
  ExpectUnresolved({"xargs", "-n", "1", "python3", "x.py"}, {4});
  ExpectUnresolved({"xargs", "-I{}", "sh", "{}"}, {3});
  ExpectUnresolved({"xargs", "bin/tool", "/opt/a"}, {1});
  ExpectUnresolved({"xargs", "timeout", "5", "env", "-S", "sh x.sh"}, {5});
  ExpectUnresolved({"timeout", "--frobnicate", "5", "sh", "x.sh"}, {4});
  ExpectUnresolved({"nice", "-z", "sh", "x.sh"}, {3});
  ExpectUnresolved({"nohup", "-x", "bin/x"}, {2});
  ExpectUnresolved({"env", "--frobnicate", "sh", "x.sh"}, {3});
  ExpectUnresolved({"env", "A=1", "timeout", "5", "xargs", "sh", "x.sh"}, {6});
  ExpectFound({"xargs", "rm"}, {});
  ExpectFound({"xargs", "-0", "-n1", "echo"}, {});
  ExpectFound({"timeout", "--bogus", "5", "true"}, {});
  const std::vector<UnresolvedArgument> u = UnresolvedArguments({"timeout", "-Z", "sh", "x"});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_THAT(u[0].reason, HasSubstr("\"-Z\", an option of timeout"));
}

// sudo, strace, watch and the like start a program given among their
// arguments, behind options too varied to read: what could be a relative
// script there is refused, as after xargs; absolute paths and bare names
// stay allowed.
TEST(ScriptWrappersTest, AfterSudoStraceOrWatchRelativeScriptsAreUnresolved) {
  ExpectUnresolved({"sudo", "-u", "ci", "sh", "x.sh"}, {4});
  ExpectUnresolved({"sudo", "hooks/guard"}, {1});
  ExpectUnresolved({"/usr/bin/strace", "-f", "-o", "/tmp/t", "python3", "x.py"}, {5});
  ExpectUnresolved({"watch", "-n", "5", "bin/check"}, {3});
  ExpectUnresolved({"timeout", "5", "doas", "bash", "x.sh"}, {4});
  ExpectFound({"sudo", "-u", "ci", "/opt/hooks/guard.sh"}, {});
  ExpectFound({"strace", "-c", "true"}, {});
  const std::vector<UnresolvedArgument> u = UnresolvedArguments({"sudo", "sh", "x.sh"});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_THAT(u[0].reason, HasSubstr("after sudo, whose options Raw does not read"));
}

ParseContext ConfigContext() { return ParseContext{"/home/u/.config/raw", "/home/u"}; }

// The config resolves a script behind a wrapper, and refuses a command
// whose relative script it cannot resolve, naming the argument.
TEST(ScriptWrappersTest, TheConfigResolvesBehindWrappersAndRefusesWhatItCannot) {
  absl::StatusOr<Config> config = ParseConfig(R"({
    "hooks": {
      "guard": {"event": "pre_tool_use", "command": ["timeout", "5", "sh", "hooks/guard.sh"]},
      "plain": {"event": "pre_tool_use", "command": ["timeout", "5", "true"]}
    },
    "variables": {"K": {"command": ["nice", "-n", "5", "python3", "key.py"]}}
  })",
                                              ConfigContext());
  ASSERT_TRUE(config.ok()) << config.status();
  const std::string dir = "/home/u/.config/raw";
  EXPECT_THAT(config->hooks.at("guard").command,
              ElementsAre("timeout", "5", "sh", dir + "/hooks/guard.sh"));
  EXPECT_THAT(config->hooks.at("plain").command, ElementsAre("timeout", "5", "true"));
  EXPECT_THAT(config->variables.at("K").command,
              ElementsAre("nice", "-n", "5", "python3", dir + "/key.py"));

  std::vector<ConfigProblem> problems;
  EXPECT_FALSE(ParseConfig(R"({
    "hooks": {"h": {"event": "turn_end", "command": ["xargs", "sh", "hooks/x.sh"]}},
    "variables": {"K": {"command": ["env", "-C", "/srv", "sh", "key.sh"]}}
  })",
                           ConfigContext(), &problems)
                   .ok());
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].path, "hooks.h.command[2]");
  EXPECT_THAT(problems[0].message, HasSubstr("\"hooks/x.sh\" is a relative path after xargs"));
  EXPECT_THAT(problems[0].message, HasSubstr("write it as an absolute path"));
  EXPECT_EQ(problems[1].path, "variables.K.command[4]");
  EXPECT_THAT(problems[1].message, HasSubstr("\"key.sh\" is a relative path after env -C"));
}

}  // namespace
}  // namespace raw::config
