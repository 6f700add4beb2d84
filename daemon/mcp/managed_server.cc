#include "daemon/mcp/managed_server.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/child_env.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/thread_start.h"
#include "common/utf8.h"
#include "daemon/mcp/http_transport.h"
#include "daemon/mcp/log_text.h"
#include "daemon/mcp/mcp_tool_spec.h"
#include "daemon/mcp/stdio_transport.h"

namespace raw::mcp {
namespace {

// What a stdio server inherits from the daemon's environment (as the
// reference client does): enough to run, never the daemon's secrets.
constexpr const char* kInheritedEnv[] = {"HOME", "LOGNAME", "PATH",     "SHELL",  "TERM", "USER",
                                         "LANG", "LC_ALL",  "LC_CTYPE", "TMPDIR", "TZ"};
constexpr int64_t kHangPingTimeoutMs = 5000;

}  // namespace

const char* ServerStateName(ServerState state) {
  switch (state) {
    case ServerState::kStopped:
      return "stopped";
    case ServerState::kStarting:
      return "starting";
    case ServerState::kReady:
      return "ready";
    case ServerState::kFailed:
      return "failed";
  }
  return "unknown";
}

ManagedServer::ManagedServer(config::McpServerConfig config, ManagedServerOptions options)
    : config_(std::move(config)), options_(std::move(options)) {}

ManagedServer::~ManagedServer() { Shutdown(); }

void ManagedServer::Changed() const {
  if (options_.on_change) options_.on_change();
}

std::string ManagedServer::Clean(const std::string& text) const {
  std::string clean = SanitizeUtf8(text);
  return options_.redact ? options_.redact(clean) : clean;
}

absl::Status ManagedServer::Clean(const absl::Status& status) const {
  if (status.ok()) return status;
  return absl::Status(status.code(), Clean(std::string(status.message())));
}

absl::Status ManagedServer::Shown(const absl::Status& status) const {
  if (status.ok()) return status;
  return absl::Status(status.code(), SafeDisplayText(Clean(std::string(status.message())),
                                                     kMaxShownServerTextBytes));
}

absl::Status ManagedServer::Prepare(const ExpandFn& expand) {
  // Expansion may run a command; it happens without the lock. It runs on
  // every call: the variable store reads a variable again only when its
  // definition changed, and then the next start must send the new value.
  std::map<std::string, std::string> env;
  http::Headers headers;
  auto resolve = [&](const std::string& field, const std::string& key,
                     const std::string& value) -> absl::StatusOr<std::string> {
    if (!expand) return value;
    absl::StatusOr<std::string> expanded = expand(value);
    if (!expanded.ok()) {
      return absl::Status(expanded.status().code(),
                          absl::StrCat("mcp_servers.", config_.name, ".", field, ".", key, ": ",
                                       expanded.status().message()));
    }
    return expanded;
  };
  for (const auto& [key, value] : config_.env) {
    ASSIGN_OR_RETURN(env[key], resolve("env", key, value));
  }
  for (const auto& [key, value] : config_.headers) {
    ASSIGN_OR_RETURN(std::string expanded, resolve("headers", key, value));
    headers.emplace_back(key, std::move(expanded));
  }
  absl::MutexLock lock(&mu_);
  env_ = std::move(env);
  headers_ = std::move(headers);
  prepared_ = true;
  return absl::OkStatus();
}

std::unique_ptr<McpTransport> ManagedServer::MakeTransport() const {
  absl::MutexLock lock(&mu_);
  if (!config_.command.empty()) {
    StdioTransportOptions stdio;
    stdio.server_name = config_.name;
    stdio.process.argv = config_.command;
    stdio.process.cwd = config_.cwd;
    if (options_.env) {
      for (const char* name : kInheritedEnv) {
        if (std::optional<std::string> value = options_.env(name)) stdio.process.env[name] = *value;
      }
      // The daemon's PATH without the entries relative to where the server
      // runs (a `PATH` in the server's own env is the config's choice).
      if (auto path = stdio.process.env.find("PATH"); path != stdio.process.env.end()) {
        path->second = AbsolutePathEntries(path->second);
      }
    }
    for (const auto& [key, value] : env_) stdio.process.env[key] = value;
    stdio.stdin_close_grace_ms = options_.stdin_close_grace_ms;
    stdio.term_grace_ms = options_.term_grace_ms;
    return std::make_unique<StdioTransport>(std::move(stdio));
  }
  HttpTransportOptions http;
  http.server_name = config_.name;
  http.url = config_.url;
  http.headers = headers_;
  http.client = options_.http;
  return std::make_unique<HttpTransport>(std::move(http));
}

void ManagedServer::RecordFailure(std::string error) {
  state_ = ServerState::kFailed;
  last_error_ = std::move(error);
  ++failures_;
  // The first use after a failure retries at once; further attempts back
  // off exponentially.
  int64_t wait = 0;
  if (failures_ >= 2) {
    int shift = std::min(failures_ - 2, 20);
    wait = std::min(options_.initial_backoff_ms << shift, options_.max_backoff_ms);
  }
  next_attempt_ms_ = options_.clock->NowUnixMs() + wait;
}

absl::Status ManagedServer::EnsureReady(const CancelToken* cancel) {
  // A cancel only needs to wake the waits: absl::Mutex re-evaluates a
  // condition whenever the mutex is released.
  int wake = cancel != nullptr ? cancel->OnCancel([this] { absl::MutexLock lock(&mu_); }) : 0;
  absl::Status status = AwaitReady(cancel);
  if (cancel != nullptr) cancel->RemoveCallback(wake);
  return status;
}

absl::Status ManagedServer::AwaitReady(const CancelToken* cancel) {
  auto given_up = [cancel] { return cancel != nullptr && cancel->cancelled(); };
  std::shared_ptr<McpClient> stale;
  uint64_t epoch = 0;
  std::optional<std::string> backing_off;  // the error while waiting to retry
  {
    absl::MutexLock lock(&mu_);
    // A start, or the check of a server that let a call time out, is
    // waited for.
    auto settled = [this, &given_up]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return (state_ != ServerState::kStarting && !CheckingLocked()) || given_up();
    };
    mu_.Await(absl::Condition(&settled));
    if (shut_down_) return absl::CancelledError("the daemon is shutting down");
    if (given_up() && CheckingLocked()) {
      return absl::CancelledError("cancelled while the server was being checked");
    }
    if (state_ == ServerState::kReady) return absl::OkStatus();
    if (given_up()) return absl::CancelledError("cancelled while the server was starting");
    if (!prepared_) return absl::FailedPreconditionError("the server's settings were not resolved");
    const int64_t now = options_.clock->NowUnixMs();
    if (state_ == ServerState::kFailed && now < next_attempt_ms_) {
      backing_off =
          absl::StrCat(last_error_, " (next attempt in ", next_attempt_ms_ - now, " ms)");
    } else {
      state_ = ServerState::kStarting;
      stale = std::move(client_);
      epoch = ++epoch_;
      if (cancel != nullptr) ++start_threads_;
    }
  }
  if (backing_off) return absl::UnavailableError(Clean(*backing_off));
  Changed();
  if (cancel == nullptr) {
    stale.reset();  // closes a dead connection (unless a call still holds it)
    return Start(epoch);
  }
  // A caller that may give up (a tool call the user can interrupt) starts
  // the server on a thread of its own and waits for it: giving up returns
  // at once, and the start carries on for the next use. Shutdown waits for
  // the thread.
  absl::Status started = StartDetachedThread(
      absl::StrCat("starting MCP server \"", config_.name, "\""),
      [self = shared_from_this(), epoch, stale = std::move(stale)]() mutable {
        stale.reset();
        self->Start(epoch).IgnoreError();  // the waiters read the outcome from the state
        absl::MutexLock lock(&self->mu_);
        --self->start_threads_;
      });
  if (!started.ok()) {
    // No thread to be had: the start fails as one that could not connect
    // would (a later use tries again), and no thread runs to uncount itself.
    {
      absl::MutexLock lock(&mu_);
      --start_threads_;
      if (epoch_ == epoch && state_ == ServerState::kStarting) {
        RecordFailure(absl::StrCat("failed to start: ", started.message()));
      }
    }
    RAW_LOG(Warning) << "mcp server " << config_.name << ": " << started.message();
    Changed();
    return absl::Status(started.code(),
                        Clean(absl::StrCat("failed to start: ", started.message())));
  }
  std::string failure;
  {
    absl::MutexLock lock(&mu_);
    auto finished = [this, epoch, &given_up]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return epoch_ != epoch || state_ != ServerState::kStarting || given_up();
    };
    mu_.Await(absl::Condition(&finished));
    if (epoch_ == epoch && state_ == ServerState::kReady) return absl::OkStatus();
    if (epoch_ == epoch && state_ == ServerState::kFailed) {
      failure = last_error_;
    } else if (shut_down_) {
      return absl::CancelledError("the daemon is shutting down");
    } else if (given_up()) {
      return absl::CancelledError("cancelled while the server was starting");
    } else {
      return absl::UnavailableError("the server was stopped while it started");
    }
  }
  return absl::UnavailableError(Clean(failure));
}

