#include "tests/support/test_daemon.h"
#include "tests/support/test_leases.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::e2e {
namespace {

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> EnvStrings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& socket_path) {
  // Its own subchannel pool, as in RawClient: after a restart the global pool
  // can still hold the connection to the stopped daemon.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // As the clients do (raw_client.cc): a model may send one call's
  // arguments larger than gRPC's default 4 MiB, and its events must arrive.
  args.SetMaxReceiveMessageSize(64 * 1024 * 1024);
  return grpc::CreateCustomChannel(absl::StrCat("unix:", socket_path),
                                   grpc::InsecureChannelCredentials(), args);
}

void ShutdownDaemonAt(const std::string& socket_path) {
  auto stub = raw::v1::Raw::NewStub(MakeChannel(socket_path));
  raw::v1::GetDaemonInfoResponse info;
  {
    grpc::ClientContext ctx;
    grpc::Status s = stub->GetDaemonInfo(&ctx, raw::v1::GetDaemonInfoRequest(), &info);
    if (!s.ok()) {
      ADD_FAILURE() << "no daemon answers at " << socket_path << ": " << s.error_message();
      return;
    }
  }
  const pid_t pid = static_cast<pid_t>(info.pid());
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    ADD_FAILURE() << "pidfd_open(" << pid << ") failed";
    return;
  }
  grpc::ClientContext ctx;
  raw::v1::ShutdownResponse response;
  EXPECT_TRUE(stub->Shutdown(&ctx, raw::v1::ShutdownRequest(), &response).ok());
  pollfd exited = {pidfd, POLLIN, 0};
  if (poll(&exited, 1, 30000) != 1) {
    ADD_FAILURE() << "the daemon at " << socket_path << " did not exit";
    kill(pid, SIGKILL);
  }
  close(pidfd);
}

std::string BinaryPath(const std::string& name) { return absl::StrCat(RAW_BINARY_DIR, "/bin/", name); }

CommandResult RunCommand(const std::vector<std::string>& argv_in,
                         const std::map<std::string, std::string>& env,
                         const std::string& stdin_text) {
  CommandResult result;
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(in_pipe, O_CLOEXEC) != 0) {
    return result;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> envs = EnvStrings(env);
  auto cargv = CStrings(argv);
  auto cenv = CStrings(envs);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = absl::StrCat("spawn failed: ", strerror(rc));
    return result;
  }
  if (!stdin_text.empty()) {
    [[maybe_unused]] ssize_t n = write(in_pipe[1], stdin_text.data(), stdin_text.size());
  }
  close(in_pipe[1]);
  struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  result.exit_code = ExitCode(status);
  result.max_rss_kb = usage.ru_maxrss;
  return result;
}

TestDaemon::TestDaemon(const std::string& config_json) {
  char tmpl[] = "/tmp/rawe2e.XXXXXX";
  root_ = mkdtemp(tmpl);
  for (const char* d : {"config/raw", "state", "data", "run", "home", "work"}) {
    std::filesystem::create_directories(absl::StrCat(root_, "/", d));
  }
  chmod(absl::StrCat(root_, "/run").c_str(), 0700);
  socket_path_ = absl::StrCat(root_, "/run/rawd.sock");
  state_dir_ = absl::StrCat(root_, "/state/raw");
  config_path_ = absl::StrCat(root_, "/config/raw/config.json");
  workdir_ = absl::StrCat(root_, "/work");
  std::ofstream(config_path_) << config_json;
}

TestDaemon::~TestDaemon() {
  stub_.reset();
  channel_.reset();
  if (pid_ > 0) Stop(SIGKILL);
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

std::map<std::string, std::string> TestDaemon::env() const {
  std::map<std::string, std::string> env = {
      {"HOME", absl::StrCat(root_, "/home")},
      {"XDG_CONFIG_HOME", absl::StrCat(root_, "/config")},
      {"XDG_STATE_HOME", absl::StrCat(root_, "/state")},
      {"XDG_DATA_HOME", absl::StrCat(root_, "/data")},
      {"XDG_RUNTIME_DIR", absl::StrCat(root_, "/run")},
      {"RAW_SOCKET", socket_path_},
      {"RAW_TEST_KEY", "sk-test-key"},
      {"PATH", "/usr/local/bin:/usr/bin:/bin"},
  };
  for (const auto& [k, v] : extra_env_) env[k] = v;
  return env;
}

absl::Status TestDaemon::Start(const std::vector<std::string>& extra_args) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  std::string err_path = absl::StrCat(root_, "/rawd.stderr");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&fa, ready[1], 3);
  std::vector<std::string> argv = {BinaryPath("rawd"), "--socket", socket_path_, "--config",
                                   config_path_, "--ready-fd", "3"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  argv.insert(argv.begin(), launcher_.begin(), launcher_.end());
  std::vector<std::string> envs = EnvStrings(env());
  auto cargv = CStrings(argv);
  auto cenv = CStrings(envs);
  int rc = posix_spawn(&pid_, argv[0].c_str(), &fa, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  close(ready[1]);
  if (rc != 0) {
    close(ready[0]);
    pid_ = -1;
    return absl::InternalError(absl::StrCat("cannot start rawd: ", strerror(rc)));
  }
  char c = 0;
  ssize_t n;
  do {
    n = read(ready[0], &c, 1);
  } while (n < 0 && errno == EINTR);
  close(ready[0]);
  if (n != 1 || c != 'R') {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return absl::UnavailableError(absl::StrCat("rawd did not start (exit ", ExitCode(status),
                                               "): ", ReadStderr()));
  }
  channel_ = MakeChannel(socket_path_);
  stub_ = raw::v1::Raw::NewStub(channel_);
  return absl::OkStatus();
}

int TestDaemon::Stop(int sig) {
  if (pid_ <= 0) return -1;
  kill(pid_, sig);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  stub_.reset();
  channel_.reset();
  return ExitCode(status);
}

raw::v1::Raw::Stub& TestDaemon::stub() { return *stub_; }

CommandResult TestDaemon::RunRaw(const std::vector<std::string>& args,
                                 const std::string& stdin_text) {
  std::vector<std::string> argv = {BinaryPath("raw")};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, env(), stdin_text);
}

