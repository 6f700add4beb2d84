// rawd started the way systemd starts it: the listening socket is passed as
// descriptor 3 with LISTEN_FDS/LISTEN_PID (sd_listen_fds(3)), either by the
// test itself or by systemd's own `systemd-socket-activate`.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/e2e/e2e_fixture.h"
#include "tests/support/test_daemon.h"

extern char** environ;

namespace raw::e2e {
namespace {

constexpr char kConfig[] = "{}";

// A listening Unix socket at `path` with the given file mode, on a high
// descriptor without FD_CLOEXEC (so it can be passed on as descriptor 3).
int ListenAt(const std::string& path, mode_t mode) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      chmod(path.c_str(), mode) != 0 || listen(fd, 16) != 0) {
    close(fd);
    return -1;
  }
  int high = fcntl(fd, F_DUPFD, 100);
  close(fd);
  return high;
}

// Starts /bin/sh with `words` as its arguments and `env` as its whole
// environment, stderr to `stderr_path`, and `listen_fd` (when >= 0) as
// descriptor 3.
pid_t SpawnShell(std::vector<std::string> words, const std::map<std::string, std::string>& env,
                 int listen_fd, const std::string& stderr_path) {
  words.insert(words.begin(), "/bin/sh");
  std::vector<std::string> env_words;
  for (const auto& [k, v] : env) env_words.push_back(absl::StrCat(k, "=", v));
  std::vector<char*> cargv, cenv;
  for (auto& w : words) cargv.push_back(w.data());
  cargv.push_back(nullptr);
  for (auto& w : env_words) cenv.push_back(w.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (listen_fd >= 0) posix_spawn_file_actions_adddup2(&actions, listen_fd, 3);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  if (posix_spawn(&pid, "/bin/sh", &actions, nullptr, cargv.data(), cenv.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Starts `argv` with `env` and `listen_fd` as descriptor 3, and with
// LISTEN_PID set to its own pid: the shell's $$ stays the pid once it
// execs the program.
pid_t SpawnActivated(const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env, int listen_fd,
                     const std::string& stderr_path) {
  std::vector<std::string> words = {"-c",
                                    "LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=rawd.socket "
                                    "exec \"$0\" \"$@\""};
  words.insert(words.end(), argv.begin(), argv.end());
  return SpawnShell(std::move(words), env, listen_fd, stderr_path);
}

// Waits for `pid` to exit (a pidfd, no polling loop); its exit code, or
// nullopt when it is still running after `timeout`.
std::optional<int> WaitExit(pid_t pid, std::chrono::milliseconds timeout) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return std::nullopt;
  pollfd p{pidfd, POLLIN, 0};
  int ready = poll(&p, 1, static_cast<int>(timeout.count()));
  close(pidfd);
  if (ready <= 0) return std::nullopt;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return std::nullopt;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadUnitText(const std::string& path) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

grpc::Status Info(const std::string& socket_path, raw::v1::GetDaemonInfoResponse* info) {
  auto stub = raw::v1::Raw::NewStub(MakeChannel(socket_path));
  grpc::ClientContext ctx;
  ctx.set_wait_for_ready(true);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return stub->GetDaemonInfo(&ctx, raw::v1::GetDaemonInfoRequest(), info);
}

class SocketActivationTest : public ::testing::Test {
 protected:
  SocketActivationTest() : daemon_(kConfig) {}
  std::string StderrPath() const { return daemon_.root() + "/rawd.stderr"; }
  pid_t Activate(int fd, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {BinaryPath("rawd"), "--foreground"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return SpawnActivated(argv, daemon_.env(), fd, StderrPath());
  }
  TestDaemon daemon_;
};

TEST_F(SocketActivationTest, TheInheritedSocketIsServedAndOutlivesTheDaemon) {
  int fd = ListenAt(daemon_.socket_path(), 0600);
  ASSERT_GE(fd, 0);
  pid_t pid = Activate(fd);
  ASSERT_GT(pid, 0);

  raw::v1::GetDaemonInfoResponse info;
  grpc::Status status = Info(daemon_.socket_path(), &info);
  ASSERT_TRUE(status.ok()) << status.error_message() << "\n" << ReadUnitText(StderrPath());
  EXPECT_EQ(info.pid(), pid);
  EXPECT_EQ(info.socket_path(), daemon_.socket_path());

  kill(pid, SIGTERM);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(30)), 0) << ReadUnitText(StderrPath());
  // The socket file is systemd's: it stays for the next start.
  struct stat st;
  EXPECT_EQ(lstat(daemon_.socket_path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  // The log says where the socket came from.
  EXPECT_NE(ReadUnitText(StderrPath()).find("socket passed by systemd"), std::string::npos);
  close(fd);
}

TEST_F(SocketActivationTest, ASocketOthersCouldUseIsRefused) {
  int fd = ListenAt(daemon_.socket_path(), 0666);
  ASSERT_GE(fd, 0);
  pid_t pid = Activate(fd);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(30)), 1);
  const std::string err = ReadUnitText(StderrPath());
  EXPECT_NE(err.find("refusing the socket passed by systemd"), std::string::npos) << err;
  EXPECT_NE(err.find("mode 0666"), std::string::npos) << err;
  close(fd);
}

TEST_F(SocketActivationTest, ASocketInASharedDirectoryIsRefused) {
  const std::string dir = daemon_.root() + "/run";
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  int fd = ListenAt(daemon_.socket_path(), 0600);
  ASSERT_GE(fd, 0);
  pid_t pid = Activate(fd);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(30)), 1);
  const std::string err = ReadUnitText(StderrPath());
  EXPECT_NE(err.find("refusing the socket passed by systemd"), std::string::npos) << err;
  EXPECT_NE(err.find(dir), std::string::npos) << err;
  // Checked, never changed.
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  close(fd);
}

TEST_F(SocketActivationTest, ASocketBoundAtAnotherPathIsRefused) {
  const std::string other = daemon_.root() + "/run/other.sock";
  int fd = ListenAt(other, 0600);
  ASSERT_GE(fd, 0);
  pid_t pid = Activate(fd);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(30)), 1);
  const std::string err = ReadUnitText(StderrPath());
  EXPECT_NE(err.find(other), std::string::npos) << err;
  EXPECT_NE(err.find("ListenStream="), std::string::npos) << err;
  close(fd);
}