absl::Status ManagedServer::Start(uint64_t epoch) {
  McpClientOptions client_options;
  client_options.server_name = config_.name;
  // startup_timeout_ms bounds the whole start (the handshake and every page
  // of the tool list), and each request of a later new session or refresh.
  client_options.request_timeout_ms = config_.startup_timeout_ms;
  client_options.connect_timeout_ms = config_.startup_timeout_ms;
  client_options.root_dir = options_.root_dir;
  client_options.on_tools_changed = [this, epoch] {
    {
      absl::MutexLock lock(&mu_);
      // While the client is still being installed, Start reads its tools
      // and generation after this refresh, so nothing is lost.
      if (epoch != epoch_ || client_ == nullptr) return;
      tools_ = client_->tools();
      left_out_ = client_->left_out_tools();
      ++tools_generation_;
    }
    Changed();
  };
  client_options.on_closed = [this, epoch](const absl::Status& reason) { OnClosed(epoch, reason); };
  auto client = std::make_shared<McpClient>(MakeTransport(), std::move(client_options));
  auto start_cancel = std::make_shared<CancelToken>();
  {
    absl::MutexLock lock(&mu_);
    start_cancel_ = start_cancel;
    if (shut_down_) start_cancel->Cancel("the daemon is shutting down");
  }
  absl::Status status = client->Connect(start_cancel.get());

  bool kept = false;
  {
    absl::MutexLock lock(&mu_);
    start_cancel_.reset();
    if (!status.ok()) {
      RecordFailure(absl::StrCat("failed to start: ", status.message()));
    } else if (shut_down_ || epoch != epoch_) {
      state_ = ServerState::kStopped;
    } else {
      kept = true;
      state_ = ServerState::kReady;
      client_ = client;
      last_error_.clear();
      protocol_version_ = client->server_info().protocol_version;
      // The client's generation counts its first listing and every refresh
      // since: a list_changed answered before this point (whose callback
      // found no client_ yet) still moves the generation on.
      tools_ = client->tools();
      left_out_ = client->left_out_tools();
      tools_generation_ += client->tools_generation();
      listed_ = true;
      last_used_ms_ = options_.clock->NowUnixMs();
    }
  }
  if (status.ok() && !kept) client->Close();
  Changed();
  if (!status.ok()) {
    RAW_LOG(Warning) << "mcp server " << config_.name
                     << " failed to start: " << LogText(std::string(status.message()));
    return absl::UnavailableError(Clean(absl::StrCat("failed to start: ", status.message())));
  }
  if (!kept) return absl::CancelledError("the daemon is shutting down");
  RAW_LOG(Info) << "mcp server " << config_.name << " is ready (" << client->transport().Describe()
                << ", MCP " << client->server_info().protocol_version << ", "
                << client->tools().size() << " tools)";
  return absl::OkStatus();
}

