// ReadVariable: each source, the trailing line break, and every error, which
// names the variable and its source but never the value.
#include "daemon/vars/variable_reader.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/vars/vars_test_util.h"

namespace raw::vars {
namespace {

using ::raw::vars::testing::CommandVar;
using ::raw::vars::testing::EnvVar;
using ::raw::vars::testing::FakeEnv;
using ::raw::vars::testing::FileVar;
using ::raw::vars::testing::ShellVar;
using ::raw::vars::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Message(const absl::StatusOr<std::string>& value) {
  return std::string(value.status().message());
}

TEST(VariableReaderTest, EnvSource) {
  EXPECT_EQ(
      *ReadVariable(EnvVar("OPENAI", "OPENAI_API_KEY"), FakeEnv({{"OPENAI_API_KEY", "sk-1\n"}})),
      "sk-1\n");  // taken as it is
  absl::StatusOr<std::string> unset = ReadVariable(EnvVar("OPENAI", "OPENAI_API_KEY"), FakeEnv({}));
  EXPECT_EQ(unset.status(), absl::FailedPreconditionError(
                                "variable OPENAI: environment variable OPENAI_API_KEY is not set"));
  EXPECT_EQ(ReadVariable(EnvVar("OPENAI", "OPENAI_API_KEY"), FakeEnv({{"OPENAI_API_KEY", ""}}))
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(ReadVariable(EnvVar("OPENAI", "OPENAI_API_KEY"), EnvLookup()).ok());
}

TEST(VariableReaderTest, FileSourceDropsOneTrailingLineBreak) {
  TempDir dir;
  EXPECT_EQ(*ReadVariable(FileVar("K", dir.Write("a", "secret-a\n")), {}), "secret-a");
  EXPECT_EQ(*ReadVariable(FileVar("K", dir.Write("b", "secret-b\r\n")), {}), "secret-b");
  EXPECT_EQ(*ReadVariable(FileVar("K", dir.Write("c", "secret-c")), {}), "secret-c");
  EXPECT_EQ(*ReadVariable(FileVar("K", dir.Write("d", "line1\nline2\n\n")), {}), "line1\nline2\n");
}

TEST(VariableReaderTest, FileErrorsNameThePathNotTheContents) {
  TempDir dir;
  std::string missing = dir.path() + "/missing";
  absl::StatusOr<std::string> value = ReadVariable(FileVar("K", missing), {});
  EXPECT_EQ(value.status(), absl::FailedPreconditionError("variable K: cannot read file " +
                                                          missing + ": No such file or directory"));
  EXPECT_EQ(Message(ReadVariable(FileVar("K", dir.path()), {})),
            "variable K: cannot read file " + dir.path() + ": not a regular file");
  std::string empty = dir.Write("empty", "\n");
  EXPECT_EQ(Message(ReadVariable(FileVar("K", empty), {})),
            "variable K: file " + empty + " is empty");
  std::string big = dir.Write("big", std::string(kMaxValueBytes + 1, 'x'));
  EXPECT_THAT(Message(ReadVariable(FileVar("K", big), {})),
              HasSubstr("is larger than 1048576 bytes"));
}

TEST(VariableReaderTest, CommandSourceIsItsStandardOutput) {
  EXPECT_EQ(*ReadVariable(CommandVar("K", {"printf", "%s\\n", "tok-123"}), {}), "tok-123");
  EXPECT_EQ(*ReadVariable(ShellVar("K", "printf 'a b\\r\\n'; echo noise >&2"), {}), "a b");
}

TEST(VariableReaderTest, FailingCommandNamesStatusAndStderrButNotStdout) {
  absl::StatusOr<std::string> value = ReadVariable(
      ShellVar("GH",
               "echo partial-secret; echo 'warming up' >&2; echo 'gh: not logged in' >&2; "
               "exit 3"),
      {});
  EXPECT_EQ(value.status(), absl::FailedPreconditionError(
                                "variable GH: command sh exited with status 3: gh: not logged in"));
  EXPECT_THAT(Message(value), Not(HasSubstr("partial-secret")));
  EXPECT_EQ(Message(ReadVariable(ShellVar("GH", "exit 1"), {})),
            "variable GH: command sh exited with status 1");
}

TEST(VariableReaderTest, CommandTimeoutSignalAndStartFailure) {
  absl::StatusOr<std::string> slow =
      ReadVariable(ShellVar("K", "echo early; exec sleep 30", /*timeout_ms=*/200), {});
  EXPECT_EQ(slow.status(),
            absl::DeadlineExceededError("variable K: command sh did not finish within 200 ms"));
  EXPECT_EQ(Message(ReadVariable(ShellVar("K", "kill -9 $$"), {})),
            "variable K: command sh was killed by signal 9");
  absl::StatusOr<std::string> missing =
      ReadVariable(CommandVar("K", {"raw-test-no-such-program"}), {});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing),
              HasSubstr("variable K: cannot run command raw-test-no-such-program: "));
  EXPECT_EQ(Message(ReadVariable(ShellVar("K", "true"), {})),
            "variable K: command sh printed nothing");
}

TEST(VariableReaderTest, OversizedCommandOutputIsAnError) {
  EXPECT_THAT(Message(ReadVariable(ShellVar("K", "head -c 1048577 /dev/zero | tr '\\0' x"), {})),
              HasSubstr("printed more than 1048576 bytes"));
}

}  // namespace
}  // namespace raw::vars
