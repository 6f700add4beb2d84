#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "daemon/api/convert/session_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {
namespace {

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 200;
constexpr size_t kMaxQueryBytes = 1024;

}  // namespace

UnaryReactor* ListSessions(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                           const raw::v1::ListSessionsRequest& request,
                           raw::v1::ListSessionsResponse* response) {
  absl::StatusOr<int> page_size =
      ResolvePageSize(request.page_size(), kDefaultPageSize, kMaxPageSize, "page_size");
  if (!page_size.ok()) return ReturnStatus(ctx, page_size.status());
  if (request.query().size() > kMaxQueryBytes) {
    return ReturnStatus(ctx, absl::InvalidArgumentError(absl::StrCat(
                                 "query is ", request.query().size(), " bytes; at most ",
                                 kMaxQueryBytes, " are allowed")));
  }
  std::string next_page_token;
  absl::StatusOr<std::vector<loop::SessionInfo>> page = sessions.ListSessions(
      *page_size, request.page_token(), &next_page_token, request.query());
  if (!page.ok()) return ReturnStatus(ctx, page.status());
  for (const loop::SessionInfo& info : *page) {
    *response->add_sessions() = convert::ToProto(info);
  }
  response->set_next_page_token(next_page_token);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
