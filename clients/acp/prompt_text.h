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
// image and audio blocks are refused (INVALID_ARGUMENT): raw-acp does not
// advertise them. An empty prompt is refused too.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/json.h"

namespace raw::acp {

absl::StatusOr<std::string> PromptText(const Json& blocks);

}  // namespace raw::acp