TEST_F(SocketActivationTest, AnIdleActivatedDaemonExitsAndTheNextOneServesTheSameSocket) {
  int fd = ListenAt(daemon_.socket_path(), 0600);
  ASSERT_GE(fd, 0);
  pid_t first = Activate(fd, {"--idle-exit", "1"});
  ASSERT_GT(first, 0);
  raw::v1::GetDaemonInfoResponse info;
  ASSERT_TRUE(Info(daemon_.socket_path(), &info).ok()) << ReadUnitText(StderrPath());
  EXPECT_EQ(WaitExit(first, std::chrono::seconds(60)), 0) << ReadUnitText(StderrPath());
  EXPECT_NE(ReadUnitText(StderrPath()).find("stopping: idle for 1 s"), std::string::npos);

  // A client that connects now waits in the socket's backlog until the
  // next daemon (systemd would start it on this connection) accepts it.
  raw::v1::GetDaemonInfoResponse again;
  std::thread client([&] { EXPECT_TRUE(Info(daemon_.socket_path(), &again).ok()); });
  pid_t second = Activate(fd);
  ASSERT_GT(second, 0);
  client.join();
  EXPECT_EQ(again.pid(), second);
  kill(second, SIGTERM);
  EXPECT_EQ(WaitExit(second, std::chrono::seconds(30)), 0);
  close(fd);
}

// A client that makes only short calls, none of them in progress when the
// daemon looks for idleness, keeps it running: every call that started
// since the last look counts as activity. The pauses pace the client (the
// behaviour under test), they wait for nothing; each is a tenth of the idle
// time, so the daemon cannot have been idle that long between two calls.
TEST_F(SocketActivationTest, ShortCallsKeepAnActivatedDaemonRunning) {
  int fd = ListenAt(daemon_.socket_path(), 0600);
  ASSERT_GE(fd, 0);
  pid_t pid = Activate(fd, {"--idle-exit", "2"});
  ASSERT_GT(pid, 0);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int calls = 0;
  while (std::chrono::steady_clock::now() < until) {
    auto stub = raw::v1::Raw::NewStub(MakeChannel(daemon_.socket_path()));
    grpc::ClientContext ctx;
    ctx.set_wait_for_ready(true);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    raw::v1::GetDaemonInfoResponse info;
    grpc::Status status = stub->GetDaemonInfo(&ctx, raw::v1::GetDaemonInfoRequest(), &info);
    ASSERT_TRUE(status.ok()) << "call " << calls << ": " << status.error_message() << "\n"
                             << ReadUnitText(StderrPath());
    ASSERT_EQ(info.pid(), pid) << "call " << calls;
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_GE(calls, 10);
  EXPECT_EQ(ReadUnitText(StderrPath()).find("stopping: idle"), std::string::npos);
  // Once the calls stop, the daemon goes as before.
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(60)), 0) << ReadUnitText(StderrPath());
  EXPECT_NE(ReadUnitText(StderrPath()).find("stopping: idle for 2 s"), std::string::npos);
  close(fd);
}

