#include "daemon/raven/prose.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "common/utf8.h"
#include "daemon/raven/domain.h"

namespace raw::raven {
namespace {

// The code point at s[i] and its byte length (s is valid UTF-8).
char32_t DecodeAt(std::string_view s, size_t i, size_t& len) {
  unsigned char c = s[i];
  if (c < 0x80) {
    len = 1;
    return c;
  }
  len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  if (i + len > s.size()) {
    len = 1;
    return 0xFFFD;
  }
  char32_t cp = c & (0xFF >> (len + 1));
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

// The code point that ends s[0, end).
char32_t DecodeBefore(std::string_view s, size_t end) {
  if (end == 0) return 0;
  size_t i = end - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  size_t len = 0;
  return DecodeAt(s, i, len);
}

bool IsWide(char32_t c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0x303E) ||
         (c >= 0x3041 && c <= 0x33FF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6);
}

bool IsSpace(char32_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

bool IsWideTerminator(char32_t c) {
  return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0x203C || c == 0x2047 ||
         c == 0x2048 || c == 0x2049;
}
bool IsNarrowTerminator(char32_t c) { return c == '.' || c == '!' || c == '?'; }

bool IsCloser(char32_t c) {
  switch (c) {
    case '"': case '\'': case ')': case ']': case '}':
    case 0xBB: case 0x201D: case 0x2019: case 0x203A:
    case 0x300D: case 0x300F: case 0xFF09: case 0x3011: case 0x3009: case 0x300B:
    case 0x3015: case 0xFF5D:
      return true;
    default:
      return false;
  }
}

bool CanOpenSentence(char32_t c) {
  if (IsWide(c) || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '"': case '\'': case 0x201C: case 0x2018: case '(': case '[': case '{':
    case '*': case '_': case '`': case 0xAB: case '-': case '#': case '>':
      return true;
    default:
      return false;
  }
}

constexpr std::string_view kAbbreviations[] = {
    "al",   "approx", "apr", "aug", "ca",   "cf",  "chap", "col", "dec", "dept", "dr",
    "e.g",  "ed",     "eds", "eq",  "esp",  "est", "et",   "etc", "feb", "fig",  "figs",
    "i.e",  "inc",    "jan", "jr",  "jul",  "jun", "ltd",  "mar", "mr",  "mrs",  "ms",
    "no",   "nos",    "nov", "oct", "p",    "pp",  "prof", "pt",  "rev", "sec",  "sep",
    "sept", "sr",     "st",  "tbl", "univ", "vol", "vols", "vs",  "v"};

constexpr size_t kLongestAbbreviation = [] {
  size_t n = 0;
  for (std::string_view a : kAbbreviations) n = std::max(n, a.size());
  return n;
}();

bool IsAbbreviation(std::string_view token) {
  for (std::string_view a : kAbbreviations) {
    if (a == token) return true;
  }
  return false;
}

bool IsTokenChar(char c) {
  const char l = absl::ascii_tolower(c);
  return (l >= 'a' && l <= 'z') || l == '.';
}

// Whether the '.' at s[dot] ends an abbreviation or an initial. The token
// starts after white space or at the start of the sentence; its letters
// and dots are compared. One with more of them than the longest
// abbreviation is neither, so the walk back stops there: a byte is read
// back for at most that many later dots, and a long run without white
// space ("a.a.a...") costs linear time, not quadratic. `steps` counts the
// bytes read back.
bool DotIsNotTerminator(std::string_view s, size_t dot, size_t sentence_start, size_t& steps) {
  size_t start = dot, kept = 0;
  while (start > sentence_start && !IsSpace(static_cast<unsigned char>(s[start - 1]))) {
    --start;
    ++steps;
    if (IsTokenChar(s[start]) && ++kept > kLongestAbbreviation) return false;
  }
  std::string token;
  for (char c : s.substr(start, dot - start)) {
    if (IsTokenChar(c)) token.push_back(absl::ascii_tolower(c));
  }
  if (IsAbbreviation(token)) return true;
  // An initial: one letter at the start of the text or after white space.
  return dot - start == 1 && absl::ascii_isalpha(s[start]);
}

// The end of a footnote or citation marker "[^x]" / "[@x]" / "[x]" at s[i]
// (its body word characters, '.', '-'), or i when there is none.
size_t MarkerEnd(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] != '[') return i;
  size_t j = i + 1;
  if (j < s.size() && (s[j] == '^' || s[j] == '@')) ++j;
  size_t body = j;
  while (j < s.size() && (absl::ascii_isalnum(s[j]) || s[j] == '_' || s[j] == '.' || s[j] == '-')) {
    ++j;
  }
  if (j == body || j >= s.size() || s[j] != ']') return i;
  return j + 1;
}

// Whether joining `before` and `after` (two lines of a paragraph, or two
// sentences kept on one line) needs a space: not between two wide
// characters, unless the first ends a sentence or closes a quote — without
// the space, a terminator after it would be absorbed into its sentence when
// the text is laid out again.
bool JoinNeedsSpace(char32_t before, char32_t after) {
  return !(IsWide(before) && IsWide(after) && !IsWideTerminator(before) && !IsCloser(before));
}

std::string_view TrimView(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e) {
    size_t len = 0;
    if (!IsSpace(DecodeAt(s, b, len))) break;
    b += len;
  }
  while (e > b) {
    char32_t c = DecodeBefore(s, e);
    if (!IsSpace(c)) break;
    size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    e = k;
  }
  return s.substr(b, e - b);
}

}  // namespace

