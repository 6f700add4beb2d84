#include "clients/lib/raw_client.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/lib/daemon_launcher.h"
#include "clients/lib/daemon_socket.h"
#include "clients/lib/lock_file.h"
#include "common/status_macros.h"
#include "common/version.h"
#include "grpcpp/grpcpp.h"
#include "raw/v1/raw_service.grpc.pb.h"

namespace raw::client {

struct RawClient::Impl {
  std::string socket_path;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::Raw::Stub> stub;
  // AcquireLease's, on a connection of its own (ConnectOptions::
  // lease_connection); otherwise `stub`'s.
  std::shared_ptr<grpc::Channel> lease_channel;
  std::unique_ptr<v1::Raw::Stub> lease_stub;
  v1::GetDaemonInfoResponse info;
  bool started_daemon = false;
  absl::Duration call_timeout;
  // The unary calls in flight, for CancelCalls.
  absl::Mutex mu;
  std::set<grpc::ClientContext*> calls ABSL_GUARDED_BY(mu);
  bool cancelled ABSL_GUARDED_BY(mu) = false;
};

namespace {

// The daemon is local and trusted; history pages with long tool results may
// exceed gRPC's 4 MiB default.
constexpr int kMaxMessageBytes = 64 * 1024 * 1024;
// Deadline of the version check made by Connect (see there).
constexpr absl::Duration kVersionCheckTimeout = absl::Seconds(10);

absl::Status ToAbsl(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  // grpc::StatusCode and absl::StatusCode share their numbering.
  auto code = static_cast<absl::StatusCode>(status.error_code());
  std::string message = status.error_message();
  if (message.empty()) message = absl::StatusCodeToString(code);
  return absl::Status(code, message);
}

template <typename Request, typename Response>
using UnaryMethod = grpc::Status (v1::Raw::Stub::*)(grpc::ClientContext*, const Request&,
                                                    Response*);

template <typename Request, typename Response>
absl::StatusOr<Response> Call(RawClient::Impl& impl, UnaryMethod<Request, Response> method,
                              const Request& request) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + impl.call_timeout));
  {
    absl::MutexLock lock(&impl.mu);
    if (impl.cancelled) return absl::CancelledError("the call was cancelled");
    impl.calls.insert(&context);
  }
  Response response;
  grpc::Status status = ((*impl.stub).*method)(&context, request, &response);
  {
    absl::MutexLock lock(&impl.mu);
    impl.calls.erase(&context);
  }
  if (!status.ok()) return ToAbsl(status);
  return response;
}

// A socket in a directory that other users can write to (such as /tmp) can
// be replaced by them; autostart refuses to put one there.
absl::Status CheckSocketDir(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0022) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot start the daemon with its socket in ", dir,
        ": other users can write to that directory. Use a socket path in a private "
        "directory (mode 0700), or leave --socket and RAW_SOCKET unset"));
  }
  return EnsurePrivateDir(dir);
}

// Under the autostart lock: connect again or start rawd. Returns whether
// this call started it.
absl::StatusOr<bool> StartDaemonIfAbsent(const ConnectOptions& options,
                                         const std::string& socket) {
  RETURN_IF_ERROR(CheckSocketDir(Dirname(socket)));
  ASSIGN_OR_RETURN(LockFile lock, LockFile::Acquire(socket + ".lock"));
  // Another client may have started the daemon while this one waited.
  absl::Status probe = CheckDaemonSocket(socket, options.handshake_timeout);
  if (probe.ok()) return false;
  if (!absl::IsUnavailable(probe)) return probe;
  std::string self = options.self_exe.empty() ? SelfExecutable() : options.self_exe;
  ASSIGN_OR_RETURN(std::string daemon, FindDaemonBinary(options.env, self));
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = socket;
  launch.extra_args = options.daemon_args;
  launch.ready_timeout = options.ready_timeout;
  RETURN_IF_ERROR(LaunchDaemon(launch));
  // What listens now is checked like any daemon found running.
  RETURN_IF_ERROR(CheckDaemonSocket(socket, options.handshake_timeout));
  return true;
}

}  // namespace

