#include "daemon/api/raw_service.h"

#include <utility>

#include "daemon/api/rpc/handlers.h"

namespace raw::api {

RawService::RawService(loop::SessionManager& sessions, DaemonInfo info,
                       std::function<void()> request_shutdown)
    : sessions_(sessions), info_(std::move(info)), request_shutdown_(std::move(request_shutdown)) {}

void RawService::DrainStreams() { streams_.DrainAll(); }

grpc::ServerUnaryReactor* RawService::GetDaemonInfo(grpc::CallbackServerContext* ctx,
                                                    const raw::v1::GetDaemonInfoRequest* request,
                                                    raw::v1::GetDaemonInfoResponse* response) {
  return rpc::GetDaemonInfo(ctx, info_, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::CreateSession(grpc::CallbackServerContext* ctx,
                                                    const raw::v1::CreateSessionRequest* request,
                                                    raw::v1::CreateSessionResponse* response) {
  return rpc::CreateSession(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::GetSession(grpc::CallbackServerContext* ctx,
                                                 const raw::v1::GetSessionRequest* request,
                                                 raw::v1::GetSessionResponse* response) {
  return rpc::GetSession(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::ListSessions(grpc::CallbackServerContext* ctx,
                                                   const raw::v1::ListSessionsRequest* request,
                                                   raw::v1::ListSessionsResponse* response) {
  return rpc::ListSessions(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::StartTurn(grpc::CallbackServerContext* ctx,
                                                const raw::v1::StartTurnRequest* request,
                                                raw::v1::StartTurnResponse* response) {
  return rpc::StartTurn(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::InterruptTurn(grpc::CallbackServerContext* ctx,
                                                    const raw::v1::InterruptTurnRequest* request,
                                                    raw::v1::InterruptTurnResponse* response) {
  return rpc::InterruptTurn(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::RespondToApproval(
    grpc::CallbackServerContext* ctx, const raw::v1::RespondToApprovalRequest* request,
    raw::v1::RespondToApprovalResponse* response) {
  return rpc::RespondToApproval(ctx, sessions_, *request, response);
}

grpc::ServerWriteReactor<raw::v1::Event>* RawService::Subscribe(
    grpc::CallbackServerContext* ctx, const raw::v1::SubscribeRequest* request) {
  return rpc::Subscribe(ctx, sessions_, streams_, *request);
}

grpc::ServerWriteReactor<raw::v1::EventBatch>* RawService::SubscribeBatched(
    grpc::CallbackServerContext* ctx, const raw::v1::SubscribeRequest* request) {
  return rpc::SubscribeBatched(ctx, sessions_, streams_, *request);
}

grpc::ServerUnaryReactor* RawService::GetHistory(grpc::CallbackServerContext* ctx,
                                                 const raw::v1::GetHistoryRequest* request,
                                                 raw::v1::GetHistoryResponse* response) {
  return rpc::GetHistory(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::CheckConfig(grpc::CallbackServerContext* ctx,
                                                  const raw::v1::CheckConfigRequest* request,
                                                  raw::v1::CheckConfigResponse* response) {
  return rpc::CheckConfig(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::GetConfigTemplate(
    grpc::CallbackServerContext* ctx, const raw::v1::GetConfigTemplateRequest* request,
    raw::v1::GetConfigTemplateResponse* response) {
  return rpc::GetConfigTemplate(ctx, info_, *request, response);
}

grpc::ServerUnaryReactor* RawService::Shutdown(grpc::CallbackServerContext* ctx,
                                               const raw::v1::ShutdownRequest* request,
                                               raw::v1::ShutdownResponse* response) {
  return rpc::Shutdown(ctx, request_shutdown_, *request, response);
}

grpc::ServerWriteReactor<raw::v1::LeaseEvent>* RawService::AcquireLease(
    grpc::CallbackServerContext* ctx, const raw::v1::AcquireLeaseRequest* request) {
  return rpc::AcquireLease(ctx, sessions_, streams_, *request);
}

grpc::ServerUnaryReactor* RawService::DeclineHandover(
    grpc::CallbackServerContext* ctx, const raw::v1::DeclineHandoverRequest* request,
    raw::v1::DeclineHandoverResponse* response) {
  return rpc::DeclineHandover(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::Compact(grpc::CallbackServerContext* ctx,
                                              const raw::v1::CompactRequest* request,
                                              raw::v1::CompactResponse* response) {
  return rpc::Compact(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::ClearContext(grpc::CallbackServerContext* ctx,
                                                   const raw::v1::ClearContextRequest* request,
                                                   raw::v1::ClearContextResponse* response) {
  return rpc::ClearContext(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::GetStats(grpc::CallbackServerContext* ctx,
                                               const raw::v1::GetStatsRequest* request,
                                               raw::v1::GetStatsResponse* response) {
  return rpc::GetStats(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::ListAgents(grpc::CallbackServerContext* ctx,
                                                 const raw::v1::ListAgentsRequest* request,
                                                 raw::v1::ListAgentsResponse* response) {
  return rpc::ListAgents(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::ListMcpServers(
    grpc::CallbackServerContext* ctx, const raw::v1::ListMcpServersRequest* request,
    raw::v1::ListMcpServersResponse* response) {
  return rpc::ListMcpServers(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::SetSessionMcpServers(
    grpc::CallbackServerContext* ctx, const raw::v1::SetSessionMcpServersRequest* request,
    raw::v1::SetSessionMcpServersResponse* response) {
  return rpc::SetSessionMcpServers(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::ConfigureSession(
    grpc::CallbackServerContext* ctx, const raw::v1::ConfigureSessionRequest* request,
    raw::v1::ConfigureSessionResponse* response) {
  return rpc::ConfigureSession(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::ListModels(grpc::CallbackServerContext* ctx,
                                                 const raw::v1::ListModelsRequest* request,
                                                 raw::v1::ListModelsResponse* response) {
  return rpc::ListModels(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::DeleteSession(grpc::CallbackServerContext* ctx,
                                                    const raw::v1::DeleteSessionRequest* request,
                                                    raw::v1::DeleteSessionResponse* response) {
  return rpc::DeleteSession(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::GetPluginSettings(
    grpc::CallbackServerContext* ctx, const raw::v1::GetPluginSettingsRequest* request,
    raw::v1::PluginSettings* response) {
  return rpc::GetPluginSettings(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::SetPluginSettings(
    grpc::CallbackServerContext* ctx, const raw::v1::SetPluginSettingsRequest* request,
    raw::v1::PluginSettings* response) {
  return rpc::SetPluginSettings(ctx, sessions_, *request, response);
}

grpc::ServerUnaryReactor* RawService::ListPackages(grpc::CallbackServerContext* ctx,
                                                   const raw::v1::ListPackagesRequest* request,
                                                   raw::v1::ListPackagesResponse* response) {
  return rpc::ListPackages(ctx, sessions_, *request, response);
}

}  // namespace raw::api
