#include "absl/strings/str_cat.h"
#include "daemon/api/convert/event_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {
namespace {

constexpr int kDefaultLimit = 100;
constexpr int kMaxLimit = 500;

absl::StatusOr<store::HistoryDirection> ToDirection(raw::v1::HistoryDirection direction) {
  switch (direction) {
    case raw::v1::HISTORY_DIRECTION_UNSPECIFIED:
    case raw::v1::HISTORY_DIRECTION_FORWARD:
      return store::HistoryDirection::kForward;
    case raw::v1::HISTORY_DIRECTION_BACKWARD:
      return store::HistoryDirection::kBackward;
    default:
      break;
  }
  // proto3 enums are open: a newer client may send a value this daemon does
  // not know.
  return absl::InvalidArgumentError(absl::StrCat(
      "direction ", static_cast<int>(direction),
      " is not supported (use HISTORY_DIRECTION_FORWARD or HISTORY_DIRECTION_BACKWARD)"));
}

}  // namespace

UnaryReactor* GetHistory(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::GetHistoryRequest& request,
                         raw::v1::GetHistoryResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  absl::StatusOr<int> limit = ResolvePageSize(request.limit(), kDefaultLimit, kMaxLimit, "limit");
  if (!limit.ok()) return ReturnStatus(ctx, limit.status());
  absl::StatusOr<store::HistoryDirection> direction = ToDirection(request.direction());
  if (!direction.ok()) return ReturnStatus(ctx, direction.status());

  UnaryReactor* reactor = ctx->DefaultReactor();
  // Replies on the spot for a loaded session, otherwise from the worker
  // that loads it.
  sessions.GetHistory(request.session_id(), request.cursor(), *limit, *direction,
                      [reactor, response](absl::StatusOr<store::HistoryPage> page) {
                        if (page.ok()) {
                          for (const events::SessionEvent& event : page->events) {
                            *response->add_events() = convert::ToProto(event);
                          }
                          response->set_next_cursor(page->next_cursor);
                        }
                        FinishWith(reactor, page.status());
                      });
  return reactor;
}

}  // namespace raw::api::rpc