std::vector<std::string> SplitSentences(std::string_view s) {
  size_t steps = 0;
  return SplitSentences(s, steps);
}

std::vector<std::string> SplitSentences(std::string_view s, size_t& steps) {
  std::vector<std::string> out;
  size_t start = 0, i = 0;
  size_t code_run = 0;  // the backtick run length of an open code span
  int square = 0, round = 0;
  auto emit = [&](size_t end) {
    std::string_view part = TrimView(s.substr(start, end - start));
    if (!part.empty()) out.emplace_back(part);
  };
  while (i < s.size()) {
    if (s[i] == '`') {
      size_t run = 0;
      while (i + run < s.size() && s[i + run] == '`') ++run;
      if (code_run == 0) {
        code_run = run;
      } else if (run == code_run) {
        code_run = 0;
      }
      i += run;
      continue;
    }
    size_t len = 0;
    char32_t c = DecodeAt(s, i, len);
    if (code_run > 0) {
      i += len;
      continue;
    }
    if (c == '[') ++square;
    if (c == ']' && square > 0) --square;
    if (c == '(') ++round;
    if (c == ')' && round > 0) --round;
    bool wide = IsWideTerminator(c);
    bool narrow = IsNarrowTerminator(c);
    if ((!wide && !narrow) || square > 0 || round > 0 ||
        (c == '.' && DotIsNotTerminator(s, i, start, steps))) {
      i += len;
      continue;
    }
    // Absorb further terminators, closing marks and one marker.
    size_t end = i + len;
    for (;;) {
      if (end >= s.size()) break;
      size_t l2 = 0;
      char32_t d = DecodeAt(s, end, l2);
      if (IsWideTerminator(d) || IsNarrowTerminator(d)) {
        wide = wide || IsWideTerminator(d);
        end += l2;
      } else if (IsCloser(d)) {
        end += l2;
      } else {
        break;
      }
    }
    end = MarkerEnd(s, end);
    size_t next = end;
    while (next < s.size()) {
      size_t l3 = 0;
      if (!IsSpace(DecodeAt(s, next, l3))) break;
      next += l3;
    }
    if (next >= s.size()) break;
    size_t l4 = 0;
    bool split = wide ? true : (next > end && CanOpenSentence(DecodeAt(s, next, l4)));
    if (split) {
      emit(end);
      start = next;
    }
    i = std::max(end, i + len);
  }
  emit(s.size());
  return out;
}