std::string SocketPathFor(const ConnectOptions& options) {
  std::string path =
      options.socket_path.empty() ? ResolveSocketPath(options.env) : options.socket_path;
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  return AbsolutePath(path, ec ? "/" : cwd.string());
}

bool AutostartEnabled(const ConnectOptions& options) {
  if (options.autostart == Autostart::kNever) return false;
  if (options.autostart == Autostart::kRequested) return true;
  auto off = options.env("RAW_NO_AUTOSTART");
  return !off || *off == "0";
}

absl::StatusOr<RawClient> Connect(const ConnectOptions& options) {
  const std::string socket = SocketPathFor(options);
  bool started = false;
  absl::Status probe = CheckDaemonSocket(socket, options.handshake_timeout);
  if (!probe.ok()) {
    if (!absl::IsUnavailable(probe)) return probe;
    if (!AutostartEnabled(options)) {
      return absl::UnavailableError(absl::StrCat(
          probe.message(), options.autostart == Autostart::kNever
                               ? ""
                               : " (not started automatically: RAW_NO_AUTOSTART is set)"));
    }
    ASSIGN_OR_RETURN(started, StartDaemonIfAbsent(options, socket));
  }
  // A channel to the daemon at `socket`, checked by its first call.
  auto connect_to = [&options, &socket](bool started_it) -> absl::StatusOr<RawClient> {
    auto impl = std::make_unique<RawClient::Impl>();
    impl->socket_path = socket;
    impl->started_daemon = started_it;
    impl->call_timeout = options.call_timeout;
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(kMaxMessageBytes);
    // A connection of this channel's own: the process-wide subchannel pool
    // could hand a reconnecting client the broken connection to a daemon that
    // has just been restarted, failing its first call with "Broken pipe".
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    impl->channel = grpc::CreateCustomChannel(absl::StrCat("unix:", socket),
                                              grpc::InsecureChannelCredentials(), args);
    impl->stub = v1::Raw::NewStub(impl->channel);
    if (options.lease_connection) {
      // A channel connects at its first call.
      impl->lease_channel = grpc::CreateCustomChannel(absl::StrCat("unix:", socket),
                                                      grpc::InsecureChannelCredentials(), args);
      impl->lease_stub = v1::Raw::NewStub(impl->lease_channel);
    }
    RawClient client(std::move(impl));

    // The version check is the first call: bounded more tightly than others,
    // so that a gRPC server that is not rawd cannot hold the client for long.
    client.impl_->call_timeout = std::min(options.call_timeout, kVersionCheckTimeout);
    auto info = client.GetDaemonInfo(v1::GetDaemonInfoRequest());
    client.impl_->call_timeout = options.call_timeout;
    if (!info.ok()) {
      return absl::Status(
          info.status().code(),
          absl::StrCat("the daemon at ", socket, " did not answer: ", info.status().message()));
    }
    if (options.version_check == VersionCheck::kRequireMatch &&
        info->protocol_version() != kProtocolVersion) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "the daemon at %s speaks protocol version %d (rawd %s), but this client speaks "
          "version %d (%s); stop that daemon (raw daemon stop) so that a matching one starts",
          socket, info->protocol_version(), info->version(), kProtocolVersion, kVersion));
    }
    client.impl_->info = *std::move(info);
    return client;
  };
  absl::StatusOr<RawClient> client = connect_to(started);
  if (client.ok() || !absl::IsUnavailable(client.status()) || started ||
      !AutostartEnabled(options)) {
    return client;
  }
  // The daemon that answered the probe went away before the first call (it
  // was stopping): start one, once.
  ASSIGN_OR_RETURN(started, StartDaemonIfAbsent(options, socket));
  return connect_to(started);
}

RawClient::RawClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RawClient::RawClient(RawClient&&) noexcept = default;
RawClient& RawClient::operator=(RawClient&&) noexcept = default;
RawClient::~RawClient() = default;

