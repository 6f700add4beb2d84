// How an Artifact's Markdown is read for citations: which parts are code
// (neither scanned nor rendered), which are raw HTML a reader does not see
// as text, which `[@id]` tokens its visible prose holds, and which external
// URLs a reader could open from it once a CommonMark or GFM renderer has
// turned it into HTML and a browser shows that. The scan never fails open:
// where renderers or browsers may read the text two ways, it counts as not
// code for the URL scan and as not visible for citations. Pure; internal to
// the engine (citations.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace raw::raven {

// A piece of an Artifact. The pieces of SplitArtifact concatenate to it.
struct Part {
  std::string_view text;
  // Code: not scanned for URLs, not cited, not rendered.
  bool code = false;
  // Not visible text: no token in it cites or is rendered.
  bool hidden = false;
  // Raw HTML may be here: every URL-like substring counts as a link.
  bool raw_html = false;
};

// `text` cut into Parts.
//
// Code is only what every renderer reads as code. A fence opens on a line
// indented at most three spaces with a run of three or more backticks or
// tildes (a backtick fence's info string holds no backtick) and closes on a
// like run at least as long, indented at most three spaces, with nothing
// after it; an unclosed fence runs to the end. No fence is read from the
// first line on which fences could be read two ways: a fence-like run
// behind a block quote or list marker, indented four columns or more or by
// a tab, or in what may be an HTML block; or, in a fence indented two or
// three spaces that a list item may hold (one opened after a list item line
// and before a blank line followed by a line indented less than two
// columns), a line less indented than the fence or a closing run indented
// four columns or more but at most three past the fence. A code span is a
// backtick run (not backslash-escaped) closed on its line by a run of equal
// length. A run of lines between blank lines and fences holds no code span
// when a backtick run in it is left unclosed on its line (a later line
// could close it), or outside its spans it holds '<' followed by anything
// but white space (an autolink or raw HTML that starts first takes the
// backticks after it), a backtick in a link destination, title or
// reference label or in a bare "http(s)://" or "www." URL (these take it
// before spans are read), a GFM table delimiter row (only '|', ':', '-' and
// white space) while a span holds an unescaped '|' (a table cell ends
// there), or a line of what may be an HTML block. What may be an HTML block
// starts on a line that opens, after any container markers and white
// space, with '<' and a letter, '/', '!' or '?', and runs to the line
// holding its end ("-->", "?>", "]]>", ">" after "<!" and a letter,
// "</pre>", "</script>", "</style>" or "</textarea>" after those tags) or,
// for the other kinds, to the next blank line.
//
// Raw HTML is every run of lines that is or holds what may be an HTML
// block, or holds '<' and a letter, '/', '!' or '?' outside code. In it,
// each such '<' starts a construct read as a browser's tokenizer reads it:
// a comment to the first "-->" or "--!>" ("<!-->" and "<!--->" are whole),
// another "<!", "<?" or "</" construct to the first '>', a tag to the '>'
// that ends it outside a quoted attribute value. Each construct that ends
// within its run of lines is hidden, one starting inside another included:
// renderers disagree on where a comment ends. One its run of lines ends
// before is text, unless the run is what may be an HTML block: a browser
// then reads on into whatever follows, so the rest of the Artifact is
// hidden raw HTML with no code. So it is when the constructs would take
// more than about eight times the Artifact's length to read. A start tag
// of an element whose content a reader does not see (dialog, head, iframe,
// noembed, noframes, noscript, object, plaintext, script, select, style,
// svg, template, title, xmp), or with a `hidden` or `style` attribute,
// hides the rest of the Artifact.
std::vector<Part> SplitArtifact(std::string_view text);

// One `[@id]` token of a prose Part: its byte range and its id.
struct Token {
  size_t begin = 0, end = 0;
  std::string id;
};

// The `[@id]` tokens of `prose` (a visible, non-code Part) whose id is valid
// (ValidId), in order.
std::vector<Token> Tokens(std::string_view prose);

// The external URLs a reader could open from `artifact` (SplitArtifact
// reads it), decoded, each once, in the order found. Outside code: every
// http(s) URL, whatever the case of its scheme, after backslash escapes
// and character references are decoded ("https\://", "https&#58;//",
// "https&#00058//"); every "www." a GFM renderer links as an extended
// autolink; and every destination of an inline link or a link reference
// definition (white space, a line break included, may come before it) that
// a browser opens on the web once tabs and line breaks are removed and a
// backslash is read as a slash: scheme-relative ("//host/...", "\\host")
// or http(s) with any number of slashes ("https:host/..."). In raw HTML,
// also every URL-like substring wherever it stands (an attribute of any
// name, a srcset candidate, a url(...) in a style, text): "http:" or
// "https:" in any case, "//" and "www.", once character references (any
// number of digits, ';' optional) and, separately, CSS escapes too are
// decoded and a backslash is read as a slash; in hidden raw HTML tabs and
// line breaks are removed first, as a browser removes them from a URL.
std::vector<std::string> LinkedUrls(std::string_view artifact);

}  // namespace raw::raven