namespace {

bool AllOf(std::string_view s, char c, size_t min) {
  return s.size() >= min && s.find_first_not_of(c) == std::string_view::npos;
}

size_t LeadingSpaces(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] == ' ') ++n;
  return n;
}

// The fence run ("```", "~~~~") that opens a code block on this line.
std::optional<std::string> FenceOpen(std::string_view line) {
  std::string_view t = line.substr(LeadingSpaces(line));
  if (t.empty() || (t[0] != '`' && t[0] != '~')) return std::nullopt;
  size_t run = 0;
  while (run < t.size() && t[run] == t[0]) ++run;
  if (run < 3) return std::nullopt;
  return std::string(t.substr(0, run));
}

bool IsHeading(std::string_view line) {
  size_t sp = LeadingSpaces(line);
  if (sp > 3) return false;
  size_t n = 0;
  while (sp + n < line.size() && line[sp + n] == '#') ++n;
  return n >= 1 && n <= 6 && (sp + n == line.size() || line[sp + n] == ' ');
}

bool IsThematicBreak(std::string_view line) {
  for (char m : {'*', '-', '_'}) {
    size_t count = 0;
    bool only = true;
    for (char c : line) {
      if (c == m) {
        ++count;
      } else if (c != ' ' && c != '\t') {
        only = false;
      }
    }
    if (only && count >= 3) return true;
  }
  return false;
}

bool IsHtmlLine(std::string_view line) {
  size_t sp = LeadingSpaces(line);
  return sp <= 3 && sp + 1 < line.size() && line[sp] == '<' &&
         (line[sp + 1] == '!' || line[sp + 1] == '/' || absl::ascii_isalpha(line[sp + 1]));
}

bool IsLinkDefinition(std::string_view line) {
  std::string_view t = line.substr(LeadingSpaces(line));
  size_t close = t.find("]:");
  return !t.empty() && t[0] == '[' && close != std::string_view::npos && close > 1;
}

bool IsSetextUnderline(std::string_view line) {
  std::string_view t = TrimView(line);
  return AllOf(t, '=', 1) || AllOf(t, '-', 2);
}

bool IsHardBreak(std::string_view line) {
  if (line.empty()) return false;
  if (line.back() == '\\') return true;
  return line.size() >= 2 && IsSpace(static_cast<unsigned char>(line[line.size() - 1])) &&
         IsSpace(static_cast<unsigned char>(line[line.size() - 2]));
}

// The list marker opener (indent + marker + spaces) of a list item line.
std::optional<size_t> ListOpener(std::string_view line) {
  size_t i = LeadingSpaces(line);
  size_t m = i;
  if (m < line.size() && (line[m] == '*' || line[m] == '+' || line[m] == '-')) {
    ++m;
  } else {
    size_t digits = 0;
    while (m < line.size() && absl::ascii_isdigit(line[m]) && digits < 10) ++m, ++digits;
    if (digits == 0 || digits > 9 || m >= line.size() || (line[m] != '.' && line[m] != ')')) {
      return std::nullopt;
    }
    ++m;
  }
  // A marker alone on its line is an (empty) item too, so that the line
  // reads the same once text has been joined after it.
  size_t spaces = m;
  while (spaces < line.size() && line[spaces] == ' ') ++spaces;
  if (spaces == m && m != line.size()) return std::nullopt;
  return spaces;
}

// The blockquote prefix length: one or more "> " marks (each after up to
// three spaces, with one optional space after it).
size_t QuotePrefix(std::string_view line) {
  size_t i = 0, end = 0;
  for (;;) {
    size_t sp = 0;
    while (i + sp < line.size() && line[i + sp] == ' ' && sp < 3) ++sp;
    if (i + sp >= line.size() || line[i + sp] != '>') return end;
    i += sp + 1;
    if (i < line.size() && line[i] == ' ') ++i;
    end = i;
  }
}

