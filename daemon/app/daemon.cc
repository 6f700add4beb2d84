#include "daemon/app/daemon.h"

#include <fcntl.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/cancel_token.h"
#include "common/child_ledger.h"
#include "common/file_trust.h"
#include "common/logging.h"
#include "common/owned_children.h"
#include "common/request_limit.h"
#include "common/status_macros.h"
#include "common/time.h"
#include "common/version.h"
#include "daemon/api/call_counter.h"
#include "daemon/api/raw_service.h"
#include "daemon/api/uds_listener.h"
#include "daemon/app/dir_permissions.h"
#include "daemon/app/state_lock.h"
#include "daemon/app/stop_deadline.h"
#include "daemon/http/curl_http_client.h"
#include "daemon/loop/session_manager.h"
#include "daemon/mcp/mcp_manager.h"
#include "daemon/store/session_store.h"
#include "daemon/tools/registry.h"
#include "daemon/vars/redact.h"
#include "daemon/vars/variable_store.h"

namespace raw::app {
namespace {

// How long the server's graceful shutdown may take before the remaining
// calls are cancelled and connections closed. By then every Subscribe stream
// has been drained and unary calls take milliseconds; what a longer grace
// would mostly wait for is idle client processes acknowledging the final
// GOAWAY ping, which they may only notice seconds later.
constexpr auto kServerShutdownGrace = std::chrono::milliseconds(500);

// How long the whole stop may take before the process ends without
// finishing it. The steps' own bounds add up to under 7 s: what a cancelled
// turn or preparation waits on (a tool's command, a hook, a variable
// command) gets 2 s after SIGTERM before SIGKILL, the gRPC server 500 ms,
// the MCP servers, stopped all at once, 4 s (stdin closed, 2 s, SIGTERM,
// 2 s, SIGKILL). Below `raw daemon stop`'s 30 s and systemd's default 90 s.
constexpr absl::Duration kStopDeadline = absl::Seconds(15);
// How long a start waits for a daemon that is stopping to release the state
// lock: past its own stop deadline, so that only a stuck one is an error.
const absl::Duration kStoppingDaemonWait = absl::Seconds(20);  // kStopDeadline + 5 s

// Tells whether an OpenAI-compatible server answers at `base_url`: a GET of
// {base_url}/models that must return 200 within one second.
config::ServerProbe MakeServerProbe(http::HttpClient& http) {
  return [&http](const std::string& base_url) {
    http::HttpRequest request;
    request.method = "GET";
    request.url = base_url;
    while (!request.url.empty() && request.url.back() == '/') request.url.pop_back();
    request.url += "/models";
    request.connect_timeout_ms = 1000;
    request.total_timeout_ms = 1000;
    CancelToken never_cancelled;
    http::HttpResponse response;
    absl::Status status = http::SendAndCollect(http, request, never_cancelled, &response);
    return status.ok() && response.status == 200;
  };
}

std::string CurrentDir() {
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  return ec ? std::string("/") : cwd.string();
}

}  // namespace

Daemon::Daemon(DaemonOptions options, EnvLookup env)
    : options_(std::move(options)), env_(std::move(env)) {}

Daemon::~Daemon() { Stop(); }

int Daemon::Run() {
  if (absl::Status status = Start(); !status.ok()) {
    ReportStartupFailure(status);
    Stop();
    return 1;
  }
  WaitForStop();
  Stop();
  return 0;
}

void Daemon::RequestShutdown() {
  uint64_t one = 1;
  if (write(stop_fd_, &one, sizeof(one)) < 0) {
    // Only fails when the counter is saturated: a stop is pending anyway.
  }
}

absl::Status Daemon::Start() {
  if (absl::Status s = CheckReadyFd(); !s.ok()) return s;
  absl::StatusOr<DaemonPaths> paths = ResolveDaemonPaths(options_, env_, CurrentDir());
  if (!paths.ok()) return paths.status();
  paths_ = *paths;
  if (absl::Status s = CheckExplicitConfigExists(options_, paths_.config_path); !s.ok()) return s;

  if (absl::Status s = EnsureDir(paths_.state_dir); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(paths_.lock_path, paths_.state_dir, kStoppingDaemonWait, [](long pid) {
        RAW_LOG(Info) << "waiting for the rawd that is stopping (pid " << pid << ") to exit";
      });
  if (!lock.ok()) return lock.status();
  lock_ = std::move(*lock);

  log_file_open_ = SetLogFile(paths_.log_path, options_.foreground);
  // Under systemd, stderr is the journal: each line gets its priority.
  if (StderrIsJournal()) SetStderrPriorityPrefixes(true);
  if (!log_file_open_) {
    RAW_LOG(Warning) << "cannot open the log file " << paths_.log_path << "; logging to stderr";
  }
  RAW_LOG(Info) << "rawd " << kVersion << " starting: pid " << getpid() << ", socket "
                << paths_.socket_path << ", config " << paths_.config_path << ", state "
                << paths_.state_dir;
  const std::string config_dir = Dirname(paths_.config_path);
  dir_warnings_ = DirPermissionWarnings({{"state directory", paths_.state_dir},
                                         {"config directory", config_dir},
                                         {"hooks directory", config_dir + "/hooks"}},
                                        getuid());
  for (std::string& warning : FileTrustWarnings("the config file", paths_.config_path, getuid())) {
    dir_warnings_.push_back(std::move(warning));
  }
  for (const std::string& warning : dir_warnings_) RAW_LOG(Warning) << warning;
  // Under the state lock, so no other daemon's children are touched.
  if (absl::StatusOr<int> ended = child_ledger::Open(paths_.state_dir + "/children.ledger"); !ended.ok()) {
    RAW_LOG(Warning) << ended.status().message()
                     << "; processes left by a crash of this daemon will not be ended";
  } else if (*ended > 0) {
    RAW_LOG(Warning) << "ended " << *ended
                     << " process group(s) left running by the previous daemon (it did not "
                        "stop cleanly)";
  }

  // An inherited socket's directory is checked, never changed (Adopt).
  if (options_.listen_fd < 0) {
    if (absl::Status s = EnsurePrivateDir(Dirname(paths_.socket_path)); !s.ok()) return s;
  }

  absl::StatusOr<std::unique_ptr<store::SessionStore>> store =
      store::SessionStore::Open(paths_.database_path);
  if (!store.ok()) return store.status();
  store_ = std::move(*store);

  http_ = std::make_unique<http::CurlHttpClient>(
      http::CurlHttpClient::Options{absl::StrCat("rawd/", kVersion),
                                    http::TrustedCaFileFromEnvironment()});
  tools_ = std::make_unique<tools::ToolRegistry>();
  if (absl::Status s = tools::RegisterBuiltinTools(*tools_); !s.ok()) return s;
  clock_ = std::make_unique<SystemClock>();
  variables_ = std::make_unique<vars::VariableStore>(env_);
  // Known secret values never reach the log, whichever layer logs them (an
  // MCP server's stderr, a provider's error message).
  SetLogFilter([variables = variables_.get()](const std::string& text) {
    return vars::Redact(text, variables->SecretValues());
  });
  mcp::McpManagerOptions mcp_options;
  mcp_options.http = http_.get();
  mcp_options.env = env_;
  // An MCP server's stderr (in last_error and notices) may echo a secret.
  mcp_options.redact = [variables = variables_.get()](const std::string& text) {
    return vars::Redact(text, variables->SecretValues());
  };
  mcp_ = std::make_unique<mcp::McpManager>(std::move(mcp_options));
  sessions_ = std::make_unique<loop::SessionManager>(loop::SessionManagerDeps{
      .store = *store_,
      .http = *http_,
      .tools = *tools_,
      .clock = *clock_,
      .env = env_,
      .config_path = paths_.config_path,
      .probe = MakeServerProbe(*http_),
      .variables = variables_.get(),
      .mcp = mcp_.get(),
  });

  NoteOldDatabases();
  PurgeExpiredSessions();

  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) return absl::InternalError(absl::StrCat("eventfd: ", std::strerror(errno)));
  api::DaemonInfo info{
      .version = kVersion,
      .protocol_version = kProtocolVersion,
      .pid = getpid(),
      .config_path = paths_.config_path,
      .state_dir = paths_.state_dir,
      .socket_path = paths_.socket_path,
      .database_path = paths_.database_path,
      .log_path = paths_.log_path,
      .started_at_unix_ms = clock_->NowUnixMs(),
      .warnings = dir_warnings_,
  };
  service_ = std::make_unique<api::RawService>(*sessions_, std::move(info),
                                               [this] { RequestShutdown(); });

  // No listening ports: connections come from the listener below, which
  // checks each peer's uid first.
  grpc::ServerBuilder builder;
  // A prompt may carry 10 MiB of images (events::kMaxPromptImageBytes) with
  // its text; gRPC's default limit is 4 MiB.
  builder.SetMaxReceiveMessageSize(static_cast<int>(kMaxRequestBytes));
  builder.RegisterService(service_.get());
  calls_ = std::make_unique<api::CallCounter>();
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> counting;
  counting.push_back(calls_->InterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(counting));
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) return absl::InternalError("the gRPC server failed to start");

