#include <string>
#include <vector>

#include "daemon/api/convert/session_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {
namespace {

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 200;

}  // namespace

UnaryReactor* ListSessions(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                           const raw::v1::ListSessionsRequest& request,
                           raw::v1::ListSessionsResponse* response) {
  absl::StatusOr<int> page_size =
      ResolvePageSize(request.page_size(), kDefaultPageSize, kMaxPageSize, "page_size");
  if (!page_size.ok()) return ReturnStatus(ctx, page_size.status());
  std::string next_page_token;
  absl::StatusOr<std::vector<loop::SessionInfo>> page =
      sessions.ListSessions(*page_size, request.page_token(), &next_page_token);
  if (!page.ok()) return ReturnStatus(ctx, page.status());
  for (const loop::SessionInfo& info : *page) {
    *response->add_sessions() = convert::ToProto(info);
  }
  response->set_next_page_token(next_page_token);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
