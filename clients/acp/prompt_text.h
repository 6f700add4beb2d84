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
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "raw/v1/event.pb.h"

namespace raw::acp {

struct AcpPrompt {
  std::string text;
  std::vector<v1::Image> images;
};

absl::StatusOr<AcpPrompt> PromptOf(const Json& blocks);
// PromptOf's text alone.
absl::StatusOr<std::string> PromptText(const Json& blocks);

}  // namespace raw::acp