  listener_ = std::make_unique<api::UdsListener>(paths_.socket_path, getuid());
  const bool activated = options_.listen_fd >= 0;
  if (absl::Status s = activated ? listener_->Adopt(options_.listen_fd) : listener_->Listen();
      !s.ok()) {
    return s;
  }
  RETURN_IF_ERROR(listener_->Start(*server_));
  if (options_.idle_exit_seconds > 0 && !activated) {
    RAW_LOG(Warning) << "--idle-exit is ignored: rawd was not started by socket activation, "
                        "so nothing would start it again";
  }

  SignalReady();
  RAW_LOG(Info) << "rawd ready: listening on " << paths_.socket_path
                << (activated ? " (socket passed by systemd)" : "") << " (database "
                << paths_.database_path << ")";
  return absl::OkStatus();
}

void Daemon::WaitForStop() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC);
  if (signal_fd < 0) {
    RAW_LOG(Error) << "signalfd: " << std::strerror(errno) << "; only Shutdown can stop rawd";
  }
  pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {signal_fd, POLLIN, 0}};
  const bool idle_exit = options_.idle_exit_seconds > 0 && options_.listen_fd >= 0;
  auto next_purge = std::chrono::steady_clock::now() + std::chrono::milliseconds(kExpiryCheckIntervalMs);
  std::optional<std::chrono::steady_clock::time_point> idle_since;
  uint64_t calls_seen = 0;
  for (;;) {
    const int timeout_ms = idle_exit ? kIdleCheckIntervalMs : kExpiryCheckIntervalMs;
    int ready = poll(fds, signal_fd < 0 ? 1 : 2, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      RAW_LOG(Error) << "poll: " << std::strerror(errno) << "; stopping";
      break;
    }
    if (ready == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= next_purge) {
        PurgeExpiredSessions();
        next_purge = now + std::chrono::milliseconds(kExpiryCheckIntervalMs);
      }
      if (!idle_exit) continue;
      // A background job a tool's command left is rawd's child (rawd is its
      // subreaper): when rawd exits, systemd ends the unit's processes
      // (KillMode=mixed), so rawd stays while one runs.
      // A call in progress, or one that started since the last check, is
      // activity: a slow unary call is not cut off, and short calls keep
      // the daemon as streams do.
      const uint64_t calls_started = calls_->started();
      const bool called = calls_started != calls_seen || calls_->in_progress() > 0;
      calls_seen = calls_started;
      if (called || sessions_->loaded_sessions() > 0 || service_->open_streams() > 0 ||
          HasOrphans()) {
        idle_since.reset();
        continue;
      }
      if (!idle_since) idle_since = now;
      if (now - *idle_since >= std::chrono::seconds(options_.idle_exit_seconds)) {
        RAW_LOG(Info) << "stopping: idle for " << options_.idle_exit_seconds
                      << " s (socket-activated; systemd starts rawd again when needed)";
        break;
      }
      continue;
    }
    if (fds[0].revents != 0) {
      RAW_LOG(Info) << "stopping: Shutdown was called";
      break;
    }
    signalfd_siginfo si;
    if (fds[1].revents == 0 || read(signal_fd, &si, sizeof(si)) != sizeof(si)) continue;
    if (si.ssi_signo == SIGHUP) {
      // For log rotation: reopen the file under its name.
      if (log_file_open_) log_file_open_ = SetLogFile(paths_.log_path, options_.foreground);
      RAW_LOG(Info) << "SIGHUP: log file reopened";
      continue;
    }
    RAW_LOG(Info) << "stopping: received SIG" << sigabbrev_np(static_cast<int>(si.ssi_signo))
                  << " from pid " << si.ssi_pid;
    break;
  }
  if (signal_fd >= 0) close(signal_fd);
}

