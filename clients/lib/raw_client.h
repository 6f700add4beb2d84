// RawClient: a connection to the daemon `rawd` and typed calls on it.
//
// Connect() finds the socket (an explicit path, else $RAW_SOCKET, else the
// default from common/paths.h), checks that it belongs to the user's own
// daemon (daemon_socket.h: a private directory, the listener's uid, a gRPC
// handshake within ConnectOptions::handshake_timeout), starts rawd when
// nothing listens there (autostart, see below), checks that the daemon
// speaks this client's protocol version, and returns a RawClient. Every RPC of raw.v1.Raw has a
// wrapper that returns absl::Status(Or); a failed call keeps the daemon's
// status code and message.
//
// Autostart: unless disabled (ConnectOptions::autostart, or RAW_NO_AUTOSTART
// set to anything but "0"), a client that finds no daemon makes the socket's
// directory private, takes an exclusive flock on "<socket>.lock", tries to
// connect once more (another client may have started rawd meanwhile), and
// otherwise starts rawd detached and waits for its readiness signal (see
// daemon_launcher.h). Two clients starting at once therefore start one
// daemon.
//
// Ownership and thread-safety: RawClient owns its gRPC channel and is
// movable. Once constructed, its methods may be called from several threads
// at once (gRPC stubs are thread-safe); this is how a second thread
// interrupts a turn while the first one reads the event stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/paths.h"
#include "raw/v1/raw_service.pb.h"

namespace grpc {
class ClientContext;
}  // namespace grpc

namespace raw::client {

enum class Autostart {
  kIfAllowed,  // start rawd when no daemon listens, unless RAW_NO_AUTOSTART is set
  kRequested,  // the user asked for a daemon (raw daemon start): RAW_NO_AUTOSTART is ignored
  kNever,      // fail with kUnavailable when no daemon listens
};

enum class VersionCheck {
  kRequireMatch,  // fail when the daemon speaks another protocol version
  kReport,        // connect anyway; daemon_info() tells the caller (status, stop)
};

struct ConnectOptions {
  // Explicit socket path (the --socket option); empty uses the default
  // (ResolveSocketPath, common/paths.h: $RAW_SOCKET, then the runtime
  // directory's rawd.sock). A relative path is taken against the current
  // directory.
  std::string socket_path;
  Autostart autostart = Autostart::kIfAllowed;
  VersionCheck version_check = VersionCheck::kRequireMatch;
  // RAW_SOCKET, RAW_NO_AUTOSTART, RAW_DAEMON, XDG_RUNTIME_DIR and PATH are
  // read through this lookup.
  EnvLookup env = ProcessEnv();
  // The client executable, beside which rawd is looked for; empty uses
  // /proc/self/exe.
  std::string self_exe;
  // Extra arguments for an autostarted rawd (for example --config PATH).
  std::vector<std::string> daemon_args;
  absl::Duration ready_timeout = absl::Seconds(30);
  // How long the listener at the socket has to answer the gRPC (HTTP/2)
  // handshake before the client gives up on it (see daemon_socket.h).
  absl::Duration handshake_timeout = absl::Seconds(2);
  // Deadline of each unary call (and of the version check at connect).
  absl::Duration call_timeout = absl::Seconds(60);
  // The write lease's stream (AcquireLease) on a connection of its own,
  // opened at its first use, so that its thread does not wait on the
  // connection that carries the events (see poll_engine.h).
  bool lease_connection = false;
};

// Receives the events of a Subscribe stream, on the thread that called
// RawClient::Subscribe.
class EventHandler {
 public:
  enum class Next { kContinue, kStop };

  virtual ~EventHandler() = default;

  // Called once the stream is open, before the first event is read: the
  // place to start the work whose events the stream must not miss
  // (StartTurn). kStop ends the subscription at once.
  virtual Next OnOpen() { return Next::kContinue; }

  virtual Next OnEvent(const v1::Event& event) = 0;

  // Called after the events of one message of the stream (several when the
  // client fell behind; see SubscribeBatched) were passed to OnEvent, and
  // before the next message is read: the place to hand them on together.
  virtual void OnBatchEnd() {}
};

// Receives the messages of an AcquireLease stream, on the thread that
// called RawClient::AcquireLease: `granted` (with the lease id that writes
// carry), or first `waiting` (a handover was requested from the holder)
// and `granted` once the holder releases; while holding, possibly
// `handover_requested` (another client asks for the lease).
class LeaseHandler {
 public:
  virtual ~LeaseHandler() = default;
  virtual void OnLeaseEvent(const v1::LeaseEvent& event) = 0;
};

// Ends a running Subscribe from another thread. Cancel() may come before,
// during or after the subscription; once called, the subscription ends (or
// never starts) and Subscribe returns kCancelled. One canceller serves one
// Subscribe call at a time. Thread-safe.
class StreamCanceller {
 public:
  void Cancel();
  bool cancelled() const;

 private:
  friend class RawClient;
  // Returns false when already cancelled (the stream must not start).
  bool Attach(grpc::ClientContext* context);
  void Detach();

  mutable absl::Mutex mu_;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

class RawClient {
 public:
  RawClient(RawClient&&) noexcept;
  RawClient& operator=(RawClient&&) noexcept;
  ~RawClient();

  const std::string& socket_path() const;
  // The daemon's answer to the version check made by Connect.
  const v1::GetDaemonInfoResponse& daemon_info() const;
  // True when Connect started the daemon.
  bool started_daemon() const;

