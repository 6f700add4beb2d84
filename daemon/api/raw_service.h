// RawService: the gRPC service raw.v1.Raw. It only forwards each generated
// method to its handler in rpc/ (one file per RPC) together with the
// collaborators that handler needs; it holds no logic of its own.
//
// Ownership: borrows the SessionManager, which must outlive the server this
// service is registered with; owns the DaemonInfo, the shutdown callback and
// the registry of open Subscribe streams.
//
// Thread-safety: every method is called on gRPC callback threads, any
// number at once.
#pragma once

#include <functional>

#include "daemon/api/daemon_info.h"
#include "daemon/api/rpc/active_streams.h"
#include "daemon/loop/session_manager.h"
#include "raw/v1/raw_service.grpc.pb.h"

namespace raw::api {

class RawService final : public raw::v1::Raw::CallbackService {
 public:
  // `request_shutdown` is called (on a gRPC thread) after a Shutdown RPC was
  // answered; it must not block.
  RawService(loop::SessionManager& sessions, DaemonInfo info,
             std::function<void()> request_shutdown);

  // Lets every open Subscribe stream deliver what is ready and then end with
  // UNAVAILABLE; streams opened afterwards end at once. Called during
  // shutdown, before the server is shut down, so that it need not wait for
  // its deadline.
  void DrainStreams();
  // Subscribe and AcquireLease streams open now.
  int open_streams() { return streams_.size(); }

  grpc::ServerUnaryReactor* GetDaemonInfo(grpc::CallbackServerContext* ctx,
                                          const raw::v1::GetDaemonInfoRequest* request,
                                          raw::v1::GetDaemonInfoResponse* response) override;
  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* ctx,
                                          const raw::v1::CreateSessionRequest* request,
                                          raw::v1::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* ctx,
                                       const raw::v1::GetSessionRequest* request,
                                       raw::v1::GetSessionResponse* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* ctx,
                                         const raw::v1::ListSessionsRequest* request,
                                         raw::v1::ListSessionsResponse* response) override;
  grpc::ServerUnaryReactor* StartTurn(grpc::CallbackServerContext* ctx,
                                      const raw::v1::StartTurnRequest* request,
                                      raw::v1::StartTurnResponse* response) override;
  grpc::ServerUnaryReactor* InterruptTurn(grpc::CallbackServerContext* ctx,
                                          const raw::v1::InterruptTurnRequest* request,
                                          raw::v1::InterruptTurnResponse* response) override;
  grpc::ServerUnaryReactor* RespondToApproval(
      grpc::CallbackServerContext* ctx, const raw::v1::RespondToApprovalRequest* request,
      raw::v1::RespondToApprovalResponse* response) override;
  grpc::ServerWriteReactor<raw::v1::Event>* Subscribe(
      grpc::CallbackServerContext* ctx, const raw::v1::SubscribeRequest* request) override;
  grpc::ServerWriteReactor<raw::v1::EventBatch>* SubscribeBatched(
      grpc::CallbackServerContext* ctx, const raw::v1::SubscribeRequest* request) override;
  grpc::ServerUnaryReactor* GetHistory(grpc::CallbackServerContext* ctx,
                                       const raw::v1::GetHistoryRequest* request,
                                       raw::v1::GetHistoryResponse* response) override;
  grpc::ServerUnaryReactor* CheckConfig(grpc::CallbackServerContext* ctx,
                                        const raw::v1::CheckConfigRequest* request,
                                        raw::v1::CheckConfigResponse* response) override;
  grpc::ServerUnaryReactor* GetConfigTemplate(grpc::CallbackServerContext* ctx,
                                              const raw::v1::GetConfigTemplateRequest* request,
                                              raw::v1::GetConfigTemplateResponse* response) override;
  grpc::ServerUnaryReactor* Shutdown(grpc::CallbackServerContext* ctx,
                                     const raw::v1::ShutdownRequest* request,
                                     raw::v1::ShutdownResponse* response) override;
  grpc::ServerWriteReactor<raw::v1::LeaseEvent>* AcquireLease(
      grpc::CallbackServerContext* ctx, const raw::v1::AcquireLeaseRequest* request) override;
  grpc::ServerUnaryReactor* DeclineHandover(grpc::CallbackServerContext* ctx,
                                            const raw::v1::DeclineHandoverRequest* request,
                                            raw::v1::DeclineHandoverResponse* response) override;
  grpc::ServerUnaryReactor* Compact(grpc::CallbackServerContext* ctx,
                                    const raw::v1::CompactRequest* request,
                                    raw::v1::CompactResponse* response) override;
  grpc::ServerUnaryReactor* ClearContext(grpc::CallbackServerContext* ctx,
                                         const raw::v1::ClearContextRequest* request,
                                         raw::v1::ClearContextResponse* response) override;
  grpc::ServerUnaryReactor* GetStats(grpc::CallbackServerContext* ctx,
                                     const raw::v1::GetStatsRequest* request,
                                     raw::v1::GetStatsResponse* response) override;
  grpc::ServerUnaryReactor* ListAgents(grpc::CallbackServerContext* ctx,
                                       const raw::v1::ListAgentsRequest* request,
                                       raw::v1::ListAgentsResponse* response) override;
  grpc::ServerUnaryReactor* ListMcpServers(grpc::CallbackServerContext* ctx,
                                           const raw::v1::ListMcpServersRequest* request,
                                           raw::v1::ListMcpServersResponse* response) override;
  grpc::ServerUnaryReactor* SetSessionMcpServers(
      grpc::CallbackServerContext* ctx, const raw::v1::SetSessionMcpServersRequest* request,
      raw::v1::SetSessionMcpServersResponse* response) override;
  grpc::ServerUnaryReactor* ConfigureSession(grpc::CallbackServerContext* ctx,
                                             const raw::v1::ConfigureSessionRequest* request,
                                             raw::v1::ConfigureSessionResponse* response) override;
  grpc::ServerUnaryReactor* ListModels(grpc::CallbackServerContext* ctx,
                                       const raw::v1::ListModelsRequest* request,
                                       raw::v1::ListModelsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteSession(grpc::CallbackServerContext* ctx,
                                          const raw::v1::DeleteSessionRequest* request,
                                          raw::v1::DeleteSessionResponse* response) override;
  grpc::ServerUnaryReactor* GetPluginSettings(grpc::CallbackServerContext* ctx,
                                              const raw::v1::GetPluginSettingsRequest* request,
                                              raw::v1::PluginSettings* response) override;
  grpc::ServerUnaryReactor* SetPluginSettings(grpc::CallbackServerContext* ctx,
                                              const raw::v1::SetPluginSettingsRequest* request,
                                              raw::v1::PluginSettings* response) override;
  grpc::ServerUnaryReactor* ListPackages(grpc::CallbackServerContext* ctx,
                                         const raw::v1::ListPackagesRequest* request,
                                         raw::v1::ListPackagesResponse* response) override;

 private:
  loop::SessionManager& sessions_;
  const DaemonInfo info_;
  const std::function<void()> request_shutdown_;
  rpc::ActiveStreams streams_;
};

}  // namespace raw::api
