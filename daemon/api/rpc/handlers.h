// The RPC handlers of raw.v1.Raw, one per file in this directory.
//
// Each unary handler validates its request, calls the domain facade
// (loop::SessionManager), converts the result and finishes the call through
// ReturnStatus, the one exit that maps absl::Status to grpc::Status. The
// handlers hold no state of their own; RawService owns their collaborators
// and forwards each generated method here.
//
// Threading: handlers run on gRPC's callback threads and never wait on slow
// work. Reads (ListSessions, GetHistory, ...) are short store reads;
// GetSession and GetStats (which may load a session to estimate its
// context), CheckConfig, ListMcpServers and ListPackages (which read package
// store entries: up to 10,000 files each), every write and CreateSession are
// posted to the daemon's worker pool or the session's serial queue, and the
// call finishes from there when the command has run (FinishWith), so no
// handler waits on a provider, an MCP server, a subprocess, a variable
// command, a probe, a disk scan or another session.
#pragma once

#include <grpcpp/support/server_callback.h>
#include <grpcpp/server_context.h>

#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "daemon/api/daemon_info.h"
#include "daemon/api/rpc/active_streams.h"
#include "daemon/loop/session_manager.h"
#include "daemon/loop/subscription.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::api::rpc {

using UnaryReactor = grpc::ServerUnaryReactor;
using EventStream = grpc::ServerWriteReactor<raw::v1::Event>;
using BatchStream = grpc::ServerWriteReactor<raw::v1::EventBatch>;
using LeaseStream = grpc::ServerWriteReactor<raw::v1::LeaseEvent>;

// Finishes a unary call with `status` (OK or an error) via
// convert::ToGrpcStatus. Every unary handler that answers at once returns
// through it.
UnaryReactor* ReturnStatus(grpc::CallbackServerContext* ctx, const absl::Status& status);
// For a handler that answers later: it returns ctx->DefaultReactor() at once
// and the domain's reply callback (on whatever thread it runs) fills the
// response and finishes the call through this, exactly once.
void FinishWith(UnaryReactor* reactor, const absl::Status& status);

UnaryReactor* GetDaemonInfo(grpc::CallbackServerContext* ctx, const DaemonInfo& info,
                            loop::SessionManager& sessions,
                            const raw::v1::GetDaemonInfoRequest& request,
                            raw::v1::GetDaemonInfoResponse* response);
UnaryReactor* CreateSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                            const raw::v1::CreateSessionRequest& request,
                            raw::v1::CreateSessionResponse* response);
UnaryReactor* GetSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::GetSessionRequest& request,
                         raw::v1::GetSessionResponse* response);
UnaryReactor* ListSessions(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                           const raw::v1::ListSessionsRequest& request,
                           raw::v1::ListSessionsResponse* response);
UnaryReactor* StartTurn(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                        const raw::v1::StartTurnRequest& request,
                        raw::v1::StartTurnResponse* response);
UnaryReactor* InterruptTurn(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                            const raw::v1::InterruptTurnRequest& request,
                            raw::v1::InterruptTurnResponse* response);
UnaryReactor* RespondToApproval(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                                const raw::v1::RespondToApprovalRequest& request,
                                raw::v1::RespondToApprovalResponse* response);
UnaryReactor* GetHistory(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::GetHistoryRequest& request,
                         raw::v1::GetHistoryResponse* response);
UnaryReactor* CheckConfig(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                          const raw::v1::CheckConfigRequest& request,
                          raw::v1::CheckConfigResponse* response);
UnaryReactor* GetConfigTemplate(grpc::CallbackServerContext* ctx, const DaemonInfo& info,
                                const raw::v1::GetConfigTemplateRequest& request,
                                raw::v1::GetConfigTemplateResponse* response);
// Replies, and once the reply is done calls `request_shutdown` (which must
// not block: it only tells the daemon's main thread to begin stopping).
UnaryReactor* Shutdown(grpc::CallbackServerContext* ctx,
                       const std::function<void()>& request_shutdown,
                       const raw::v1::ShutdownRequest& request,
                       raw::v1::ShutdownResponse* response);

UnaryReactor* Compact(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                      const raw::v1::CompactRequest& request, raw::v1::CompactResponse* response);
UnaryReactor* ClearContext(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                           const raw::v1::ClearContextRequest& request,
                           raw::v1::ClearContextResponse* response);
UnaryReactor* GetStats(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                       const raw::v1::GetStatsRequest& request,
                       raw::v1::GetStatsResponse* response);
UnaryReactor* ListAgents(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::ListAgentsRequest& request,
                         raw::v1::ListAgentsResponse* response);
UnaryReactor* ListMcpServers(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                             const raw::v1::ListMcpServersRequest& request,
                             raw::v1::ListMcpServersResponse* response);

UnaryReactor* SetSessionMcpServers(grpc::CallbackServerContext* ctx,
                                   loop::SessionManager& sessions,
                                   const raw::v1::SetSessionMcpServersRequest& request,
                                   raw::v1::SetSessionMcpServersResponse* response);
UnaryReactor* ConfigureSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                               const raw::v1::ConfigureSessionRequest& request,
                               raw::v1::ConfigureSessionResponse* response);
UnaryReactor* ListModels(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::ListModelsRequest& request,
                         raw::v1::ListModelsResponse* response);

UnaryReactor* ListPackages(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                           const raw::v1::ListPackagesRequest& request,
                           raw::v1::ListPackagesResponse* response);

UnaryReactor* DeleteSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                            const raw::v1::DeleteSessionRequest& request,
                            raw::v1::DeleteSessionResponse* response);
UnaryReactor* GetPluginSettings(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                                const raw::v1::GetPluginSettingsRequest& request,
                                raw::v1::PluginSettings* response);
UnaryReactor* SetPluginSettings(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                                const raw::v1::SetPluginSettingsRequest& request,
                                raw::v1::PluginSettings* response);

UnaryReactor* DeclineHandover(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                              const raw::v1::DeclineHandoverRequest& request,
                              raw::v1::DeclineHandoverResponse* response);

// Holds the session's write lease while the stream is open (see
// acquire_lease.cc); registered with `streams` so shutdown ends it.
LeaseStream* AcquireLease(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                          ActiveStreams& streams, const raw::v1::AcquireLeaseRequest& request);

EventStream* Subscribe(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                       ActiveStreams& streams, const raw::v1::SubscribeRequest& request);

// The Subscribe stream itself: writes every event `subscription` yields, one
// write in flight at a time, until the client cancels, the subscription
// fails (the stream ends with the mapped status) or `streams` is drained
// (the stream delivers what is ready, then ends with UNAVAILABLE). Takes
// ownership of the subscription. Exposed so tests can drive it with a fake.
EventStream* StreamSubscription(std::unique_ptr<loop::Subscription> subscription,
                                ActiveStreams& streams);

// SubscribeBatched: the same stream, each message carrying every event
// that is ready when its write starts (raw_service.proto).
BatchStream* SubscribeBatched(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                              ActiveStreams& streams, const raw::v1::SubscribeRequest& request);
BatchStream* StreamSubscriptionBatched(std::unique_ptr<loop::Subscription> subscription,
                                       ActiveStreams& streams);

// A stream that ends at once with `status` (which must not be OK).
EventStream* FailedStream(const absl::Status& status);

}  // namespace raw::api::rpc
