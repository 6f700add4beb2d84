#include "daemon/raven/artifact_scan.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "daemon/raven/artifact_urls.h"
#include "daemon/raven/domain.h"

namespace raw::raven {
namespace {

// What the scan knows of each byte of an Artifact (see Part).
constexpr uint8_t kCode = 1;
constexpr uint8_t kHidden = 2;
constexpr uint8_t kRawHtml = 4;

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(std::string(s)); }

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && Lower(s.substr(0, prefix.size())) == Lower(prefix);
}

bool ContainsIgnoreCase(std::string_view s, std::string_view needle) {
  return Lower(s).find(Lower(needle)) != std::string::npos;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// The columns of `line`'s leading white space, a tab advancing to the next
// multiple of four as CommonMark counts it.
size_t Indent(std::string_view line) {
  size_t columns = 0;
  for (char c : line) {
    if (c == ' ') {
      ++columns;
    } else if (c == '\t') {
      columns += 4 - columns % 4;
    } else {
      break;
    }
  }
  return columns;
}

// Where `line`'s content may start once any block quote markers, list
// markers and white space before it are read as containers.
size_t ContentStart(std::string_view line) {
  size_t i = 0;
  for (;;) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    auto marker_end = [&](size_t at) {
      return at < line.size() && (line[at] == ' ' || line[at] == '\t');
    };
    if (i < line.size() && line[i] == '>') {
      ++i;
    } else if (i < line.size() && (line[i] == '-' || line[i] == '+' || line[i] == '*') &&
               marker_end(i + 1)) {
      i += 2;
    } else {
      size_t d = i;
      while (d < line.size() && d - i < 9 && absl::ascii_isdigit(line[d])) ++d;
      if (d == i || d >= line.size() || (line[d] != '.' && line[d] != ')') || !marker_end(d + 1)) {
        return i;
      }
      i = d + 2;
    }
  }
}

// `line` opens a list item: a bullet or an ordered marker after any
// indentation, followed by white space or the end of the line.
bool IsListItem(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return false;
  auto ends = [&](size_t at) { return at >= line.size() || IsSpace(line[at]); };
  if (line[i] == '-' || line[i] == '+' || line[i] == '*') return ends(i + 1);
  size_t d = i;
  while (d < line.size() && d - i < 9 && absl::ascii_isdigit(line[d])) ++d;
  return d > i && d < line.size() && (line[d] == '.' || line[d] == ')') && ends(d + 1);
}

// A code fence line as CommonMark reads one: at most three spaces of
// indentation (four, or a tab, make indented text, not a fence), then a run
// of three or more backticks or tildes; a backtick fence's info string holds
// no backtick. Returns the run, or "" when `line` is not a fence.
std::string_view FenceRun(std::string_view line) {
  size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  if (indent > 3 || indent == line.size() || (line[indent] != '`' && line[indent] != '~')) {
    return "";
  }
  size_t run = indent;
  while (run < line.size() && line[run] == line[indent]) ++run;
  if (run - indent < 3) return "";
  if (line[indent] == '`' && line.find('`', run) != std::string_view::npos) return "";
  return line.substr(indent, run - indent);
}

// The fence run `line` holds once every container marker and any
// indentation before it are set aside: a fence some reading of the
// containers could open or close.
std::string_view FenceLikeRun(std::string_view line) {
  return FenceRun(line.substr(ContentStart(line)));
}

// `run` (of `line`) closes a fence opened by `open`: the same character, at
// least as long, followed only by white space.
bool ClosesWith(std::string_view line, std::string_view run, std::string_view open) {
  if (run.empty() || run[0] != open[0] || run.size() < open.size()) return false;
  size_t after = static_cast<size_t>(run.data() - line.data()) + run.size();
  return line.find_first_not_of(" \t\r\n", after) == std::string_view::npos;
}

// The end condition of the HTML block `line` may open (CommonMark's seven
// kinds, read loosely: after any container markers and indentation): the
// text whose line ends it, or "" for the next blank line. nullopt when
// `line` opens none.
std::optional<std::string_view> HtmlBlockEnd(std::string_view line) {
  std::string_view s = line.substr(ContentStart(line));
  if (s.size() < 2 || s[0] != '<') return std::nullopt;
  if (!absl::ascii_isalpha(s[1]) && s[1] != '/' && s[1] != '!' && s[1] != '?') return std::nullopt;
  if (s.starts_with("<!--")) return "-->";
  if (s.starts_with("<?")) return "?>";
  if (StartsWithIgnoreCase(s, "<![CDATA[")) return "]]>";
  if (s[1] == '!' && s.size() > 2 && absl::ascii_isalpha(s[2])) return ">";
  static constexpr std::pair<std::string_view, std::string_view> kRaw[] = {
      {"<pre", "</pre>"},
      {"<script", "</script>"},
      {"<style", "</style>"},
      {"<textarea", "</textarea>"}};
  for (const auto& [open, close] : kRaw) {
    if (StartsWithIgnoreCase(s, open) &&
        (s.size() == open.size() || IsSpace(s[open.size()]) || s[open.size()] == '>')) {
      return close;
    }
  }
  return "";
}