std::string TestDaemon::ReadStderr() const { return ReadFile(absl::StrCat(root_, "/rawd.stderr")); }
std::string TestDaemon::ReadLog() const { return ReadFile(absl::StrCat(state_dir_, "/rawd.log")); }

std::string TestDaemon::CreateSession(const std::string& agent) {
  grpc::ClientContext ctx;
  raw::v1::CreateSessionRequest req;
  req.set_agent(agent);
  req.set_cwd(workdir_);
  raw::v1::CreateSessionResponse resp;
  grpc::Status s = stub_->CreateSession(&ctx, req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return resp.session().id();
}

EventStream::EventStream(raw::v1::Raw::Stub& stub, const std::string& session_id,
                         uint64_t after_seq) {
  raw::v1::SubscribeRequest req;
  req.set_session_id(session_id);
  req.set_after_seq(after_seq);
  auto reader = stub.Subscribe(&ctx_, req);
  thread_ = std::thread([this, reader = std::move(reader)]() mutable {
    raw::v1::Event e;
    while (reader->Read(&e)) {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(e);
      cv_.notify_all();
    }
    grpc::Status s = reader->Finish();
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    status_ = s;
    cv_.notify_all();
  });
}

EventStream::~EventStream() {
  ctx_.TryCancel();
  if (thread_.joinable()) thread_.join();
}

std::optional<raw::v1::Event> EventStream::WaitFor(
    const std::function<bool(const raw::v1::Event&)>& pred, std::chrono::milliseconds timeout,
    size_t from_index) {
  std::unique_lock<std::mutex> lock(mu_);
  std::optional<raw::v1::Event> found;
  cv_.wait_for(lock, timeout, [&] {
    for (size_t i = from_index; i < events_.size(); ++i) {
      if (pred(events_[i])) {
        found = events_[i];
        return true;
      }
    }
    return finished_;
  });
  return found;
}

std::optional<raw::v1::Event> EventStream::WaitForTurnEnd(const std::string& turn_id,
                                                          std::chrono::milliseconds timeout) {
  return WaitFor(
      [&](const raw::v1::Event& e) { return e.turn_id() == turn_id && e.has_turn_ended(); },
      timeout);
}

std::vector<raw::v1::Event> EventStream::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::vector<raw::v1::Event> EventStream::TurnEvents(const std::string& turn_id) const {
  std::vector<raw::v1::Event> out;
  for (const auto& e : events()) {
    if (e.turn_id() == turn_id) out.push_back(e);
  }
  return out;
}

bool EventStream::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

grpc::Status EventStream::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

std::string StartTurn(raw::v1::Raw::Stub& stub, const std::string& session_id,
                      const std::string& text, grpc::Status* status) {
  grpc::ClientContext ctx;
  raw::v1::StartTurnRequest req;
  req.set_session_id(session_id);
  req.set_text(text);
  req.set_lease_id(LeaseFor(stub, session_id));
  raw::v1::StartTurnResponse resp;
  grpc::Status s = stub.StartTurn(&ctx, req, &resp);
  if (status != nullptr) {
    *status = s;
  } else {
    EXPECT_TRUE(s.ok()) << s.error_message();
  }
  return resp.turn_id();
}

raw::v1::GetHistoryResponse History(raw::v1::Raw::Stub& stub, const std::string& session) {
  grpc::ClientContext ctx;
  raw::v1::GetHistoryRequest req;
  req.set_session_id(session);
  req.set_limit(1000);
  raw::v1::GetHistoryResponse resp;
  grpc::Status s = stub.GetHistory(&ctx, req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return resp;
}

}  // namespace raw::e2e
