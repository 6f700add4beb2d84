#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "daemon/tools/builtin/builtin_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Call;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

// True once no process is left in group `pgid`.
bool GroupGone(pid_t pgid) { return kill(-pgid, 0) == -1 && errno == ESRCH; }
bool ProcessGone(pid_t pid) { return kill(pid, 0) == -1 && errno == ESRCH; }

// Reads the first "pgid=<n>" in `text`.
pid_t PgidIn(const std::string& text) {
  auto pos = text.find("pgid=");
  if (pos == std::string::npos) return -1;
  return static_cast<pid_t>(std::stol(text.substr(pos + 5)));
}

class BashTest : public ::testing::Test {
 protected:
  // When the shell is killed, its children are re-parented to the nearest
  // subreaper; without one they go to init, and their zombies would linger
  // in the group until init reaps them. Making this process the subreaper
  // (as a daemon owning its process tree would be) lets the tool reap the
  // whole group, so "the group is gone" is exact.
  static void SetUpTestSuite() { ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }

  ToolOutput RunArgs(const Json& args) { return Call(spec_, args, dir_.path(), settings_, cancel_); }
  ToolOutput Run(const std::string& command) { return RunArgs(Json{{"command", command}}); }

  TempDir dir_;
  config::ToolSettings settings_;
  CancelToken cancel_;
  ToolSpec spec_ = builtin::MakeBashTool();
};

TEST_F(BashTest, ReturnsOutputAndExitCode) {
  ToolOutput out = Run("echo hello; printf 'no newline'");
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "hello\nno newline\n[exit code 0]");
}

TEST_F(BashTest, NonZeroExitIsAnErrorWithOutputAndStderr) {
  ToolOutput out = Run("echo out; echo err >&2; exit 3");
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "out\nerr\n[exit code 3]");
}

TEST_F(BashTest, ReportsDeathBySignal) {
  ToolOutput out = Run("echo dying; kill -9 $$");
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "dying\n[killed by signal 9 (SIGKILL)]");
}

TEST_F(BashTest, RunsInTheWorkingDirectory) {
  ToolOutput out = Run("pwd; touch made-here");
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, dir_.path() + "\n[exit code 0]");
  EXPECT_TRUE(std::filesystem::exists(dir_.Join("made-here")));
}

TEST_F(BashTest, StdinIsEmptyAndNoOutputIsSaid) {
  // `cat` would wait forever on an inherited terminal or pipe.
  ToolOutput out = Run("cat");
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "(no output)\n[exit code 0]");
}

TEST_F(BashTest, RunsInItsOwnProcessGroupAndSession) {
  // Fields 5 and 6 of /proc/<pid>/stat are the process group and session.
  ToolOutput out = Run("read -r _ _ _ _ pgrp sid _ < /proc/$$/stat; echo $$ $pgrp $sid");
  ASSERT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  long pid = 0, pgid = 0, sid = 0;
  ASSERT_EQ(std::sscanf(out.content.c_str(), "%ld %ld %ld", &pid, &pgid, &sid), 3) << out.content;
  EXPECT_EQ(pgid, pid);
  EXPECT_EQ(sid, pid);
  EXPECT_NE(pgid, static_cast<long>(getpgrp()));
}

TEST_F(BashTest, TimeoutKillsTheWholeGroupAndKeepsTheOutput) {
  settings_.bash.timeout_ms = 700;
  Clock::time_point start = Clock::now();
  ToolOutput out = Run("echo pgid=$$; sleep 30 & sleep 30; wait");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, StartsWith("pgid="));
  EXPECT_THAT(out.content,
              EndsWith("[timed out after 0.7 s; the command and its process group were killed]"));
  pid_t pgid = PgidIn(out.content);
  ASSERT_GT(pgid, 1);
  EXPECT_TRUE(GroupGone(pgid));
}

TEST_F(BashTest, TimeoutKillsCommandsThatIgnoreSigterm) {
  settings_.bash.timeout_ms = 700;
  ToolOutput out = Run("trap '' TERM; echo pgid=$$; sleep 30 & wait");
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("timed out after 0.7 s"));
  pid_t pgid = PgidIn(out.content);
  ASSERT_GT(pgid, 1);
  EXPECT_TRUE(GroupGone(pgid));
}