void Daemon::NoteOldDatabases() {
  for (const std::string& path : store::FindOldDatabases(paths_.state_dir)) {
    absl::StatusOr<bool> first = store_->NoteOnce(absl::StrCat("old_database:", path));
    if (!first.ok() || !*first) continue;
    RAW_LOG(Warning) << "found " << path
                     << ", a session database of another, unsupported version: it is left "
                        "untouched and not converted; new sessions are stored in "
                     << paths_.database_path;
  }
}

void Daemon::PurgeExpiredSessions() {
  absl::StatusOr<size_t> removed = sessions_->PurgeExpired();
  if (!removed.ok()) {
    RAW_LOG(Warning) << "could not remove expired sessions: " << removed.status().message();
  }
}

void Daemon::Stop() {
  bool started = lock_ != nullptr;
  // Each step below bounds itself; this bounds the whole (stop_deadline.h).
  // Past the deadline the processes rawd started are ended too, not left
  // running until the next start ends them through the ledger.
  StopDeadline deadline(kStopDeadline, [] {
    child_ledger::EndLiveGroups();
    _exit(1);
  });
  // Stop accepting; connections already open stay until the server stops.
  // A client that finds no socket now starts a new daemon, which waits for
  // this one's lock instead of failing (StateLock::MarkStopping).
  deadline.Step("closing the socket");
  if (lock_) lock_->MarkStopping();
  if (listener_) listener_->Stop();
  // Running turns end now and record a cancelled end; what was being
  // prepared is dropped, and the variable commands and server starts it
  // waited on end.
  deadline.Step("ending the sessions' turns");
  if (sessions_) sessions_->Shutdown();
  // Subscribe streams deliver those last events, then end.
  deadline.Step("ending the Subscribe streams");
  if (service_) service_->DrainStreams();
  deadline.Step("shutting down the gRPC server");
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + kServerShutdownGrace);
    server_->Wait();
  }
  listener_.reset();
  server_.reset();
  calls_.reset();
  service_.reset();
  sessions_.reset();
  // MCP servers stop (all at once) before the HTTP client they may use
  // goes away.
  deadline.Step("stopping the MCP servers");
  if (mcp_) mcp_->Shutdown();
  mcp_.reset();
  SetLogFilter(nullptr);
  variables_.reset();
  clock_.reset();
  tools_.reset();
  http_.reset();
  deadline.Step("closing the store");
  store_.reset();
  if (stop_fd_ >= 0) close(stop_fd_);
  stop_fd_ = -1;
  // Every child is waited for by now; a clean end tells the next daemon
  // that it has nothing to end.
  if (started && !child_ledger::Close()) {
    RAW_LOG(Warning) << "some processes rawd started still run; the next start ends them";
  }
  if (started) RAW_LOG(Info) << "rawd stopped (pid " << getpid() << ")";
  lock_.reset();
}

