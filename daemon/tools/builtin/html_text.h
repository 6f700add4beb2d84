// HtmlToText: an HTML page reduced to readable plain text for a model, as
// builtin/web_fetch returns it. Parsing is libgumbo's (the HTML5 algorithm,
// so any byte soup yields a tree).
//
// The reduction: script, style, noscript, template, svg, canvas, iframe,
// object, embed, audio, video and the <head> are dropped, except that the
// <title> becomes a first line "Title: ..."; block elements end lines
// (paragraphs, headings, lists and tables are set off by a blank line);
// headings are prefixed with one '#' per level, list items with "- "
// (indented two spaces per nesting level), table cells separated by " | ",
// links written as "text (href)", images as "[image: alt]"; whitespace
// outside <pre> is collapsed, <pre> keeps its own. A page whose elements
// nest more than 1000 deep is not parsed (see common/html_scan.h), nor is
// one whose parse runs past options.budget (the parse's time, memory and
// cancellation; daemon/raven/web/html_document.h): its text comes back with
// the markup stripped, after a note saying so. Stateless; safe from any
// thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "daemon/raven/web/html_document.h"

namespace raw::tools::builtin {

struct HtmlTextOptions {
  // What to show after a link's text for its href (for example the href
  // resolved against the page's URL); an empty result shows nothing. Unset:
  // the href as written. Fragment-only ("#...") and javascript: links never
  // show a target.
  std::function<std::string(std::string_view href)> link_target;
  // What the parse may take (default: no deadline, 512 MiB).
  raven::web::ParseBudget budget;
};

// `html` (UTF-8) as text; "" when it has no visible text.
std::string HtmlToText(std::string_view html, const HtmlTextOptions& options = {});

}  // namespace raw::tools::builtin