void ManagedServer::OnClosed(uint64_t epoch, const absl::Status& reason) {
  {
    absl::MutexLock lock(&mu_);
    if (epoch != epoch_ || state_ != ServerState::kReady) return;
    RecordFailure(absl::StrCat("stopped unexpectedly: ", reason.message()));
    notice_ = absl::StrCat("MCP server \"", config_.name, "\" ", last_error_,
                           "; it restarts when next used");
    // The dead client is closed later by a caller's thread: this one is its
    // reader thread.
  }
  Changed();
}

absl::StatusOr<CallToolResult> ManagedServer::Call(
    const std::string& tool, const Json& arguments, const CancelToken& cancel,
    std::function<void(const ProgressUpdate&)> on_progress) {
  std::shared_ptr<McpClient> client;
  uint64_t epoch = 0;
  // A second round covers an idle stop racing the start of the call.
  for (int attempt = 0; attempt < 2 && client == nullptr; ++attempt) {
    if (absl::Status ready = EnsureReady(&cancel); !ready.ok()) return Shown(ready);
    absl::MutexLock lock(&mu_);
    if (state_ == ServerState::kReady && client_ != nullptr) {
      client = client_;
      epoch = epoch_;
      ++inflight_;
      last_used_ms_ = options_.clock->NowUnixMs();
    }
  }
  if (client == nullptr) return absl::UnavailableError("the server stopped before the call began");
  CallOptions call;
  call.timeout_ms = config_.call_timeout_ms;
  call.cancel = &cancel;
  call.on_progress = std::move(on_progress);
  absl::StatusOr<CallToolResult> result = client->CallTool(tool, arguments, call);
  {
    absl::MutexLock lock(&mu_);
    --inflight_;
    last_used_ms_ = options_.clock->NowUnixMs();
    if (result.ok() && epoch == epoch_) failures_ = 0;
  }
  if (!result.ok() && !cancel.cancelled()) HandleCallFailure(client, epoch, result.status());
  if (absl::IsDeadlineExceeded(result.status())) {
    return absl::DeadlineExceededError(
        absl::StrCat("no answer within ", config_.call_timeout_ms, " ms; the call was cancelled"));
  }
  if (!result.ok()) return Shown(result.status());
  return result;
}