absl::Status Daemon::CheckReadyFd() {
  if (options_.ready_fd < 0) return absl::OkStatus();
  int flags = fcntl(options_.ready_fd, F_GETFD);
  if (flags < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ready-fd ", options_.ready_fd, " is not an open file descriptor"));
  }
  // Tool processes must not inherit it (they would keep the reader waiting).
  fcntl(options_.ready_fd, F_SETFD, flags | FD_CLOEXEC);
  return absl::OkStatus();
}

void Daemon::SignalReady() {
  if (options_.ready_fd < 0) return;
  char ready = 'R';
  ssize_t n;
  do {
    n = write(options_.ready_fd, &ready, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) {
    RAW_LOG(Warning) << "cannot signal readiness on fd " << options_.ready_fd << ": "
                     << std::strerror(errno);
  }
  close(options_.ready_fd);
  // Whoever started us stops reading our output once we are ready; from now
  // on the log file is the only channel (unless --foreground), and children
  // (tool commands) must not inherit the starter's pipes.
  if (!options_.foreground && log_file_open_) {
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) {
      dup2(null_fd, STDIN_FILENO);
      dup2(null_fd, STDOUT_FILENO);
      dup2(null_fd, STDERR_FILENO);
      close(null_fd);
    }
  }
}

void Daemon::ReportStartupFailure(const absl::Status& status) {
  std::string message(status.message());
  if (log_file_open_) RAW_LOG(Error) << "rawd cannot start: " << message;
  // Whoever started rawd reads stderr; the log line got there already only
  // with --foreground.
  if (!(log_file_open_ && options_.foreground)) std::fprintf(stderr, "rawd: %s\n", message.c_str());
  // The ready fd closes with the process: a reader waiting on it sees EOF.
}

}  // namespace raw::app
