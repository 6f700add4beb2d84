#include "daemon/app/daemon_options.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/store/session_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::app {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<DaemonOptions> Parse(const std::vector<std::string>& args) {
  return ParseDaemonOptions(args);
}

// Expects `args` to be refused as kInvalidArgument with exactly `message`.
void ExpectRefused(const std::vector<std::string>& args, const std::string& message) {
  absl::StatusOr<DaemonOptions> options = Parse(args);
  ASSERT_FALSE(options.ok()) << "accepted: " << ::testing::PrintToString(args);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(options.status().message(), message) << ::testing::PrintToString(args);
}

TEST(ParseDaemonOptionsTest, NoArgumentsGiveDefaults) {
  absl::StatusOr<DaemonOptions> options = Parse({});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->socket_path, "");
  EXPECT_EQ(options->config_path, "");
  EXPECT_FALSE(options->foreground);
  EXPECT_EQ(options->ready_fd, -1);
  EXPECT_FALSE(options->help);
  EXPECT_FALSE(options->version);
}

TEST(ParseDaemonOptionsTest, SocketTakesSeparateOrAttachedValue) {
  absl::StatusOr<DaemonOptions> separate = Parse({"--socket", "/run/a.sock"});
  ASSERT_TRUE(separate.ok()) << separate.status();
  EXPECT_EQ(separate->socket_path, "/run/a.sock");

  absl::StatusOr<DaemonOptions> attached = Parse({"--socket=/run/b.sock"});
  ASSERT_TRUE(attached.ok()) << attached.status();
  EXPECT_EQ(attached->socket_path, "/run/b.sock");
  EXPECT_EQ(attached->config_path, "");
}

TEST(ParseDaemonOptionsTest, ConfigTakesSeparateOrAttachedValue) {
  absl::StatusOr<DaemonOptions> separate = Parse({"--config", "conf/raw.json"});
  ASSERT_TRUE(separate.ok()) << separate.status();
  EXPECT_EQ(separate->config_path, "conf/raw.json");

  absl::StatusOr<DaemonOptions> attached = Parse({"--config=conf/other.json"});
  ASSERT_TRUE(attached.ok()) << attached.status();
  EXPECT_EQ(attached->config_path, "conf/other.json");
  EXPECT_EQ(attached->socket_path, "");
}

