// A client talks only to its own user's daemon: the `raw` executable
// against sockets another user holds, and against listeners that do not
// speak Raw's API.
#include "clients/lib/daemon_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/clients/temp_dir.h"

namespace raw::client {
namespace {

using ::raw::testing::ReadFile;
using ::raw::testing::TempDir;
using Clock = std::chrono::steady_clock;

const std::string kRaw = std::string(RAW_BINARY_DIR) + "/bin/raw";

struct RawRun {
  int code = -1;
  std::string err;
  std::chrono::milliseconds took{0};
};

// Runs `raw args...` with XDG_RUNTIME_DIR=`runtime_dir` (so its socket is
// <runtime_dir>/raw/rawd.sock) and autostart off.
RawRun RunRaw(const TempDir& out, const std::string& runtime_dir, std::vector<std::string> args) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, out.File("err").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  args.insert(args.begin(), kRaw);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = {"RAW_NO_AUTOSTART=1", "XDG_RUNTIME_DIR=" + runtime_dir,
                                  "HOME=" + out.path(), "XDG_CONFIG_HOME=" + out.File("config"),
                                  "XDG_STATE_HOME=" + out.File("state")};
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  RawRun run;
  const auto start = Clock::now();
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, kRaw.c_str(), &actions, nullptr, argv.data(), envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  run.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = ReadFile(out.File("err"));
  return run;
}

int ListenAt(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 16) != 0) {
    ADD_FAILURE() << "cannot listen at " << path << ": " << std::strerror(errno);
  }
  return fd;
}

// A process of another user (nobody) that holds a listening socket: with
// `own_dir` it also creates the socket's directory (mode 0700) as that user,
// else it binds in the existing directory first and then drops to nobody
// before listening (SO_PEERCRED then names nobody). Killed on destruction.
class OtherUserListener {
 public:
  OtherUserListener(const std::string& dir, bool own_dir) {
    passwd* nobody = getpwnam("nobody");
    if (nobody == nullptr) {
      ADD_FAILURE() << "no user \"nobody\"";
      return;
    }
    int ready[2];
    if (pipe(ready) != 0) return;
    const std::string path = dir + "/rawd.sock";
    pid_ = fork();
    if (pid_ == 0) {
      // Only system calls from here on (the parent has threads).
      close(ready[0]);
      int fd = socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
      if (!own_dir && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) _exit(1);
      if (setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0) _exit(2);
      if (own_dir && (mkdir(dir.c_str(), 0700) != 0 ||
                      bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)) {
        _exit(3);
      }
      if (listen(fd, 16) != 0) _exit(4);
      char c = 'R';
      if (write(ready[1], &c, 1) != 1) _exit(5);
      for (;;) pause();
    }
    close(ready[1]);
    char c = 0;
    EXPECT_EQ(read(ready[0], &c, 1), 1) << "the listener of another user did not start";
    close(ready[0]);
    uid_ = nobody->pw_uid;
  }
  ~OtherUserListener() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  uid_t uid() const { return uid_; }

 private:
  pid_t pid_ = -1;
  uid_t uid_ = 0;
};

class DaemonSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kRaw.c_str(), X_OK) != 0) GTEST_FAIL() << kRaw << " is not built";
  }
  void RequireRoot() {
    if (getuid() != 0) GTEST_SKIP() << "needs root, to run a listener as another user";
  }
  TempDir out_;
  TempDir runtime_;
};

