#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"
#include "daemon/events/image_part.h"

namespace raw::api::rpc {

UnaryReactor* StartTurn(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                        const raw::v1::StartTurnRequest& request,
                        raw::v1::StartTurnResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  const bool blank = absl::StripAsciiWhitespace(request.text()).empty();
  if (blank && request.images().empty()) {
    return ReturnStatus(ctx, absl::InvalidArgumentError(
                                 "text is required: a turn starts with a non-empty user message "
                                 "(or with images)"));
  }
  // Only the count is checked here; the bytes are checked and encoded off
  // this thread (SessionRunner::StartTurn).
  if (request.images_size() > static_cast<int>(events::kMaxImagesPerPrompt)) {
    return ReturnStatus(ctx, absl::InvalidArgumentError(absl::StrCat(
                                 "a prompt takes at most ", events::kMaxImagesPerPrompt,
                                 " images; this one has ", request.images_size())));
  }
  if (absl::Status s = CheckChosenId(request.turn_id(), "turn_", "turn_id"); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  std::vector<events::ImageUpload> images;
  images.reserve(request.images_size());
  for (const raw::v1::Image& image : request.images()) {
    images.push_back({.mime_type = image.mime_type(), .bytes = image.data(), .name = image.name()});
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  // Blank text beside images is no text: the model gets the images alone.
  sessions.StartTurn(
      request.session_id(), blank ? std::string() : request.text(), request.lease_id(),
      [reactor, response](absl::StatusOr<std::string> turn_id) {
        if (turn_id.ok()) response->set_turn_id(*turn_id);
        FinishWith(reactor, turn_id.status());
      },
      std::move(images), request.turn_id());
  return reactor;
}

}  // namespace raw::api::rpc