TEST_F(BashTest, CallTimeoutOverridesTheSetting) {
  ToolOutput out = RunArgs(Json{{"command", "echo pgid=$$; sleep 30"}, {"timeout_seconds", 1}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("[timed out after 1 s;"));
  EXPECT_TRUE(GroupGone(PgidIn(out.content)));

  ToolOutput too_long = RunArgs(Json{{"command", "true"}, {"timeout_seconds", 601}});
  EXPECT_EQ(too_long.status, events::ToolStatus::kError);
  EXPECT_EQ(too_long.content, "argument \"timeout_seconds\" must be at most 600, got 601");
}

TEST_F(BashTest, CancelKillsChildrenAndGrandchildrenPromptly) {
  std::string fifo = dir_.Join("started");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Opened before the command runs, so the command's write never blocks
  // and this test can wait for it with poll.
  int ready = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(ready, 0);

  ToolOutput out;
  std::thread runner([&] {
    out = Run("echo before; sleep 30 & echo \"$$ $!\" > started; sleep 30; wait");
  });
  pollfd pfd{ready, POLLIN, 0};
  int polled = poll(&pfd, 1, 30000);
  char buf[64] = {};
  ssize_t n = polled == 1 ? read(ready, buf, sizeof buf - 1) : -1;
  Clock::time_point cancelled_at = Clock::now();
  cancel_.Cancel();
  runner.join();
  close(ready);
  ASSERT_GT(n, 0) << "the command never reported that it started";
  EXPECT_LT(Clock::now() - cancelled_at, std::chrono::seconds(5));

  long pgid = 0, grandchild = 0;
  ASSERT_EQ(std::sscanf(buf, "%ld %ld", &pgid, &grandchild), 2) << buf;
  EXPECT_EQ(out.status, events::ToolStatus::kCancelled);
  EXPECT_EQ(out.content, "before\n[cancelled; the command and its process group were killed]");
  EXPECT_TRUE(GroupGone(static_cast<pid_t>(pgid)));
  EXPECT_TRUE(ProcessGone(static_cast<pid_t>(grandchild)));
}

TEST_F(BashTest, AlreadyCancelledDoesNotRun) {
  cancel_.Cancel();
  ToolOutput out = Run("touch ran");
  EXPECT_EQ(out.status, events::ToolStatus::kCancelled);
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("ran")));
}

TEST_F(BashTest, ReturnsWhenTheShellExitsEvenIfABackgroundJobHoldsTheOutput) {
  settings_.bash.timeout_ms = 20000;
  Clock::time_point start = Clock::now();
  ToolOutput out = Run("sleep 30 & echo bg=$!");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  auto pos = out.content.find("bg=");
  ASSERT_NE(pos, std::string::npos) << out.content;
  pid_t bg = static_cast<pid_t>(std::stol(out.content.substr(pos + 3)));
  // Background jobs are left running; clean this one up.
  EXPECT_EQ(kill(bg, SIGKILL), 0);
  EXPECT_EQ(waitpid(bg, nullptr, 0), bg);
}

TEST_F(BashTest, CapsOutputKeepingHeadAndTail) {
  settings_.bash.max_output_bytes = 1000;
  // seq 1 100000 writes 588895 bytes.
  ToolOutput out = Run("seq 1 100000");
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(out.content, StartsWith("1\n2\n3\n"));
  EXPECT_THAT(out.content, EndsWith("99999\n100000\n[exit code 0]"));
  EXPECT_THAT(out.content, HasSubstr("[... 587895 bytes omitted: the output was 588895 bytes, "
                                     "over the 1000-byte limit (tools.bash.max_output_bytes); "
                                     "showing the first 500 and the last 500 bytes ...]"));
  EXPECT_LT(out.content.size(), 1300u);
}

TEST_F(BashTest, MissingWorkingDirectoryIsAnError) {
  ToolOutput out = Call(spec_, Json{{"command", "true"}}, dir_.Join("gone"), settings_, cancel_);
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr(dir_.Join("gone") + " does not exist"));
}

TEST_F(BashTest, BadArgumentsGetClearErrors) {
  EXPECT_EQ(RunArgs(Json::object()).content, "missing required argument \"command\"");
  EXPECT_EQ(RunArgs(Json{{"command", "  \n"}}).content, "argument \"command\" is empty");
  EXPECT_EQ(RunArgs(Json{{"command", std::string("a\0b", 3)}}).content,
            "argument \"command\" contains a NUL byte");
  EXPECT_EQ(RunArgs(Json{{"command", "true"}, {"timeout_seconds", 0}}).content,
            "argument \"timeout_seconds\" must be at least 1, got 0");
  EXPECT_EQ(RunArgs(Json{{"command", "true"}, {"cwd", "/"}}).content, "unknown argument \"cwd\"");
}

}  // namespace
}  // namespace raw::tools