const std::string& RawClient::socket_path() const { return impl_->socket_path; }
const v1::GetDaemonInfoResponse& RawClient::daemon_info() const { return impl_->info; }
bool RawClient::started_daemon() const { return impl_->started_daemon; }

absl::StatusOr<v1::GetDaemonInfoResponse> RawClient::GetDaemonInfo(
    const v1::GetDaemonInfoRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::GetDaemonInfo, request);
}
absl::StatusOr<v1::CreateSessionResponse> RawClient::CreateSession(
    const v1::CreateSessionRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::CreateSession, request);
}
absl::StatusOr<v1::GetSessionResponse> RawClient::GetSession(
    const v1::GetSessionRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::GetSession, request);
}
absl::StatusOr<v1::ListSessionsResponse> RawClient::ListSessions(
    const v1::ListSessionsRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::ListSessions, request);
}
absl::StatusOr<v1::StartTurnResponse> RawClient::StartTurn(const v1::StartTurnRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::StartTurn, request);
}
absl::StatusOr<v1::InterruptTurnResponse> RawClient::InterruptTurn(
    const v1::InterruptTurnRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::InterruptTurn, request);
}

absl::StatusOr<v1::RespondToApprovalResponse> RawClient::RespondToApproval(
    const v1::RespondToApprovalRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::RespondToApproval, request);
}
absl::StatusOr<v1::GetHistoryResponse> RawClient::GetHistory(
    const v1::GetHistoryRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::GetHistory, request);
}
absl::StatusOr<v1::CheckConfigResponse> RawClient::CheckConfig(
    const v1::CheckConfigRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::CheckConfig, request);
}
absl::StatusOr<v1::GetConfigTemplateResponse> RawClient::GetConfigTemplate(
    const v1::GetConfigTemplateRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::GetConfigTemplate, request);
}
absl::StatusOr<v1::ShutdownResponse> RawClient::Shutdown(const v1::ShutdownRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::Shutdown, request);
}

absl::StatusOr<v1::CompactResponse> RawClient::Compact(const v1::CompactRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::Compact, request);
}
absl::StatusOr<v1::ClearContextResponse> RawClient::ClearContext(
    const v1::ClearContextRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::ClearContext, request);
}
absl::StatusOr<v1::GetStatsResponse> RawClient::GetStats(const v1::GetStatsRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::GetStats, request);
}
absl::StatusOr<v1::ListAgentsResponse> RawClient::ListAgents(const v1::ListAgentsRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::ListAgents, request);
}
absl::StatusOr<v1::ListMcpServersResponse> RawClient::ListMcpServers(
    const v1::ListMcpServersRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::ListMcpServers, request);
}

absl::StatusOr<v1::DeclineHandoverResponse> RawClient::DeclineHandover(
    const v1::DeclineHandoverRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::DeclineHandover, request);
}
absl::StatusOr<v1::SetSessionMcpServersResponse> RawClient::SetSessionMcpServers(
    const v1::SetSessionMcpServersRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::SetSessionMcpServers, request);
}
absl::StatusOr<v1::ConfigureSessionResponse> RawClient::ConfigureSession(
    const v1::ConfigureSessionRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::ConfigureSession, request);
}
absl::StatusOr<v1::ListPackagesResponse> RawClient::ListPackages(
    const v1::ListPackagesRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::ListPackages, request);
}

absl::StatusOr<v1::ListModelsResponse> RawClient::ListModels(const v1::ListModelsRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::ListModels, request);
}

absl::StatusOr<v1::DeleteSessionResponse> RawClient::DeleteSession(
    const v1::DeleteSessionRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::DeleteSession, request);
}

absl::StatusOr<v1::PluginSettings> RawClient::GetPluginSettings(
    const v1::GetPluginSettingsRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::GetPluginSettings, request);
}

absl::StatusOr<v1::PluginSettings> RawClient::SetPluginSettings(
    const v1::SetPluginSettingsRequest& request) {
  return Call(*impl_, &v1::Raw::Stub::SetPluginSettings, request);
}