// '<' at `i` may open what a renderer reads as an autolink (of a URL or an
// e-mail address), raw HTML or an HTML block: it is followed by anything
// but white space.
bool OpensAngle(std::string_view s, size_t i) {
  return s[i] == '<' && i + 1 < s.size() && !IsSpace(s[i + 1]);
}

// '<' at `i` may open raw HTML: a tag, a closing tag, a comment, a
// processing instruction, a declaration or CDATA.
bool OpensMarkup(std::string_view s, size_t i) {
  return s[i] == '<' && i + 1 < s.size() &&
         (absl::ascii_isalpha(s[i + 1]) || s[i + 1] == '/' || s[i + 1] == '!' || s[i + 1] == '?');
}

// One raw HTML construct as a browser's tokenizer reads it from its '<':
// where it ends (npos when the text ends first), and for a start tag its
// name and attribute names, lower-cased.
struct Markup {
  size_t end = std::string_view::npos;
  bool start_tag = false;
  std::string name;
  std::vector<std::string> attributes;
};

Markup ReadMarkup(std::string_view s, size_t at) {
  Markup m;
  auto bogus = [&](size_t from) {
    size_t gt = s.find('>', from);
    if (gt != std::string_view::npos) m.end = gt + 1;
    return m;
  };
  if (s.substr(at).starts_with("<!--")) {
    // A comment ends at the first "-->" or "--!>"; "<!-->" and "<!--->" are
    // whole (empty) comments.
    size_t body = at + 4;
    size_t a = s.find("-->", body), b = s.find("--!>", body);
    if (s.substr(body).starts_with(">")) {
      m.end = body + 1;
    } else if (s.substr(body).starts_with("->")) {
      m.end = body + 2;
    } else if (a != std::string_view::npos && (b == std::string_view::npos || a < b)) {
      m.end = a + 3;
    } else if (b != std::string_view::npos) {
      m.end = b + 4;
    }
    return m;
  }
  if (s[at + 1] == '!' || s[at + 1] == '?') return bogus(at + 2);
  size_t i = at + 1;
  if (s[i] == '/') {
    if (i + 1 >= s.size() || !absl::ascii_isalpha(s[i + 1])) return bogus(i + 1);
    ++i;
  } else {
    m.start_tag = true;
  }
  size_t name = i;
  while (i < s.size() && !IsSpace(s[i]) && s[i] != '/' && s[i] != '>') ++i;
  m.name = Lower(s.substr(name, i - name));
  for (;;) {
    while (i < s.size() && (IsSpace(s[i]) || s[i] == '/')) ++i;
    if (i >= s.size()) return m;
    if (s[i] == '>') {
      m.end = i + 1;
      return m;
    }
    size_t attr = i++;
    while (i < s.size() && !IsSpace(s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '=') ++i;
    m.attributes.push_back(Lower(s.substr(attr, i - attr)));
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') continue;
    ++i;
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size()) return m;
    if (s[i] == '"' || s[i] == '\'') {
      size_t close = s.find(s[i], i + 1);
      if (close == std::string_view::npos) return m;
      i = close + 1;
    } else {
      while (i < s.size() && !IsSpace(s[i]) && s[i] != '>') ++i;
    }
  }
}

// A start tag after which a reader may not see the text: an element whose
// content is not shown, or any element with a `hidden` or `style`
// attribute.
bool MayHide(const Markup& m) {
  static constexpr std::string_view kUnshown[] = {
      "dialog", "head",   "iframe", "noembed", "noframes", "noscript", "object", "plaintext",
      "script", "select", "style",  "svg",     "template", "title",    "xmp"};
  if (!m.start_tag) return false;
  if (std::find(std::begin(kUnshown), std::end(kUnshown), m.name) != std::end(kUnshown)) {
    return true;
  }
  return std::any_of(m.attributes.begin(), m.attributes.end(),
                     [](const std::string& a) { return a == "hidden" || a == "style"; });
}

