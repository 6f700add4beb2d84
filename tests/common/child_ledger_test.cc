// The child ledger ends, at the next Open, exactly the process groups that
// were started and never reaped, and nothing else: not a reaped child, not a
// ledger of another boot, not a process that reuses a recorded pid.
#include "common/child_ledger.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/owned_children.h"
#include "common/spawn.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

class ChildLedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/raw-ledger-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/children.ledger";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static pid_t Spawn(const std::string& script) {
    SpawnRequest request;
    request.program = "/bin/sh";
    request.argv = {"sh", "-c", script};
    absl::StatusOr<pid_t> pid = SpawnInNewSession(request);
    EXPECT_TRUE(pid.ok()) << pid.status();
    return pid.ok() ? *pid : -1;
  }

  std::string ReadLedger() const {
    std::ifstream in(path_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  std::string dir_, path_;
};

TEST_F(ChildLedgerTest, TheNextOpenEndsTheWholeGroupOfAChildNeverReaped) {
  // The group's `sleep` outlives its shell: as rawd does, become its parent
  // then, so that the test can wait for it.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  // The shell leads the group; its own child `sleep` is in it too.
  const pid_t leader = Spawn("sleep 300 & wait");
  ASSERT_GT(leader, 0);
  EXPECT_NE(ReadLedger().find(absl::StrCat("+", leader, " ")), std::string::npos);

  // As a daemon started after a crash of this one would.
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 1);
  const int status = WaitOwnedChild(leader);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  // Every other process of the group was killed too.
  int other = 0;
  while (waitpid(-leader, &other, 0) > 0) {
    EXPECT_TRUE(WIFSIGNALED(other) && WTERMSIG(other) == SIGKILL);
  }
  EXPECT_EQ(kill(-leader, 0), -1) << "a process of the group survived";
  // The fresh ledger lists nothing.
  EXPECT_EQ(ReadLedger().find('+'), std::string::npos) << ReadLedger();
}

TEST_F(ChildLedgerTest, AChildStartedButNotYetRecordedIsFoundByItsMark) {
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  const std::string mark = child_ledger::ChildMark();
  ASSERT_EQ(mark.rfind("RAW_DAEMON_CHILD=", 0), 0u) << mark;
  // The child says when it runs: right after posix_spawn returns, its new
  // image may not have its environment in place yet. (And not a lone
  // command, which the shell would exec in place.)
  int up[2];
  ASSERT_EQ(pipe2(up, O_CLOEXEC), 0);
  SpawnRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", "echo up; sleep 300; exit 0"};
  request.stdout_fd = up[1];
  absl::StatusOr<pid_t> spawned = SpawnInNewSession(request);
  close(up[1]);
  ASSERT_TRUE(spawned.ok()) << spawned.status();
  const pid_t child = *spawned;
  char line[8] = {};
  ASSERT_GT(read(up[0], line, sizeof line), 0);
  close(up[0]);
  const std::string environ = [&] {
    std::ifstream in(absl::StrCat("/proc/", child, "/environ"));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  EXPECT_NE(environ.find(mark + '.'), std::string::npos) << "the child does not carry the mark";
  // As if the daemon died between the start and the record.
  std::string text = ReadLedger();
  text.erase(text.find(absl::StrCat("+", child, " ")));
  std::ofstream(path_, std::ios::trunc) << text;

  const int ended = child_ledger::Open(path_).value_or(-1);
  if (ended != 1) kill(-child, SIGKILL);  // so that the wait below ends
  EXPECT_EQ(ended, 1);
  const int status = WaitOwnedChild(child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_NE(child_ledger::ChildMark(), mark) << "each ledger has an instance of its own";
}

// As a bash call running `setsid server &`, or starting a tmux server: the
// call ends and is reaped; what it detached is not Raw's to end.
TEST_F(ChildLedgerTest, AProcessAChildDetachedIntoItsOwnSessionIsLeftAlone) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // so the test can reap it at the end
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  int up[2];
  ASSERT_EQ(pipe2(up, O_CLOEXEC), 0);
  SpawnRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", "setsid sh -c 'echo $$; exec sleep 300' &"};
  request.stdout_fd = up[1];
  absl::StatusOr<pid_t> shell = SpawnInNewSession(request);
  close(up[1]);
  ASSERT_TRUE(shell.ok()) << shell.status();
  char line[32] = {};
  ASSERT_GT(read(up[0], line, sizeof line - 1), 0);  // printed after setsid: it leads a session
  close(up[0]);
  const pid_t detached = std::stoi(line);
  WaitOwnedChild(*shell);
  // The next daemon, after a crash of this one (no Close):
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  EXPECT_EQ(kill(detached, 0), 0) << "a process the child detached was killed";
  kill(detached, SIGKILL);
  waitpid(detached, nullptr, 0);
}

TEST_F(ChildLedgerTest, ACleanCloseLeavesNothingToEnd) {
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  const pid_t done = Spawn("exit 0");
  ASSERT_GT(done, 0);
  WaitOwnedChild(done);
  EXPECT_TRUE(child_ledger::Close());
  EXPECT_NE(ReadLedger().find("\nclean\n"), std::string::npos) << ReadLedger();
  EXPECT_EQ(child_ledger::ChildMark(), "") << "no mark once closed";
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 0);
}

