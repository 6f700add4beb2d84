// WebContent: a fetched HTTP body turned into text for the model, by its
// Content-Type (builtin/web_fetch).
//
// HTML (text/html, application/xhtml+xml, or no Content-Type and a body
// starting with "<!doctype html" or "<html") is reduced by HtmlToText; other
// text/* types and the textual application types (JSON, XML, JavaScript,
// YAML, ...) are returned as they are. The charset parameter (or, for HTML,
// a <meta> charset near the top) is honoured: other encodings are converted
// to UTF-8 with iconv(3); bytes that are not valid UTF-8 become U+FFFD.
// Anything else (images, PDFs, archives, octet streams, or no Content-Type
// and a body with NUL bytes) is an error naming the type.
//
// Stateless functions; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "daemon/tools/builtin/html_text.h"

namespace raw::tools::builtin {

struct WebText {
  std::string text;
  std::string media_type;  // lower case, without parameters; "" when none
  bool html = false;
};

// `body` as text, given the response's Content-Type header value.
absl::StatusOr<WebText> BodyToText(std::string_view content_type, std::string_view body,
                                   const HtmlTextOptions& html_options = {});

}  // namespace raw::tools::builtin