// The inline code spans of one line as CommonMark reads them: a backtick
// run (not backslash-escaped) closed by the next run of equal length.
// Appends them (offset by `base`) and returns false when a run is left
// unclosed: a later line could close it, and what a span then covers
// depends on block structure this scan does not model.
bool LineSpans(std::string_view line, size_t base, std::vector<std::pair<size_t, size_t>>& spans) {
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] != '`') {
      ++i;
      continue;
    }
    // A backslash-escaped backtick is a literal one and opens nothing.
    size_t slashes = 0;
    while (slashes < i && line[i - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 1) {
      ++i;
      continue;
    }
    size_t run = 0;
    while (i + run < line.size() && line[i + run] == '`') ++run;
    size_t close = i + run;
    while ((close = line.find('`', close)) != std::string_view::npos) {
      size_t len = 0;
      while (close + len < line.size() && line[close + len] == '`') ++len;
      if (len == run) break;
      close += len;
    }
    if (close == std::string_view::npos) return false;
    spans.emplace_back(base + i, base + close + run);
    i = close + run;
  }
  return true;
}

// A code span's delimiters could be read otherwise: the chunk holds what
// takes precedence over a span that starts later ('<' opening an autolink
// or raw HTML), or what consumes backticks before spans are read: a link
// destination, title or reference label, a GFM autolink, or a GFM table row
// that cuts a span at a '|'.
bool SpansAmbiguous(std::string_view chunk, const std::vector<std::pair<size_t, size_t>>& spans) {
  if (spans.empty()) return false;
  const size_t n = chunk.size();
  std::vector<bool> in_span(n, false);
  for (const auto& [b, e] : spans) std::fill(in_span.begin() + b, in_span.begin() + e, true);
  // For each offset, the next backtick and the next white space (or, for
  // an angle-bracketed destination, '>' or line break; for a bare URL,
  // '<'), so that every check below is linear in the chunk.
  auto next_of = [&](auto stop) {
    std::vector<size_t> next(n + 1, n);
    for (size_t i = n; i-- > 0;) next[i] = stop(chunk[i]) ? i : next[i + 1];
    return next;
  };
  const std::vector<size_t> tick = next_of([](char c) { return c == '`'; });
  const std::vector<size_t> space = next_of([](char c) { return IsSpace(c); });
  const std::vector<size_t> angle = next_of([](char c) { return c == '>' || c == '\n'; });
  const std::vector<size_t> bare = next_of([](char c) { return IsSpace(c) || c == '<'; });
  auto after_space = [&](size_t i) {
    while (i < n && IsSpace(chunk[i])) ++i;
    return i;
  };
  // The last title scanned for each closing character: later titles that
  // open inside it close where it does.
  std::pair<size_t, size_t> titles[3] = {{n, n}, {n, n}, {n, n}};
  const std::string lower = Lower(chunk);
  for (size_t i = 0; i < n && tick[i] < n; ++i) {
    if (in_span[i]) continue;
    if (OpensAngle(chunk, i)) return true;
    std::string_view rest = std::string_view(lower).substr(i);
    if (rest.starts_with("](")) {
      size_t j = after_space(i + 2);
      if (j >= n) continue;
      size_t k = chunk[j] == '<' ? angle[j] : space[j];
      if (tick[j] < k) return true;
      k = after_space(k);
      if (k >= n || (chunk[k] != '"' && chunk[k] != '\'' && chunk[k] != '(')) continue;
      char q = chunk[k] == '(' ? ')' : chunk[k];
      auto& [from, close] = titles[q == '"' ? 0 : q == '\'' ? 1 : 2];
      if (!(from < k && k < close)) {
        from = k;
        close = k + 1;
        while (close < n && chunk[close] != q) close += chunk[close] == '\\' ? 2 : 1;
      }
      if (tick[k] <= close) return true;
    } else if (rest.starts_with("][")) {
      size_t close = chunk.find(']', i + 2);
      if (tick[i + 2] < (close == std::string_view::npos ? n : close)) return true;
    } else if (rest.starts_with("http://") || rest.starts_with("https://") ||
               rest.starts_with("www.")) {
      if (tick[i] < bare[i]) return true;
    }
  }
  // A GFM table row splits cells at each unescaped '|' before reading spans.
  bool table = false;
  for (size_t b = 0; b < chunk.size();) {
    size_t e = chunk.find('\n', b);
    e = e == std::string_view::npos ? chunk.size() : e + 1;
    std::string_view row = chunk.substr(b, e - b).substr(ContentStart(chunk.substr(b, e - b)));
    if (row.find('-') != std::string_view::npos &&
        row.find_first_not_of("|:- \t\r\n") == std::string_view::npos) {
      table = true;
    }
    b = e;
  }
  if (!table) return false;
  for (const auto& [b, e] : spans) {
    for (size_t i = b; i < e; ++i) {
      if (chunk[i] != '|') continue;
      size_t slashes = 0;
      while (slashes < i && chunk[i - 1 - slashes] == '\\') ++slashes;
      if (slashes % 2 == 0) return true;
    }
  }
  return false;
}

