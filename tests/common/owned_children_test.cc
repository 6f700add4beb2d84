// ReapOrphans takes the exited children Raw did not start through
// SpawnInNewSession, and never the ones it did: their starters get their
// exit statuses.
#include "common/owned_children.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/spawn.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

// Whether `pid` has exited (is a zombie), without reaping it.
bool Exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

void WaitUntilExited(pid_t pid) {
  // Blocks until the child exits, leaving it a zombie.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);
}

TEST(OwnedChildrenTest, OrphansAreReapedAndOwnedChildrenAreLeftToTheirStarter) {
  SpawnRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", "exit 7"};
  absl::StatusOr<pid_t> owned = SpawnInNewSession(request);
  ASSERT_TRUE(owned.ok()) << owned.status();
  pid_t stray = fork();  // not started through SpawnInNewSession: not owned
  if (stray == 0) _exit(0);
  ASSERT_GT(stray, 0);
  WaitUntilExited(*owned);
  WaitUntilExited(stray);

  EXPECT_GE(ReapOrphans(), 1);
  EXPECT_FALSE(Exited(stray)) << "the stray child is still a zombie";
  EXPECT_EQ(waitpid(stray, nullptr, WNOHANG), -1);  // gone: reaped
  ASSERT_TRUE(Exited(*owned)) << "the owned child was taken";
  int status = WaitOwnedChild(*owned);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(OwnedChildrenTest, HasOrphansCountsRunningChildrenItDidNotStart) {
  ReapOrphans();  // what earlier tests left
  SpawnRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", "sleep 300"};
  absl::StatusOr<pid_t> owned = SpawnInNewSession(request);
  ASSERT_TRUE(owned.ok()) << owned.status();
  EXPECT_FALSE(HasOrphans()) << "an owned child is not an orphan";
  int hold[2];
  ASSERT_EQ(pipe2(hold, O_CLOEXEC), 0);
  pid_t stray = fork();  // as a background job left by a command: runs on
  if (stray == 0) {
    char c;
    close(hold[1]);
    (void)!read(hold[0], &c, 1);
    _exit(0);
  }
  ASSERT_GT(stray, 0);
  EXPECT_TRUE(HasOrphans());
  close(hold[0]);
  close(hold[1]);  // the stray ends
  ASSERT_EQ(waitpid(stray, nullptr, 0), stray);
  EXPECT_FALSE(HasOrphans());
  kill(-*owned, SIGKILL);
  WaitOwnedChild(*owned);
}

}  // namespace
}  // namespace raw