bool ManagedServer::CheckingLocked() const {
  return hang_check_epoch_ != 0 && hang_check_epoch_ == epoch_ && state_ == ServerState::kReady;
}

void ManagedServer::HandleCallFailure(const std::shared_ptr<McpClient>& client, uint64_t epoch,
                                      const absl::Status& status) {
  if (absl::IsDeadlineExceeded(status)) {
    // A slow tool is not a dead server: only one that ignores a ping too.
    // The ping runs on a thread of its own, so the call returns at its
    // timeout; uses of the server wait for the verdict meanwhile.
    {
      absl::MutexLock lock(&mu_);
      if (shut_down_ || epoch != epoch_ || state_ != ServerState::kReady ||
          hang_check_epoch_ == epoch) {
        return;
      }
      hang_check_epoch_ = epoch;
      ++hang_checks_;
    }
    auto check = [self = shared_from_this(), client, epoch] {
      self->CheckHung(client, epoch);
      absl::MutexLock lock(&self->mu_);
      if (self->hang_check_epoch_ == epoch) self->hang_check_epoch_ = 0;
      --self->hang_checks_;
    };
    absl::Status started = StartDetachedThread(
        absl::StrCat("checking whether MCP server \"", config_.name, "\" hangs"), check);
    // No thread to be had: this call waits for the ping (at most its
    // timeout) instead, and the check ends and uncounts itself as on its
    // own thread.
    if (!started.ok()) check();
  } else if (absl::IsUnavailable(status) && !IsSessionExpired(status)) {
    StopFailed(epoch, absl::StrCat("stopped unexpectedly: ", status.message()));
  }
}

void ManagedServer::CheckHung(const std::shared_ptr<McpClient>& client, uint64_t epoch) {
  int64_t ping_ms = options_.hang_ping_timeout_ms > 0
                        ? options_.hang_ping_timeout_ms
                        : std::clamp<int64_t>(config_.call_timeout_ms, 100, kHangPingTimeoutMs);
  if (client->Ping(ping_ms).ok()) return;
  StopFailed(epoch, absl::StrCat("stopped responding (no answer to a call within ",
                                 config_.call_timeout_ms, " ms, nor to a ping) and was stopped"));
}

void ManagedServer::StopFailed(uint64_t epoch, const std::string& failure) {
  std::shared_ptr<McpClient> stale;
  {
    absl::MutexLock lock(&mu_);
    if (epoch != epoch_ || state_ != ServerState::kReady) return;
    RecordFailure(failure);
    notice_ =
        absl::StrCat("MCP server \"", config_.name, "\" ", failure, "; it restarts when next used");
    stale = std::move(client_);
  }
  RAW_LOG(Warning) << "mcp server " << config_.name << " " << LogText(failure);
  Changed();
  if (stale != nullptr) stale->Close();
}

std::vector<tools::ToolSpec> ManagedServer::ToolSpecs() {
  std::shared_ptr<ManagedServer> self = shared_from_this();
  absl::MutexLock lock(&mu_);
  if (specs_generation_ != tools_generation_) {
    specs_.clear();
    for (const McpTool& tool : tools_) specs_.push_back(MakeToolSpec(self, tool));
    specs_generation_ = tools_generation_;
  }
  return specs_;
}

std::vector<std::string> ManagedServer::LeftOutTools() const {
  absl::MutexLock lock(&mu_);
  return left_out_;
}

bool ManagedServer::has_listed() const {
  absl::MutexLock lock(&mu_);
  return listed_;
}

uint64_t ManagedServer::tools_generation() const {
  absl::MutexLock lock(&mu_);
  return tools_generation_;
}

bool ManagedServer::WaitForToolsGeneration(uint64_t generation, int64_t timeout_ms) const {
  absl::MutexLock lock(&mu_);
  auto reached = [this, generation]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return tools_generation_ >= generation; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Milliseconds(timeout_ms));
}