absl::Status RawClient::AcquireLease(const v1::AcquireLeaseRequest& request,
                                     LeaseHandler& handler, StreamCanceller& canceller) {
  grpc::ClientContext context;
  if (!canceller.Attach(&context)) return absl::CancelledError("lease stream cancelled");
  v1::Raw::Stub& stub = impl_->lease_stub ? *impl_->lease_stub : *impl_->stub;
  std::unique_ptr<grpc::ClientReader<v1::LeaseEvent>> reader = stub.AcquireLease(&context, request);
  v1::LeaseEvent event;
  while (reader->Read(&event)) handler.OnLeaseEvent(event);
  grpc::Status status = reader->Finish();
  bool cancelled = canceller.cancelled();
  canceller.Detach();
  if (cancelled) return absl::CancelledError("lease stream cancelled");
  return ToAbsl(status);
}

absl::Status RawClient::Subscribe(const std::string& session_id, uint64_t after_seq,
                                  EventHandler& handler) {
  return DoSubscribe(session_id, after_seq, handler, nullptr);
}

absl::Status RawClient::Subscribe(const std::string& session_id, uint64_t after_seq,
                                  EventHandler& handler, StreamCanceller& canceller) {
  return DoSubscribe(session_id, after_seq, handler, &canceller);
}

absl::Status RawClient::DoSubscribe(const std::string& session_id, uint64_t after_seq,
                                    EventHandler& handler, StreamCanceller* canceller) {
  grpc::ClientContext context;
  if (canceller != nullptr && !canceller->Attach(&context)) {
    return absl::CancelledError("subscription cancelled");
  }
  v1::SubscribeRequest request;
  request.set_session_id(session_id);
  request.set_after_seq(after_seq);
  // Batched: a client that fell behind catches up in a few messages instead
  // of paying for a message per event (raw_service.proto).
  std::unique_ptr<grpc::ClientReader<v1::EventBatch>> reader =
      impl_->stub->SubscribeBatched(&context, request);
  bool stopped = handler.OnOpen() == EventHandler::Next::kStop;
  v1::EventBatch batch;
  while (!stopped && reader->Read(&batch)) {
    for (const v1::Event& event : batch.events()) {
      stopped = handler.OnEvent(event) == EventHandler::Next::kStop;
      if (stopped) break;
    }
    handler.OnBatchEnd();
  }
  if (stopped) context.TryCancel();
  grpc::Status status = reader->Finish();
  bool cancelled = false;
  if (canceller != nullptr) {
    cancelled = canceller->cancelled();
    canceller->Detach();
  }
  if (stopped) return absl::OkStatus();
  if (cancelled) return absl::CancelledError("subscription cancelled");
  return ToAbsl(status);
}

void RawClient::CancelCalls() {
  absl::MutexLock lock(&impl_->mu);
  impl_->cancelled = true;
  for (grpc::ClientContext* context : impl_->calls) context->TryCancel();
}

absl::Status RawClient::WaitUntilUnreachable(absl::Duration timeout) {
  const auto deadline = absl::ToChronoTime(absl::Now() + timeout);
  for (;;) {
    // Asking to connect turns IDLE (the daemon closed the connection) into
    // CONNECTING, which fails at once when nothing listens any more.
    grpc_connectivity_state state = impl_->channel->GetState(/*try_to_connect=*/true);
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
      return absl::OkStatus();
    }
    if (!impl_->channel->WaitForStateChange(state, deadline)) {
      return absl::DeadlineExceededError(
          absl::StrCat("the daemon at ", impl_->socket_path, " still accepts connections after ",
                       absl::FormatDuration(timeout)));
    }
  }
}

void StreamCanceller::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  if (context_ != nullptr) context_->TryCancel();
}

bool StreamCanceller::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

bool StreamCanceller::Attach(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  if (cancelled_) return false;
  context_ = context;
  return true;
}

void StreamCanceller::Detach() {
  absl::MutexLock lock(&mu_);
  context_ = nullptr;
}

}  // namespace raw::client