TEST(ParseDaemonOptionsTest, AttachedValueSplitsAtTheFirstEqualsSign) {
  absl::StatusOr<DaemonOptions> options = Parse({"--socket=/tmp/a=b.sock"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->socket_path, "/tmp/a=b.sock");
}

TEST(ParseDaemonOptionsTest, AllOptionsTogether) {
  absl::StatusOr<DaemonOptions> options =
      Parse({"--foreground", "--socket", "s.sock", "--config=c.json", "--ready-fd", "7"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->socket_path, "s.sock");
  EXPECT_EQ(options->config_path, "c.json");
  EXPECT_TRUE(options->foreground);
  EXPECT_EQ(options->ready_fd, 7);
  EXPECT_FALSE(options->help);
  EXPECT_FALSE(options->version);
}

TEST(ParseDaemonOptionsTest, LaterValueOverridesEarlierOne) {
  absl::StatusOr<DaemonOptions> options =
      Parse({"--socket", "first.sock", "--socket=second.sock", "--ready-fd=3", "--ready-fd", "4"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->socket_path, "second.sock");
  EXPECT_EQ(options->ready_fd, 4);
}

TEST(ParseDaemonOptionsTest, FlagsSetTheirFields) {
  absl::StatusOr<DaemonOptions> foreground = Parse({"--foreground"});
  ASSERT_TRUE(foreground.ok()) << foreground.status();
  EXPECT_TRUE(foreground->foreground);
  EXPECT_FALSE(foreground->help);

  absl::StatusOr<DaemonOptions> help = Parse({"--help"});
  ASSERT_TRUE(help.ok()) << help.status();
  EXPECT_TRUE(help->help);
  EXPECT_FALSE(help->version);

  absl::StatusOr<DaemonOptions> short_help = Parse({"-h"});
  ASSERT_TRUE(short_help.ok()) << short_help.status();
  EXPECT_TRUE(short_help->help);

  absl::StatusOr<DaemonOptions> version = Parse({"--version"});
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_TRUE(version->version);
  EXPECT_FALSE(version->help);
}

TEST(ParseDaemonOptionsTest, HelpDoesNotHideLaterErrors) {
  ExpectRefused({"--help", "--bogus"}, "unknown option --bogus");
}

TEST(ParseDaemonOptionsTest, FlagsRefuseAValue) {
  ExpectRefused({"--foreground=yes"}, "--foreground takes no value");
  ExpectRefused({"--help=1"}, "--help takes no value");
  ExpectRefused({"--version="}, "--version takes no value");
}

TEST(ParseDaemonOptionsTest, ReadyFdAcceptsNonNegativeNumbers) {
  absl::StatusOr<DaemonOptions> zero = Parse({"--ready-fd=0"});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(zero->ready_fd, 0);

  absl::StatusOr<DaemonOptions> separate = Parse({"--ready-fd", "12"});
  ASSERT_TRUE(separate.ok()) << separate.status();
  EXPECT_EQ(separate->ready_fd, 12);
}

TEST(ParseDaemonOptionsTest, ReadyFdRefusesWhatIsNotADescriptorNumber) {
  for (const std::string bad : {"-1", "abc", "3x", "1.5", "", "99999999999", "0x3"}) {
    ExpectRefused({"--ready-fd", bad},
                  absl::StrCat("--ready-fd needs a file descriptor number, got \"", bad, "\""));
    ExpectRefused({absl::StrCat("--ready-fd=", bad)},
                  absl::StrCat("--ready-fd needs a file descriptor number, got \"", bad, "\""));
  }
}

TEST(ParseDaemonOptionsTest, MissingValuesAreNamed) {
  ExpectRefused({"--socket"}, "--socket needs a value");
  ExpectRefused({"--config"}, "--config needs a value");
  ExpectRefused({"--ready-fd"}, "--ready-fd needs a value");
  ExpectRefused({"--foreground", "--config"}, "--config needs a value");
}

TEST(ParseDaemonOptionsTest, EmptyPathsAreRefused) {
  ExpectRefused({"--socket="}, "--socket needs a path");
  ExpectRefused({"--socket", ""}, "--socket needs a path");
  ExpectRefused({"--config="}, "--config needs a path");
  ExpectRefused({"--config", ""}, "--config needs a path");
}

TEST(ParseDaemonOptionsTest, UnknownOptionsAreNamedWithoutTheirValue) {
  ExpectRefused({"--bogus"}, "unknown option --bogus");
  ExpectRefused({"--bogus=secret"}, "unknown option --bogus");
  ExpectRefused({"-x"}, "unknown option -x");
  ExpectRefused({"--Socket", "a.sock"}, "unknown option --Socket");
  ExpectRefused({"--foreground", "--sock=a"}, "unknown option --sock");
}

TEST(ParseDaemonOptionsTest, PositionalArgumentsAreRefused) {
  ExpectRefused({"serve"}, "unexpected argument \"serve\" (rawd takes only options)");
  ExpectRefused({"--socket", "a.sock", "extra"},
                "unexpected argument \"extra\" (rawd takes only options)");
}

TEST(DaemonUsageTest, MentionsEveryOption) {
  std::string usage = DaemonUsage();
  EXPECT_THAT(usage, HasSubstr("Usage: rawd"));
  for (const char* option :
       {"--socket PATH", "--config PATH", "--foreground", "--ready-fd N", "--help", "--version"}) {
    EXPECT_THAT(usage, HasSubstr(option));
  }
}

// An environment made of `vars`; unset and empty variables are nullopt, as
// with the process environment.
EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

const std::map<std::string, std::string> kXdgEnv = {
    {"HOME", "/home/ada"},
    {"XDG_CONFIG_HOME", "/cfg"},
    {"XDG_STATE_HOME", "/state"},
    {"XDG_RUNTIME_DIR", "/run/user/1000"},
};

TEST(ResolveDaemonPathsTest, DefaultsComeFromTheXdgVariables) {
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths({}, Env(kXdgEnv), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->socket_path, "/run/user/1000/raw/rawd.sock");
  EXPECT_EQ(paths->config_path, "/cfg/raw/config.json");
  EXPECT_EQ(paths->state_dir, "/state/raw");
  EXPECT_EQ(paths->lock_path, "/state/raw/rawd.lock");
  EXPECT_EQ(paths->log_path, "/state/raw/rawd.log");
  EXPECT_EQ(paths->database_path, absl::StrCat("/state/raw/", store::DatabaseFileName()));
}

TEST(ResolveDaemonPathsTest, HomeIsTheFallback) {
  absl::StatusOr<DaemonPaths> paths =
      ResolveDaemonPaths({}, Env({{"HOME", "/home/ada"}}), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->config_path, "/home/ada/.config/raw/config.json");
  EXPECT_EQ(paths->state_dir, "/home/ada/.local/state/raw");
  EXPECT_EQ(paths->lock_path, "/home/ada/.local/state/raw/rawd.lock");
}

TEST(ResolveDaemonPathsTest, RawSocketVariableWinsOverTheRuntimeDir) {
  std::map<std::string, std::string> vars = kXdgEnv;
  vars["RAW_SOCKET"] = "/srv/raw.sock";
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths({}, Env(vars), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->socket_path, "/srv/raw.sock");
}

TEST(ResolveDaemonPathsTest, OptionsWinOverTheEnvironment) {
  std::map<std::string, std::string> vars = kXdgEnv;
  vars["RAW_SOCKET"] = "/srv/raw.sock";
  DaemonOptions options;
  options.socket_path = "/opt/mine.sock";
  options.config_path = "/opt/mine.json";
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths(options, Env(vars), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->socket_path, "/opt/mine.sock");
  EXPECT_EQ(paths->config_path, "/opt/mine.json");
  EXPECT_EQ(paths->state_dir, "/state/raw");  // no option moves the state
}

TEST(ResolveDaemonPathsTest, RelativeOptionPathsAreTakenAgainstCwd) {
  DaemonOptions options;
  options.socket_path = "run/rawd.sock";
  options.config_path = "../conf/./raw.json";
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths(options, Env(kXdgEnv), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->socket_path, "/work/dir/run/rawd.sock");
  EXPECT_EQ(paths->config_path, "/work/conf/raw.json");
}

TEST(ResolveDaemonPathsTest, AbsoluteOptionPathsAreNormalized) {
  DaemonOptions options;
  options.socket_path = "/a/./b/../rawd.sock";
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths(options, Env(kXdgEnv), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->socket_path, "/a/rawd.sock");
}

TEST(ResolveDaemonPathsTest, RelativeEnvironmentPathsAreMadeAbsolute) {
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths(
      {}, Env({{"HOME", "home"}, {"RAW_SOCKET", "sock/rawd.sock"}}), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->socket_path, "/work/dir/sock/rawd.sock");
  EXPECT_EQ(paths->config_path, "/work/dir/home/.config/raw/config.json");
  EXPECT_EQ(paths->state_dir, "/work/dir/home/.local/state/raw");
  EXPECT_EQ(paths->lock_path, "/work/dir/home/.local/state/raw/rawd.lock");
}

TEST(ResolveDaemonPathsTest, RelativeXdgStateHomeIsIgnored) {
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths(
      {}, Env({{"HOME", "/home/ada"}, {"XDG_STATE_HOME", "state"}}), "/work/dir");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(paths->state_dir, "/home/ada/.local/state/raw");
}

TEST(ResolveDaemonPathsTest, NoHomeAndNoXdgIsAClearError) {
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths({}, Env({}), "/work/dir");
  ASSERT_FALSE(paths.ok());
  EXPECT_EQ(paths.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(paths.status().message()), HasSubstr("HOME"));
}

}  // namespace
}  // namespace raw::app

namespace raw::app {
namespace {

TEST(ParseDaemonOptionsTest, IdleExitTakesSecondsAndIsOffByDefault) {
  absl::StatusOr<DaemonOptions> options = ParseDaemonOptions({});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->idle_exit_seconds, 0);
  EXPECT_EQ(options->listen_fd, -1) << "only systemd's variables pass a socket";
  options = ParseDaemonOptions({"--idle-exit", "900"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->idle_exit_seconds, 900);
  options = ParseDaemonOptions({"--idle-exit=soon"});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().message(), "--idle-exit needs a number of seconds, got \"soon\"");
  options = ParseDaemonOptions({"--idle-exit", "-5"});
  ASSERT_FALSE(options.ok());
}

}  // namespace
}  // namespace raw::app
