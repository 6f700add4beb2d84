#include "daemon/raven/web/fast_page_text.h"

#include "daemon/raven/web/fast_parser.h"
#include "daemon/raven/web/html_input.h"

namespace raw::raven::web {

std::optional<PageText> FastPageText(std::string_view html) {
  if (!html::PlainInput(html)) return std::nullopt;
  PageText out;
  out.segments.reserve(html.size() / 32);  // a text node every few dozen bytes
  html::FastParser parser(html, out);
  if (!parser.Run()) return std::nullopt;
  return out;
}

}  // namespace raw::raven::web