TEST_F(ChildLedgerTest, ACloseWithAChildStillRunningLetsTheNextOpenEndIt) {
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  const pid_t leader = Spawn("sleep 300");
  ASSERT_GT(leader, 0);
  EXPECT_FALSE(child_ledger::Close());
  EXPECT_EQ(ReadLedger().find("clean"), std::string::npos) << ReadLedger();
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 1);
  const int status = WaitOwnedChild(leader);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

// A stop cut short by its deadline ends the groups still running itself;
// the ledger still lists them for the next start.
TEST_F(ChildLedgerTest, EndLiveGroupsKillsEveryRecordedGroupAndKeepsTheLedger) {
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  const pid_t first = Spawn("sleep 300");
  const pid_t second = Spawn("sleep 300");
  ASSERT_GT(first, 0);
  ASSERT_GT(second, 0);
  EXPECT_EQ(child_ledger::EndLiveGroups(), 2);
  // Until they are reaped, the ledger still lists them.
  EXPECT_NE(ReadLedger().find(absl::StrCat("+", first, " ")), std::string::npos);
  EXPECT_EQ(ReadLedger().find(absl::StrCat("-", first, "\n")), std::string::npos);
  for (pid_t leader : {first, second}) {
    const int status = WaitOwnedChild(leader);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
  }
}

TEST_F(ChildLedgerTest, AReapedChildIsForgotten) {
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  const pid_t done = Spawn("exit 0");
  ASSERT_GT(done, 0);
  WaitOwnedChild(done);
  EXPECT_NE(ReadLedger().find(absl::StrCat("-", done)), std::string::npos);
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 0);
}

TEST_F(ChildLedgerTest, ALedgerOfAnotherBootOrAReusedPidEndsNothing) {
  // A running process Raw did not record: stands for one that got a pid the
  // ledger names.
  const pid_t bystander = Spawn("sleep 300");
  ASSERT_GT(bystander, 0);
  const long long start = child_ledger::ProcessStartTime(bystander);
  ASSERT_GT(start, 0);

  std::ofstream(path_) << "boot 00000000-0000-0000-0000-000000000000\n+" << bystander << " "
                       << start << "\n";
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 0) << "a ledger of another boot";

  const std::string boot_line = ReadLedger().substr(0, ReadLedger().find('\n') + 1);
  ASSERT_EQ(boot_line.rfind("boot ", 0), 0u);
  std::ofstream(path_) << boot_line << "+" << bystander << " " << start + 1 << "\n";
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 0) << "the pid with another start time";

  EXPECT_EQ(kill(bystander, 0), 0) << "the bystander was signalled";
  kill(-bystander, SIGKILL);
  WaitOwnedChild(bystander);
}

// Links planted in a state directory another user can write to: the
// ledger's new file is made afresh, never written through a symlink, and
// the file a link points at is left as it was.
TEST_F(ChildLedgerTest, APlantedSymlinkIsNeverWrittenThrough) {
  const std::string victim = dir_ + "/bashrc";
  std::ofstream(victim) << "keep me\n";
  ASSERT_EQ(symlink(victim.c_str(), (path_ + ".new").c_str()), 0);
  ASSERT_EQ(symlink(victim.c_str(), path_.c_str()), 0);
  ASSERT_EQ(child_ledger::Open(path_).value_or(-1), 0);
  child_ledger::Close();
  std::ifstream in(victim);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()),
            "keep me\n");
  EXPECT_FALSE(std::filesystem::is_symlink(path_));
  EXPECT_EQ(ReadLedger().rfind("boot ", 0), 0u);
}

TEST_F(ChildLedgerTest, GarbageInTheLedgerIsIgnored) {
  const std::string boot = [&] {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    in >> id;
    return id;
  }();
  std::ofstream(path_) << "boot " << boot << "\n+1 0\n+abc 5\n+-4 2\n-\n+\n+99999999999 1\n";
  EXPECT_EQ(child_ledger::Open(path_).value_or(-1), 0);
}

TEST_F(ChildLedgerTest, AnUnwritableLedgerIsAnErrorThatNamesThePath) {
  absl::StatusOr<int> opened = child_ledger::Open(dir_ + "/missing/children.ledger");
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("missing/children.ledger"), std::string::npos);
}

}  // namespace
}  // namespace raw
