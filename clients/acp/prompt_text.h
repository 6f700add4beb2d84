// The user message Raw receives for an ACP prompt (its ContentBlock list).
//
//   text            its text, as is
//   resource_link   "[name](uri)" where it stands
//   resource        "[name](uri)" where it stands (name: the URI's last
//                   path segment), and at the end of the message
//                   "Contents of <uri>:" followed by its text in a fenced
//                   block longer than any backtick run inside it; a binary
//                   resource is named but not included
// Text pieces and links are joined as they come (an editor splits "explain
// @file please" into text, link, text); the embedded contents follow,
// separated by blank lines.
//
//   image           sent with the text as an image (its base64 `data`
//                   decoded; rawd checks the bytes, and refuses images for
//                   a model not configured to take them)
// audio blocks are refused (INVALID_ARGUMENT): raw-acp does not advertise
// them. A prompt with neither text nor images is refused too.
//
// So is a prompt that does not fit in one request to rawd
// (INVALID_ARGUMENT, naming its size and the limit): the message that
// carried it is within the limit, but the links, headers and fences
// around embedded resources (a fence is longer than the longest backtick
// run of its contents) can make the text larger. Refused here, it never
// reaches rawd, whose refusal would be gRPC's "Received message larger
// than max".
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/json.h"
#include "common/request_limit.h"
#include "raw/v1/event.pb.h"

namespace raw::acp {

struct AcpPrompt {
  std::string text;
  std::vector<v1::Image> images;
};

// What a StartTurnRequest holds beside the prompt, kept free of the limit
// when a prompt is checked: the session's and the lease's ids (under 64
// bytes each) with their fields' tags and lengths.
inline constexpr size_t kRequestIdsReserve = 256;

// The bytes `prompt` takes in rawd's StartTurnRequest: its text and each
// image as protobuf encodes them, field tags and lengths included.
size_t PromptRequestBytes(const AcpPrompt& prompt);

// OK when `prompt` and kRequestIdsReserve fit in `max_request_bytes`;
// otherwise INVALID_ARGUMENT naming both sizes.
absl::Status CheckPromptFits(const AcpPrompt& prompt, size_t max_request_bytes);

// The prompt of `blocks`, checked against `max_request_bytes` (tests pass
// a smaller limit).
absl::StatusOr<AcpPrompt> PromptOf(const Json& blocks, size_t max_request_bytes = kMaxRequestBytes);
// PromptOf's text alone.
absl::StatusOr<std::string> PromptText(const Json& blocks);

}  // namespace raw::acp