// Marks every byte of `text`. Code is a CommonMark fence or an inline code
// span read the one way every renderer reads it; where the reading is
// uncertain the text stays prose, so it is scanned. See artifact_scan.h.
class Reader {
 public:
  explicit Reader(std::string_view text)
      : text_(text),
        flags_(text.size(), 0),
        budget_(8 * static_cast<int64_t>(text.size()) + 65536) {}

  std::vector<uint8_t> Read() {
    std::string fence;           // the open fence's run; "" when none is open
    size_t fence_indent = 0;     // its indentation
    bool fence_in_list = false;  // a list item may hold it
    bool fences = true;          // false once a fence could be read two ways
    bool in_html = false;        // an HTML block may be open
    std::string html_end;        // what ends it; "" for a blank line
    bool in_list = false, after_blank = false;
    size_t chunk = std::string_view::npos;
    bool chunk_html = false;
    auto end_chunk = [&](size_t end) {
      if (chunk != std::string_view::npos) ReadChunk(chunk, end, chunk_html);
      chunk = std::string_view::npos;
      chunk_html = false;
    };
    for (size_t pos = 0; pos < text_.size() && taint_ == std::string_view::npos;) {
      size_t nl = text_.find('\n', pos);
      size_t end = nl == std::string_view::npos ? text_.size() : nl + 1;
      std::string_view line = text_.substr(pos, end - pos);
      const bool blank = IsBlank(line);
      const size_t indent = Indent(line);
      const std::string_view like = FenceLikeRun(line);
      if (!fence.empty()) {
        // A fence a list item may hold ends where a line less indented than
        // it ends the item, and a closing run may be indented up to three
        // columns past the item's content: either reading hides different
        // text, so from here no fence is read at all.
        bool ambiguous = fence_in_list && fence_indent >= 2 && !blank &&
                         (indent < fence_indent || (indent > 3 && indent <= fence_indent + 3 &&
                                                    ClosesWith(line, like, fence)));
        if (!ambiguous) {
          Mark(pos, end, kCode);
          if (ClosesWith(line, FenceRun(line), fence)) fence.clear();
          pos = end;
          continue;
        }
        fence.clear();
        fences = false;
      }
      bool line_html = in_html;
      if (in_html) {
        if (html_end.empty() ? blank : ContainsIgnoreCase(line, html_end)) in_html = false;
      } else if (std::optional<std::string_view> close = HtmlBlockEnd(line)) {
        line_html = true;
        html_end = std::string(*close);
        in_html = close->empty() || !ContainsIgnoreCase(line, *close);
      }
      if (blank) {
        after_blank = true;
      } else {
        if (IsListItem(line)) {
          in_list = true;
        } else if (after_blank && indent < 2) {
          in_list = false;
        }
        after_blank = false;
      }
      if (!like.empty()) {
        // A fence inside an HTML block is raw HTML; one behind container
        // markers, indented four columns or more, or indented with a tab
        // may open a fence in a list item or block quote. Both readings
        // would shift every later fence, so none is read from here on.
        if (fences && !line_html && !FenceRun(line).empty()) {
          end_chunk(pos);
          fence = std::string(FenceRun(line));
          fence_indent = indent;
          fence_in_list = in_list;
          Mark(pos, end, kCode);
          pos = end;
          continue;
        }
        fences = false;
      }
      if (blank) {
        end_chunk(pos);
      } else {
        if (chunk == std::string_view::npos) chunk = pos;
        chunk_html = chunk_html || line_html;
      }
      pos = end;
    }
    end_chunk(text_.size());
    if (taint_ != std::string_view::npos) {
      for (size_t i = taint_; i < text_.size(); ++i) flags_[i] = kHidden | kRawHtml;
    }
    for (size_t i = hide_; i < text_.size(); ++i) flags_[i] |= kHidden;
    return std::move(flags_);
  }

 private:
  void Mark(size_t begin, size_t end, uint8_t flag) {
    for (size_t i = begin; i < end; ++i) flags_[i] |= flag;
  }