// Whether `line`, as a continuation line of an open paragraph, would be
// read back as part of it (and not as structure or a new block). Sentences
// that would not are kept on the line before, which keeps the layout
// idempotent.
bool ContinuesParagraph(std::string_view line) {
  return !FenceOpen(line) && line.substr(0, 2) != "$$" && !TrimView(line).empty() &&
         !IsHeading(line) && !IsThematicBreak(line) &&
         line.substr(LeadingSpaces(line), 1) != "|" && !IsHtmlLine(line) &&
         !IsLinkDefinition(line) && !IsSetextUnderline(line) && QuotePrefix(line) == 0 &&
         !IsHardBreak(line) && !ListOpener(line);
}

class Layout {
 public:
  std::string Run(std::string_view text) {
    std::vector<std::string_view> lines;
    for (size_t pos = 0;;) {
      size_t nl = text.find('\n', pos);
      lines.push_back(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
    size_t i = 0;
    if (!lines.empty() && AllOf(TrimView(lines[0]), '-', 3)) {
      out_.emplace_back(lines[0]);
      for (i = 1; i < lines.size(); ++i) {
        out_.emplace_back(lines[i]);
        if (AllOf(TrimView(lines[i]), '-', 3)) {
          ++i;
          break;
        }
      }
    }
    for (; i < lines.size(); ++i) Line(lines[i]);
    Flush();
    return absl::StrJoin(out_, "\n");
  }

  // One line as a document of its own (for a blockquote's remainder).
  std::vector<std::string> Single(std::string_view line) {
    Line(line);
    Flush();
    return std::move(out_);
  }

 private:
  void Line(std::string_view line) {
    if (fence_) {
      out_.emplace_back(line);
      std::string_view t = line.substr(LeadingSpaces(line));
      if (t.substr(0, fence_->size()) == *fence_) fence_.reset();
      return;
    }
    if (std::optional<std::string> fence = FenceOpen(line)) {
      Verbatim(line);
      fence_ = fence;
      return;
    }
    if (line.substr(0, 2) == "$$") {
      Verbatim(line);
      math_ = !math_;
      return;
    }
    if (math_) {
      out_.emplace_back(line);
      return;
    }
    if (TrimView(line).empty() || IsHeading(line) || IsThematicBreak(line) ||
        line.substr(LeadingSpaces(line), 1) == "|" || IsHtmlLine(line) || IsLinkDefinition(line) ||
        (open_ && IsSetextUnderline(line))) {
      Verbatim(line);
      return;
    }
    if (size_t q = QuotePrefix(line); q > 0) {
      Flush();
      std::string prefix(line.substr(0, q));
      // A paragraph drops its leading white space (a tab, a no-break
      // space), which can uncover a nested quote mark that only the next
      // pass would read: read it now, so that a quote nested behind such
      // space at every level takes one pass, not one per level.
      std::string_view rest = line.substr(q);
      const std::string_view uncovered =
          rest.substr(static_cast<size_t>(TrimView(rest).data() - rest.data()));
      if (QuotePrefix(uncovered) > 0) rest = uncovered;
      for (const std::string& l : Layout().Single(rest)) out_.push_back(prefix + l);
      return;
    }
    if (IsHardBreak(line)) {
      Verbatim(line);
      return;
    }
    if (std::optional<size_t> opener = ListOpener(line)) {
      Flush();
      std::string marker(line.substr(0, *opener));
      // A marker alone on its line: text joined after it needs the space
      // that makes the result read back as the same item.
      if (*opener == line.size()) marker.push_back(' ');
      const size_t width = marker.size();
      Open(std::move(marker), std::string(width, ' '));
      parts_.emplace_back(line.substr(*opener));
      return;
    }
    if (!open_) {
      std::string indent(line.substr(0, LeadingSpaces(line)));
      // A paragraph drops its leading white space. When that space is more
      // than plain spaces (a tab, a no-break space) it can be all that keeps
      // the line from reading as structure ("\t```", "\t# x"): laid out as
      // a paragraph, the line would become that structure on the next pass
      // and change how everything after it reads, one fence per pass. Such
      // a line is kept as it is.
      const std::string_view trimmed = TrimView(line);
      if (trimmed.data() != line.data() + indent.size() &&
          !ContinuesParagraph(indent + std::string(trimmed))) {
        Verbatim(line);
        return;
      }
      Open(indent, indent);
    }
    parts_.emplace_back(line);
  }

  void Verbatim(std::string_view line) {
    Flush();
    out_.emplace_back(line);
  }

  void Open(std::string opener, std::string continuation) {
    open_ = true;
    opener_ = std::move(opener);
    continuation_ = std::move(continuation);
  }

  void Flush() {
    if (!open_) return;
    std::string joined;
    for (const std::string& p : parts_) {
      std::string_view t = TrimView(p);
      if (t.empty()) continue;
      if (!joined.empty()) {
        size_t len = 0;
        if (JoinNeedsSpace(DecodeBefore(joined, joined.size()), DecodeAt(t, 0, len))) {
          joined.push_back(' ');
        }
      }
      joined.append(t);
    }
    std::vector<std::string> sentences;
    for (std::string& s : SplitSentences(joined)) {
      if (!sentences.empty() && !ContinuesParagraph(continuation_ + s)) {
        size_t len = 0;
        std::string& prev = sentences.back();
        if (JoinNeedsSpace(DecodeBefore(prev, prev.size()), DecodeAt(s, 0, len))) {
          prev.push_back(' ');
        }
        prev += s;
      } else {
        sentences.push_back(std::move(s));
      }
    }
    if (sentences.empty()) {
      // An empty item: its marker with its indentation, no trailing space.
      std::string bare = opener_;
      while (!bare.empty() && bare.back() == ' ') bare.pop_back();
      out_.push_back(std::move(bare));
    }
    for (size_t k = 0; k < sentences.size(); ++k) {
      out_.push_back((k == 0 ? opener_ : continuation_) + sentences[k]);
    }
    open_ = false;
    parts_.clear();
  }

  std::vector<std::string> out_;
  std::optional<std::string> fence_;
  bool math_ = false;
  bool open_ = false;
  std::string opener_, continuation_;
  std::vector<std::string> parts_;
};

std::string Nfc(const std::string& s) {
  utf8proc_uint8_t* out = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(s.c_str()));
  if (out == nullptr) return s;
  std::string r(reinterpret_cast<char*>(out));
  std::free(out);
  return r;
}

}  // namespace

namespace {

std::string LayoutOnce(std::string_view text) {
  std::string s = SanitizeUtf8(text);
  // NUL bytes would end utf8proc's C string early; they carry no prose.
  std::erase(s, '\0');
  s = Nfc(s);
  std::string lf;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      lf.push_back('\n');
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      lf.push_back(s[i]);
    }
  }
  return Layout().Run(TrimText(lf));
}

// Passes needed by the worst input the fuzzer has found so far: 3.
constexpr int kMaxPasses = 16;

}  // namespace

std::string LayoutProse(std::string_view text) {
  // One pass can expose structure that the next reads differently (a
  // sentence split that leaves a bare list marker on its line, an invisible
  // character trimmed from in front of a '>'), so the layout is applied
  // until it no longer changes: its result is then a fixed point, which is
  // what idempotence means.
  std::string out = LayoutOnce(text);
  for (int pass = 1; pass < kMaxPasses; ++pass) {
    std::string again = LayoutOnce(out);
    if (again == out) break;
    out = std::move(again);
  }
  return out;
}

}  // namespace raw::raven
