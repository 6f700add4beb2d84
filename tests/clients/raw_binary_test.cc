// The `raw` executable itself, run as a child process against the fake
// daemon: what only a real process shows (signals, exit statuses, the two
// output streams).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "clients/cli/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"

extern char** environ;

namespace raw::cli {
namespace {

using ::raw::testing::FakeDaemon;
using ::raw::testing::MakeEvent;
using ::raw::testing::ReadFile;
using ::raw::testing::TempDir;

const std::string kRaw = std::string(RAW_BINARY_DIR) + "/bin/raw";

// Starts `raw args...` with its output in `dir`/out and `dir`/err.
pid_t SpawnRaw(const TempDir& dir, const std::string& socket, std::vector<std::string> args) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, dir.File("out").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, dir.File("err").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  args.insert(args.begin(), {kRaw, "--socket", socket});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string no_autostart = "RAW_NO_AUTOSTART=1";
  char* envp[] = {no_autostart.data(), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, kRaw.c_str(), &actions, nullptr, argv.data(), envp), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int ExitStatus(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "raw did not exit normally: " << status;
  return WEXITSTATUS(status);
}

class RawBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kRaw.c_str(), X_OK) != 0) GTEST_FAIL() << kRaw << " is not built";
  }
  TempDir dir_;
  TempDir sock_dir_;
};

TEST_F(RawBinaryTest, FirstCtrlCInterruptsAndTheCancelledTurnExits130) {
  FakeDaemon daemon(sock_dir_.File("rawd.sock"));
  daemon.service().OnStartTurn([](const std::string& turn) {
    v1::Event e = MakeEvent(turn);
    e.mutable_text_delta()->set_text("working");
    return std::vector<v1::Event>{e};
  });
  daemon.service().OnInterrupt([](const std::string& turn) {
    // As rawd does: what was shown is kept, marked interrupted.
    v1::Event kept = MakeEvent(turn);
    kept.mutable_assistant_message()->set_text("working");
    kept.mutable_assistant_message()->set_interrupted(true);
    v1::Event e = MakeEvent(turn);
    e.mutable_turn_ended()->set_reason(v1::TURN_END_REASON_CANCELLED);
    return std::vector<v1::Event>{kept, e};
  });
  pid_t pid = SpawnRaw(dir_, daemon.socket_path(), {"run", "do", "it"});
  // Interrupted once it runs (one that reaches rawd first refuses the
  // start: TurnRunnerTest.AnInterruptAheadOfItsStartRefusesTheTurn).
  daemon.service().WaitForStartTurnsAnswered(1);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  EXPECT_EQ(ExitStatus(pid), kExitCancelled);
  EXPECT_EQ(ReadFile(dir_.File("out")), "working\n");
  std::string err = ReadFile(dir_.File("err"));
  EXPECT_NE(err.find("interrupting the turn"), std::string::npos) << err;
  EXPECT_NE(err.find("raw run: turn cancelled"), std::string::npos) << err;
}

TEST_F(RawBinaryTest, SecondCtrlCExitsAtOnce) {
  FakeDaemon daemon(sock_dir_.File("rawd.sock"));
  // The turn never ends, and the interrupt request gets no answer.
  daemon.service().HoldInterrupts();
  pid_t pid = SpawnRaw(dir_, daemon.socket_path(), {"run", "--json", "hang"});
  daemon.service().WaitForCall("StartTurn:hang");
  ASSERT_EQ(kill(pid, SIGINT), 0);
  daemon.service().WaitForCall("InterruptTurn");
  ASSERT_EQ(kill(pid, SIGINT), 0);
  EXPECT_EQ(ExitStatus(pid), kExitCancelled);
  EXPECT_EQ(ReadFile(dir_.File("out")), "") << "--json keeps stdout for events";
}

TEST_F(RawBinaryTest, ASessionHeldByAnotherWriterExitsFourNamingTheHolder) {
  FakeDaemon daemon(sock_dir_.File("rawd.sock"));
  v1::Session held;
  held.set_id("sess_held");
  held.set_agent("coder");
  daemon.service().AddSession(held);
  daemon.service().HoldLease("sess_held", "raw (pid 7)", "raw", 7);
  pid_t pid = SpawnRaw(dir_, daemon.socket_path(), {"run", "--session", "sess_held", "hello"});
  EXPECT_EQ(ExitStatus(pid), kExitHeld);
  EXPECT_EQ(ReadFile(dir_.File("out")), "");
  std::string err = ReadFile(dir_.File("err"));
  EXPECT_NE(err.find("raw run: session sess_held is open for writing in \"raw (pid 7)\""),
            std::string::npos)
      << err;
}

TEST_F(RawBinaryTest, UsageErrorExitsTwoWithTheMessageOnStderr) {
  pid_t pid = SpawnRaw(dir_, sock_dir_.File("rawd.sock"), {"run", "--agent"});
  EXPECT_EQ(ExitStatus(pid), kExitUsage);
  EXPECT_EQ(ReadFile(dir_.File("out")), "");
  EXPECT_EQ(ReadFile(dir_.File("err")),
            "raw run: option --agent needs a value\nRun 'raw run --help' for usage.\n");
}

}  // namespace
}  // namespace raw::cli
