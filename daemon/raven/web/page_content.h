// A fetched body turned into the text the excerpt check runs on, and the
// signs that the server answered with something other than the page: a
// challenge, a login or cookie wall, or a paywall.
//
// Decoding: the charset comes from a byte-order mark, then the Content-Type
// charset parameter, then (HTML) a <meta> charset near the top; the body is
// converted to UTF-8 before parsing. HTML (text/html,
// application/xhtml+xml, or no type and a body that starts like HTML) goes
// through ExtractPageText; text/plain and other text/* types are used as
// they are. application/pdf and every other type are unsupported: there is
// no text to check, which the verifier reports as unavailable (a labelled
// Limitation), never as a failed match. Stateless; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "daemon/raven/web/page_text.h"

namespace raw::raven::web {

struct PageContent {
  PageText text;
  std::string media_type;  // lower case, no parameters
};

// The checkable text of `body`; an error (unsupported type, unknown
// charset, a page too deeply nested to parse, a parse past `budget`) says
// why there is none.
absl::StatusOr<PageContent> DecodePage(std::string_view content_type, std::string_view body,
                                       const ParseBudget& budget = {});

// Why a response is a block page rather than the page, or nullopt. Only
// asked when the excerpt was not found: a real page with a cookie banner
// still verifies. Signs: HTTP 401, 402, 403, 407, 429 or 451; a challenge
// (Cloudflare "Just a moment..."/"Attention Required", cf-chl, captcha
// widgets); a cookie or consent wall (consent vocabulary on a page with
// little text); a paywall (JSON-LD "isAccessibleForFree": false, or
// subscribe-to-continue wording on a page with little text).
std::optional<std::string> BlockReason(int status, std::string_view raw_html,
                                       std::string_view text);

}  // namespace raw::raven::web
