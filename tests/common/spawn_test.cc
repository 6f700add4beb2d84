#include "common/spawn.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace raw {
namespace {

// Reads `fd` to its end.
std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return out;
    }
  }
}

// Runs `script` with /bin/sh through SpawnInNewSession; returns what it
// printed on stdout (stderr joins it) and its exit code.
struct Outcome {
  std::string output;
  int exit_code = -1;
  pid_t pid = -1;
};
Outcome RunShell(const std::string& script, SpawnRequest request = {}) {
  int fds[2];
  EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0);
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", script};
  request.stdout_fd = fds[1];
  request.stderr_fd = fds[1];
  absl::StatusOr<pid_t> pid = SpawnInNewSession(request);
  close(fds[1]);
  Outcome outcome;
  if (!pid.ok()) {
    ADD_FAILURE() << pid.status();
    close(fds[0]);
    return outcome;
  }
  outcome.pid = *pid;
  outcome.output = ReadAll(fds[0]);
  close(fds[0]);
  int status = 0;
  EXPECT_EQ(waitpid(*pid, &status, 0), *pid);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  return outcome;
}

TEST(SpawnTest, TheChildLeadsANewSessionWithNoTerminal) {
  // Fields 5, 6 and 7 of /proc/PID/stat: process group, session, terminal.
  Outcome o = RunShell("cut -d' ' -f5-7 /proc/$$/stat");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  std::string id = std::to_string(o.pid);
  EXPECT_EQ(o.output, id + " " + id + " 0\n");
}

TEST(SpawnTest, SignalsAreResetAndStdinIsDevNullWhenNotGiven) {
  // The parent ignores SIGPIPE-like signals and blocks others; the child
  // starts with neither.
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_action = {};
  ASSERT_EQ(sigaction(SIGUSR2, &ignore, &old_action), 0);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigset_t old_mask;
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &block, &old_mask), 0);
  Outcome o = RunShell(
      "grep -E '^(SigBlk|SigIgn):' /proc/self/status; wc -c < /dev/stdin");
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGUSR2, &old_action, nullptr);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("SigBlk:\t0000000000000000"), std::string::npos) << o.output;
  // SIGUSR2 is signal 12: bit 11 of the ignored set.
  EXPECT_EQ(o.output.find("SigIgn:\t0000000000000800"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("\n0\n"), std::string::npos) << o.output;
}

TEST(SpawnTest, DescriptorsWithoutCloseOnExecStayOutOfTheChild) {
  int null_fd = open("/dev/null", O_RDONLY);
  ASSERT_GE(null_fd, 0);
  int leaked = fcntl(null_fd, F_DUPFD, 200);  // without FD_CLOEXEC on purpose
  close(null_fd);
  ASSERT_GE(leaked, 200);
  Outcome o = RunShell("ls /proc/self/fd");
  close(leaked);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.output.find("\n" + std::to_string(leaked) + "\n"), std::string::npos) << o.output;
}

TEST(SpawnTest, EnvironmentAndWorkingDirectoryAreTheRequests) {
  SpawnRequest request;
  request.env = std::vector<std::string>{"ONLY=this"};
  request.cwd = "/usr";
  Outcome o = RunShell("echo \"$ONLY:${HOME:-unset}:$(pwd)\"", request);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.output, "this:unset:/usr\n");
}

TEST(SpawnTest, AMissingProgramOrDirectoryIsNotFoundAndNamesIt) {
  SpawnRequest request;
  request.program = "/no/such/program";
  request.argv = {"tool"};
  absl::StatusOr<pid_t> pid = SpawnInNewSession(request);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(pid.status().message().find("\"tool\" (/no/such/program)"), std::string::npos)
      << pid.status();

  request.program = "/bin/sh";
  request.cwd = "/no/such/dir";
  pid = SpawnInNewSession(request);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(pid.status().message().find("in /no/such/dir"), std::string::npos) << pid.status();

  request.argv.clear();
  EXPECT_EQ(SpawnInNewSession(request).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace raw
