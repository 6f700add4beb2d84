// How an Artifact's Markdown is read for citations: which parts are code
// (CommonMark fenced blocks and inline code spans, neither scanned nor
// rendered), which `[@id]` tokens its prose holds, and which external URLs
// a reader's renderer would open from it. Pure; internal to the engine
// (citations.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace raw::raven {

// A piece of an Artifact: code (kept verbatim) or prose (scanned and
// rendered). The pieces of SplitCode concatenate to the Artifact.
struct Part {
  std::string_view text;
  bool code = false;
};

// `text` cut into Parts. A fence opens on a line indented at most three
// spaces with a run of three or more backticks or tildes (a backtick fence's
// info string holds no backtick) and closes on a like run at least as long,
// indented at most three spaces, with nothing after it; an unclosed fence
// runs to the end. A code span is a backtick run (not backslash-escaped)
// closed on its line by a run of equal length.
std::vector<Part> SplitCode(std::string_view text);

// One `[@id]` token of a prose Part: its byte range and its id.
struct Token {
  size_t begin = 0, end = 0;
  std::string id;
};

// The `[@id]` tokens of `prose` whose id is valid (ValidId), in order.
std::vector<Token> Tokens(std::string_view prose);

// The external URLs a reader's Markdown renderer would open from `prose`:
// every http(s) URL, whatever the case of its scheme, after backslash
// escapes and character references are decoded ("https\://",
// "https&#58;//"), and every destination of an inline link, a link reference
// definition or an HTML href or src that is scheme-relative ("//host/...")
// or http(s) with any number of slashes ("https:host/..."). Decoded, in
// order, repeats included.
std::vector<std::string> LinkedUrls(std::string_view prose);

}  // namespace raw::raven