bool ManagedServer::StopIfIdle() {
  std::shared_ptr<McpClient> stale;
  {
    absl::MutexLock lock(&mu_);
    if (state_ != ServerState::kReady || inflight_ > 0 || config_.idle_timeout_ms <= 0) {
      return false;
    }
    if (options_.clock->NowUnixMs() - last_used_ms_ < config_.idle_timeout_ms) return false;
    state_ = ServerState::kStopped;
    stale = std::move(client_);
    ++epoch_;
    failures_ = 0;
  }
  RAW_LOG(Info) << "mcp server " << config_.name << " stopped after " << config_.idle_timeout_ms
                << " ms unused";
  if (stale != nullptr) stale->Close();
  Changed();
  return true;
}

bool ManagedServer::ReleaseDeadConnection() {
  std::shared_ptr<McpClient> dead;
  {
    absl::MutexLock lock(&mu_);
    if (state_ != ServerState::kFailed || client_ == nullptr || inflight_ > 0) return false;
    dead = std::move(client_);
  }
  RAW_LOG(Info) << "mcp server " << config_.name << ": closed the connection of the stopped server";
  dead->Close();  // on this thread, never the connection's own reader
  return true;
}

std::optional<int64_t> ManagedServer::NextIdleCheckMs() const {
  absl::MutexLock lock(&mu_);
  if (state_ == ServerState::kFailed && client_ != nullptr && inflight_ == 0) {
    return options_.clock->NowUnixMs();
  }
  if (state_ != ServerState::kReady || config_.idle_timeout_ms <= 0) return std::nullopt;
  if (inflight_ > 0) return options_.clock->NowUnixMs() + config_.idle_timeout_ms;
  return last_used_ms_ + config_.idle_timeout_ms;
}

void ManagedServer::Shutdown() {
  std::shared_ptr<McpClient> stale;
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stale = std::move(client_);
    if (state_ != ServerState::kStarting) state_ = ServerState::kStopped;
    if (start_cancel_) start_cancel_->Cancel("the daemon is shutting down");
    ++epoch_;
  }
  if (stale != nullptr) stale->Close();
  // A start on a thread of its own uses the daemon's HTTP client and calls
  // on_change: it must be over before the daemon goes on stopping. Its
  // Connect ends at once, being cancelled above; so does the ping of a hang
  // check, its connection being closed (a check of an older connection
  // found it closed already).
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return start_threads_ == 0 && hang_checks_ == 0;
  };
  mu_.Await(absl::Condition(&done));
}

McpServerStatus StoppedStatus(const config::McpServerConfig& config) {
  McpServerStatus status;
  status.name = config.name;
  status.transport = config.command.empty() ? "http" : "stdio";
  status.endpoint = config.command.empty() ? PublicEndpoint(config.url) : config.command[0];
  status.session_id = config.session_id;
  return status;
}

McpServerStatus ManagedServer::Status() const {
  McpServerStatus status = StoppedStatus(config_);
  status.root_dir = options_.root_dir;
  {
    absl::MutexLock lock(&mu_);
    status.state = state_;
    status.last_error = last_error_;
    status.protocol_version = protocol_version_;
    status.consecutive_failures = failures_;
    for (const McpTool& tool : tools_) status.tools.push_back(tool.name);
  }
  // Cleaned when read, so secrets learnt since the failure are hidden too;
  // made safe to show and cut after the redaction, which must see whole
  // values.
  if (!status.last_error.empty()) {
    status.last_error = SafeDisplayText(Clean(status.last_error), kMaxShownServerTextBytes);
  }
  return status;
}

std::optional<std::string> ManagedServer::TakeNotice(const CancelToken* cancel) {
  int wake = cancel != nullptr ? cancel->OnCancel([this] { absl::MutexLock lock(&mu_); }) : 0;
  std::optional<std::string> notice;
  {
    absl::MutexLock lock(&mu_);
    auto known = [this, cancel]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !CheckingLocked() || (cancel != nullptr && cancel->cancelled());
    };
    mu_.Await(absl::Condition(&known));
    notice = std::move(notice_);
    notice_.reset();
  }
  if (cancel != nullptr) cancel->RemoveCallback(wake);
  if (notice) notice = SafeDisplayText(Clean(*notice), kMaxShownServerTextBytes);
  return notice;
}

int ManagedServer::pid() const {
  absl::MutexLock lock(&mu_);
  if (client_ == nullptr || state_ != ServerState::kReady) return 0;
  auto* stdio = dynamic_cast<StdioTransport*>(&client_->transport());
  return stdio != nullptr ? stdio->pid() : 0;
}

}  // namespace raw::mcp