TEST_F(DaemonSocketTest, ASocketDirectoryOfAnotherUserIsRefused) {
  RequireRoot();
  if (IsSkipped()) return;
  // nobody must be able to create the directory in the runtime dir.
  passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  ASSERT_EQ(chown(runtime_.path().c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  const std::string dir = runtime_.File("raw");
  OtherUserListener listener(dir, /*own_dir=*/true);
  RawRun run = RunRaw(out_, runtime_.path(), {"daemon", "status"});
  EXPECT_NE(run.code, 0);
  EXPECT_NE(run.err.find("socket directory " + dir + " is owned by uid " +
                         std::to_string(listener.uid()) + ", not by you"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("Remove it"), std::string::npos) << run.err;
  // The check does not depend on how the client was asked to connect.
  EXPECT_NE(RunRaw(out_, runtime_.path(), {"sessions", "list"}).err.find("is owned by uid"),
            std::string::npos);
}

TEST_F(DaemonSocketTest, ASocketHeldByAnotherUserIsRefused) {
  RequireRoot();
  if (IsSkipped()) return;
  // The directory is ours and private; the listener is not.
  const std::string dir = runtime_.File("raw");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  OtherUserListener listener(dir, /*own_dir=*/false);
  RawRun run = RunRaw(out_, runtime_.path(), {"daemon", "status"});
  EXPECT_NE(run.code, 0);
  const std::string path = dir + "/rawd.sock";
  EXPECT_NE(run.err.find("the socket " + path + " is held by uid " +
                         std::to_string(listener.uid())),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("Remove it (rm " + path), std::string::npos) << run.err;
}

TEST_F(DaemonSocketTest, ASymlinkedOrOpenSocketDirectoryIsRefused) {
  const std::string real = out_.File("real");
  ASSERT_EQ(mkdir(real.c_str(), 0700), 0);
  ASSERT_EQ(symlink(real.c_str(), runtime_.File("raw").c_str()), 0);
  RawRun linked = RunRaw(out_, runtime_.path(), {"daemon", "status"});
  EXPECT_NE(linked.code, 0);
  EXPECT_NE(linked.err.find("symlinks are refused"), std::string::npos) << linked.err;

  ASSERT_EQ(unlink(runtime_.File("raw").c_str()), 0);
  ASSERT_EQ(mkdir(runtime_.File("raw").c_str(), 0750), 0);
  chmod(runtime_.File("raw").c_str(), 0750);
  RawRun open = RunRaw(out_, runtime_.path(), {"daemon", "status"});
  EXPECT_NE(open.code, 0);
  EXPECT_NE(open.err.find("has mode 0750; it must be 0700"), std::string::npos) << open.err;
}

// A listener at the socket path that is not rawd: every client command
// fails within the 2 s handshake bound with a message that says so.
class ForeignListenerTest : public DaemonSocketTest {
 protected:
  void Listen(bool write_garbage) {
    const std::string dir = runtime_.File("raw");
    ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
    fd_ = ListenAt(dir + "/rawd.sock");
    if (!write_garbage) return;  // connections wait in the backlog, unanswered
    thread_ = std::thread([this] {
      for (;;) {
        pollfd p = {fd_, POLLIN, 0};
        if (poll(&p, 1, 50) < 0 || stop_) return;
        if (p.revents == 0) continue;
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) continue;
        char request[64];
        (void)!read(c, request, sizeof request);  // what an HTTP/1 server would do
        const char reply[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
        (void)!write(c, reply, sizeof reply - 1);
        close(c);
      }
    });
  }
  void TearDown() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
  }
  void ExpectEveryClientFails(const std::string& why) {
    const std::vector<std::vector<std::string>> commands = {
        {"daemon", "status"}, {"run", "hello"}, {"sessions", "list"}};
    for (const auto& args : commands) {
      RawRun run = RunRaw(out_, runtime_.path(), args);
      EXPECT_NE(run.code, 0) << args[0];
      EXPECT_NE(run.err.find("is not a Raw daemon: " + why), std::string::npos)
          << args[0] << ": " << run.err;
      // The requirement's bound is 2 s; the rest is process start-up.
      EXPECT_LT(run.took, std::chrono::milliseconds(3000)) << args[0];
    }
  }
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(ForeignListenerTest, AListenerThatSaysNothingFailsEveryClientWithinTwoSeconds) {
  Listen(/*write_garbage=*/false);
  ExpectEveryClientFails("it did not answer within 2s");
}

TEST_F(ForeignListenerTest, AListenerThatAnswersSomethingElseFailsEveryClientAtOnce) {
  Listen(/*write_garbage=*/true);
  ExpectEveryClientFails("it answered with something other than gRPC (HTTP/2)");
}

}  // namespace
}  // namespace raw::client