  // One run of non-blank lines outside fences. `html_block`: an HTML block
  // may hold a line of it.
  void ReadChunk(size_t begin, size_t end, bool html_block) {
    std::string_view chunk = text_.substr(begin, end - begin);
    std::vector<std::pair<size_t, size_t>> spans;
    bool matched = true;
    for (size_t b = 0; b < chunk.size() && matched;) {
      size_t e = chunk.find('\n', b);
      e = e == std::string_view::npos ? chunk.size() : e + 1;
      matched = LineSpans(chunk.substr(b, e - b), b, spans);
      b = e;
    }
    if (html_block || !matched || SpansAmbiguous(chunk, spans)) spans.clear();
    for (const auto& [b, e] : spans) Mark(begin + b, begin + e, kCode);
    bool html = html_block;
    for (size_t i = 0; i < chunk.size(); ++i) {
      if ((flags_[begin + i] & kCode) != 0 || !OpensMarkup(chunk, i)) continue;
      html = true;
      // Every '<' is read as a construct of its own, even one inside
      // another: renderers disagree on where a comment ends, so a tag that
      // starts inside one may be live. The work is bounded; past the bound
      // the rest of the Artifact counts as markup.
      Markup m = ReadMarkup(chunk, i);
      budget_ -= static_cast<int64_t>((m.end == std::string_view::npos ? chunk.size() : m.end) - i);
      if (budget_ < 0) {
        taint_ = begin + i;
        return;
      }
      if (m.end == std::string_view::npos) {
        // Inline raw HTML ends within its paragraph or is text; in an HTML
        // block a browser reads on into whatever the renderer emits next.
        if (!html_block) continue;
        taint_ = begin + i;
        return;
      }
      Mark(begin + i, begin + m.end, kHidden);
      if (MayHide(m)) hide_ = std::min(hide_, begin + i);
    }
    if (html) Mark(begin, end, kRawHtml);
  }

  std::string_view text_;
  std::vector<uint8_t> flags_;
  size_t taint_ = std::string_view::npos;  // from here on: markup, no code
  size_t hide_ = std::string_view::npos;   // from here on: not visible text
  int64_t budget_;
};

std::vector<uint8_t> ByteFlags(std::string_view text) { return Reader(text).Read(); }

}  // namespace

std::vector<Part> SplitArtifact(std::string_view text) {
  std::vector<uint8_t> flags = ByteFlags(text);
  std::vector<Part> parts;
  for (size_t i = 0; i < text.size();) {
    size_t j = i;
    while (j < text.size() && flags[j] == flags[i]) ++j;
    parts.push_back({text.substr(i, j - i), (flags[i] & kCode) != 0, (flags[i] & kHidden) != 0,
                     (flags[i] & kRawHtml) != 0});
    i = j;
  }
  return parts;
}

std::vector<Token> Tokens(std::string_view prose) {
  std::vector<Token> out;
  size_t i = 0;
  while ((i = prose.find("[@", i)) != std::string_view::npos) {
    size_t close = prose.find(']', i + 2);
    if (close == std::string_view::npos) break;
    std::string id(prose.substr(i + 2, close - i - 2));
    if (ValidId(id)) {
      out.push_back({i, close + 1, id});
      i = close + 1;
    } else {
      i += 2;
    }
  }
  return out;
}

std::vector<std::string> LinkedUrls(std::string_view artifact) {
  std::vector<uint8_t> flags = ByteFlags(artifact);
  std::vector<std::string> out;
  // Each maximal run of bytes whose flags, under `mask`, are `want`.
  auto runs = [&](uint8_t mask, uint8_t want, auto scan) {
    for (size_t i = 0; i < artifact.size();) {
      if ((flags[i] & mask) != want) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < artifact.size() && (flags[j] & mask) == want) ++j;
      scan(artifact.substr(i, j - i));
      i = j;
    }
  };
  using artifact_urls::Decoded;
  using artifact_urls::RawHtmlUrls;
  using artifact_urls::TextUrls;
  runs(kCode, 0, [&](std::string_view s) { TextUrls(Decoded(s, /*escapes=*/true), out); });
  runs(kCode | kRawHtml, kRawHtml, [&](std::string_view s) { RawHtmlUrls(s, false, out); });
  runs(kCode | kHidden | kRawHtml, kHidden | kRawHtml,
       [&](std::string_view s) { RawHtmlUrls(s, true, out); });
  std::vector<std::string> once;
  std::set<std::string> seen;
  for (std::string& url : out) {
    if (seen.insert(url).second) once.push_back(std::move(url));
  }
  return once;
}

}  // namespace raw::raven