// A background job a tool's command left is rawd's child: systemd would end
// it with the unit, so an idle daemon stays until the job has ended.
TEST(SocketActivationIdleTest, AnIdleDaemonStaysWhileABackgroundJobItAdoptedRuns) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok()) << fake.status();
  std::string config = TestConfig(fake.base_url());
  config.replace(config.find('{'), 1, R"({"sessions": {"idle_unload_seconds": 1},)");
  TestDaemon daemon(config);
  const int fd = ListenAt(daemon.socket_path(), 0600);
  ASSERT_GE(fd, 0);
  const std::string stderr_path = daemon.root() + "/rawd.stderr";
  const pid_t rawd = SpawnActivated({BinaryPath("rawd"), "--foreground", "--idle-exit", "1"},
                                    daemon.env(), fd, stderr_path);
  ASSERT_GT(rawd, 0);
  raw::v1::GetDaemonInfoResponse info;
  ASSERT_TRUE(Info(daemon.socket_path(), &info).ok()) << ReadUnitText(stderr_path);
  auto stub = raw::v1::Raw::NewStub(MakeChannel(daemon.socket_path()));
  raw::v1::CreateSessionResponse created;
  {
    grpc::ClientContext ctx;
    raw::v1::CreateSessionRequest req;
    req.set_cwd(daemon.workdir());
    ASSERT_TRUE(stub->CreateSession(&ctx, req, &created).ok());
  }
  const std::string session = created.session().id();
  fake.Enqueue(testing::chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"sleep 3 >/dev/null 2>&1 & echo $!"})"}}));
  fake.Enqueue(testing::chat::TextAnswer("started"));
  pid_t job = -1;
  {
    EventStream stream(*stub, session);
    const std::string turn = StartTurn(*stub, session, "start a job");
    ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    for (const auto& e : stream.TurnEvents(turn)) {
      if (e.has_tool_result()) job = static_cast<pid_t>(std::stol(e.tool_result().content()));
    }
  }
  ASSERT_GT(job, 0);
  const int job_fd = static_cast<int>(syscall(SYS_pidfd_open, job, 0));
  ASSERT_GE(job_fd, 0);
  ReleaseLease(*stub, session);

  EXPECT_EQ(WaitExit(rawd, std::chrono::seconds(60)), 0) << ReadUnitText(stderr_path);
  pollfd p{job_fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 1) << "the daemon exited while the job ran";
  close(job_fd);
  close(fd);
}

TEST_F(SocketActivationTest, IdleExitIsIgnoredWhenRawdBindsItsOwnSocket) {
  ASSERT_TRUE(daemon_.Start({"--idle-exit", "1"}).ok());
  // Waiting for the warning is waiting for start-up to finish; a daemon
  // that exited when idle could not answer below.
  EXPECT_NE(daemon_.ReadLog().find("--idle-exit is ignored"), std::string::npos);
  raw::v1::GetDaemonInfoResponse info;
  ASSERT_TRUE(Info(daemon_.socket_path(), &info).ok());
  EXPECT_EQ(info.pid(), daemon_.pid());
}

TEST_F(SocketActivationTest, SystemdSocketActivateStartsRawdOnTheFirstConnection) {
  if (access("/usr/bin/systemd-socket-activate", X_OK) != 0) {
    GTEST_SKIP() << "systemd-socket-activate is not installed";
  }
  // systemd-socket-activate binds the socket mode 0644 (nobody else can
  // connect: that takes write permission) in the private directory, and
  // passes on only the variables given with -E (as systemd passes only the
  // unit's environment).
  std::vector<std::string> words = {"-c", "exec systemd-socket-activate \"$@\"", "sh", "-l",
                                    daemon_.socket_path()};
  const std::map<std::string, std::string> env = daemon_.env();
  for (const auto& [k, v] : env) words.push_back(absl::StrCat("-E", k, "=", v));
  for (const std::string& word :
       {BinaryPath("rawd"), std::string("--foreground"), std::string("--idle-exit"),
        std::string("1")}) {
    words.push_back(word);
  }
  const pid_t pid = SpawnShell(std::move(words), env, -1, StderrPath());
  ASSERT_GT(pid, 0);

  raw::v1::GetDaemonInfoResponse info;
  grpc::Status status = Info(daemon_.socket_path(), &info);
  ASSERT_TRUE(status.ok()) << status.error_message() << "\n" << ReadUnitText(StderrPath());
  // rawd replaced systemd-socket-activate in the same process.
  EXPECT_EQ(info.pid(), pid);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(60)), 0) << ReadUnitText(StderrPath());
}

}  // namespace
}  // namespace raw::e2e