  absl::StatusOr<v1::GetDaemonInfoResponse> GetDaemonInfo(const v1::GetDaemonInfoRequest& request);
  absl::StatusOr<v1::CreateSessionResponse> CreateSession(const v1::CreateSessionRequest& request);
  absl::StatusOr<v1::GetSessionResponse> GetSession(const v1::GetSessionRequest& request);
  absl::StatusOr<v1::ListSessionsResponse> ListSessions(const v1::ListSessionsRequest& request);
  absl::StatusOr<v1::StartTurnResponse> StartTurn(const v1::StartTurnRequest& request);
  absl::StatusOr<v1::InterruptTurnResponse> InterruptTurn(const v1::InterruptTurnRequest& request);
  absl::StatusOr<v1::RespondToApprovalResponse> RespondToApproval(
      const v1::RespondToApprovalRequest& request);
  absl::StatusOr<v1::GetHistoryResponse> GetHistory(const v1::GetHistoryRequest& request);
  absl::StatusOr<v1::CheckConfigResponse> CheckConfig(const v1::CheckConfigRequest& request);
  absl::StatusOr<v1::GetConfigTemplateResponse> GetConfigTemplate(
      const v1::GetConfigTemplateRequest& request);
  absl::StatusOr<v1::ShutdownResponse> Shutdown(const v1::ShutdownRequest& request);
  absl::StatusOr<v1::CompactResponse> Compact(const v1::CompactRequest& request);
  absl::StatusOr<v1::ClearContextResponse> ClearContext(const v1::ClearContextRequest& request);
  absl::StatusOr<v1::GetStatsResponse> GetStats(const v1::GetStatsRequest& request);
  absl::StatusOr<v1::ListAgentsResponse> ListAgents(const v1::ListAgentsRequest& request);
  absl::StatusOr<v1::ListMcpServersResponse> ListMcpServers(
      const v1::ListMcpServersRequest& request);
  absl::StatusOr<v1::DeclineHandoverResponse> DeclineHandover(
      const v1::DeclineHandoverRequest& request);
  // A session's own MCP servers, its agent and model, and the model list
  // (see docs/api.md); the first two need the session's lease.
  absl::StatusOr<v1::SetSessionMcpServersResponse> SetSessionMcpServers(
      const v1::SetSessionMcpServersRequest& request);
  absl::StatusOr<v1::ConfigureSessionResponse> ConfigureSession(
      const v1::ConfigureSessionRequest& request);
  absl::StatusOr<v1::ListModelsResponse> ListModels(const v1::ListModelsRequest& request);
  // Removing a session (needs its lease) and the plugin settings.
  absl::StatusOr<v1::DeleteSessionResponse> DeleteSession(const v1::DeleteSessionRequest& request);
  absl::StatusOr<v1::PluginSettings> GetPluginSettings(const v1::GetPluginSettingsRequest& request);
  absl::StatusOr<v1::PluginSettings> SetPluginSettings(const v1::SetPluginSettingsRequest& request);
  absl::StatusOr<v1::ListPackagesResponse> ListPackages(const v1::ListPackagesRequest& request);

  // Holds the session's write lease while the stream stays open: delivers
  // its messages to `handler` on the calling thread and returns when the
  // stream ends: kCancelled when `canceller` ended it (the lease is
  // released), kFailedPrecondition naming the holder when another client
  // holds the lease and request_handover is false or the holder declined
  // the handover, OK when the daemon ended it (the session went away), and
  // the stream's error otherwise.
  absl::Status AcquireLease(const v1::AcquireLeaseRequest& request, LeaseHandler& handler,
                            StreamCanceller& canceller);

  // Subscribes to `session_id` after `after_seq` and delivers each event to
  // `handler` on the calling thread until the handler returns kStop or the
  // stream ends. Returns OK when the handler stopped it or the daemon ended
  // it cleanly, kCancelled when `canceller` ended it, and the stream's error
  // otherwise.
  absl::Status Subscribe(const std::string& session_id, uint64_t after_seq,
                         EventHandler& handler);
  absl::Status Subscribe(const std::string& session_id, uint64_t after_seq,
                         EventHandler& handler, StreamCanceller& canceller);

  // Ends every unary call in flight on this client at once (kCancelled)
  // and fails the later ones without sending them: for an owner that goes
  // away and must not wait for a slow or stopped daemon. Streams have
  // their own StreamCanceller. Thread-safe; cannot be undone.
  void CancelCalls();

  // Blocks until the daemon behind this client no longer accepts
  // connections (after Shutdown), waiting on the channel's state changes.
  // kDeadlineExceeded when it still does after `timeout`.
  absl::Status WaitUntilUnreachable(absl::Duration timeout);

  // Opaque outside raw_client.cc.
  struct Impl;

 private:
  explicit RawClient(std::unique_ptr<Impl> impl);
  friend absl::StatusOr<RawClient> Connect(const ConnectOptions& options);

  absl::Status DoSubscribe(const std::string& session_id, uint64_t after_seq,
                           EventHandler& handler, StreamCanceller* canceller);

  std::unique_ptr<Impl> impl_;
};

// The socket path Connect would use for `options` (absolute).
std::string SocketPathFor(const ConnectOptions& options);

// True when autostart is allowed by `options` and the environment.
bool AutostartEnabled(const ConnectOptions& options);

// Connects as described at the top of this file. Fails with kUnavailable
// when no daemon listens and autostart is off, with kPermissionDenied when
// the socket's directory or listener belongs to another user, with
// kFailedPrecondition when the listener is not a Raw daemon, when the daemon
// speaks another protocol version or could not be started (the message then
// includes what rawd printed).
absl::StatusOr<RawClient> Connect(const ConnectOptions& options);

}  // namespace raw::client
