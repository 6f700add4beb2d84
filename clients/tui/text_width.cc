#include "clients/tui/text_width.h"

#include <locale.h>
#include <utf8proc.h>
#include <wchar.h>

#include <algorithm>
#include <vector>

namespace raw::tui {
namespace {

constexpr utf8proc_int32_t kVariationSelector15 = 0xFE0E;
constexpr utf8proc_int32_t kVariationSelector16 = 0xFE0F;
constexpr utf8proc_int32_t kZeroWidthJoiner = 0x200D;

// Code points left out of what a terminal is sent (see TerminalForm).
bool Dropped(utf8proc_int32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == kVariationSelector16 ||
         cp == kZeroWidthJoiner;
}

// Invisible code points a terminal is sent as their marker (see
// TerminalForm): all but the presentation selectors and the joiner, which
// SanitizeForTerminal keeps where they shape an emoji.
bool ShownAsMarker(utf8proc_int32_t cp) {
  return !Dropped(cp) && cp != kVariationSelector15 && present::IsInvisibleCodePoint(cp);
}

// The columns of present::CodePointMarker(cp): its hex digits (at least 4)
// and 4.
int MarkerWidth(utf8proc_int32_t cp) { return cp > 0xFFFFF ? 10 : cp > 0xFFFF ? 9 : 8; }
constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD, one column

// The C library's wcwidth under a UTF-8 locale, whatever the process's
// locale: what ncursesw (and most terminals) advance for a code point. -1 for
// code points it does not know.
int LibcWidth(utf8proc_int32_t cp) {
  static const locale_t utf8 = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (l == static_cast<locale_t>(nullptr)) {
      l = newlocale(LC_CTYPE_MASK, "C.utf8", static_cast<locale_t>(nullptr));
    }
    return l;
  }();
  if (utf8 == static_cast<locale_t>(nullptr)) return utf8proc_charwidth(cp);
  locale_t previous = uselocale(utf8);
  int width = wcwidth(static_cast<wchar_t>(cp));
  uselocale(previous);
  return width;
}

// Columns a code point takes in its terminal form (TerminalForm): controls,
// VS16 and ZWJ are dropped, unknown code points become U+FFFD.
int CodepointWidth(utf8proc_int32_t cp) {
  if (Dropped(cp)) return 0;
  if (ShownAsMarker(cp)) return MarkerWidth(cp);
  int width = LibcWidth(cp);
  return width < 0 ? 1 : width;
}

// A grapheme being built.
struct Cluster {
  size_t begin = 0;
  size_t end = 0;
  int width = 0;
  bool open = false;
};

}  // namespace

void ForEachGrapheme(std::string_view text,
                     const std::function<void(std::string_view, int)>& fn) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  utf8proc_ssize_t pos = 0;
  utf8proc_int32_t previous = -1;
  utf8proc_int32_t state = 0;
  Cluster cluster;
  auto flush = [&]() {
    if (cluster.open) {
      fn(text.substr(cluster.begin, cluster.end - cluster.begin), cluster.width);
    }
    cluster = Cluster();
  };
  while (pos < size) {
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t n = utf8proc_iterate(bytes + pos, size - pos, &cp);
    if (n <= 0) {
      // An invalid byte: a cluster of its own.
      flush();
      fn(text.substr(static_cast<size_t>(pos), 1), 1);
      ++pos;
      previous = -1;
      state = 0;
      continue;
    }
    // A marker is a cluster of its own, so that wrapping can put it on the
    // next row like any other wide character.
    bool breaks = previous < 0 || utf8proc_grapheme_break_stateful(previous, cp, &state) ||
                  ShownAsMarker(cp) || ShownAsMarker(previous);
    if (breaks) {
      flush();
      cluster.open = true;
      cluster.begin = static_cast<size_t>(pos);
      cluster.width = CodepointWidth(cp);
    } else {
      cluster.width += CodepointWidth(cp);
    }
    cluster.end = static_cast<size_t>(pos + n);
    previous = cp;
    pos += n;
  }
  flush();
}

std::string TerminalForm(std::string_view cluster) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(cluster.data());
  const auto size = static_cast<utf8proc_ssize_t>(cluster.size());
  std::string out;
  utf8proc_ssize_t pos = 0;
  while (pos < size) {
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t n = utf8proc_iterate(bytes + pos, size - pos, &cp);
    if (n <= 0) {
      out += kReplacement;
      ++pos;
      continue;
    }
    if (!Dropped(cp)) {
      if (ShownAsMarker(cp)) {
        out += present::CodePointMarker(cp);
      } else if (LibcWidth(cp) < 0) {
        out += kReplacement;
      } else {
        out.append(cluster.substr(static_cast<size_t>(pos), static_cast<size_t>(n)));
      }
    }
    pos += n;
  }
  return out;
}

std::string SanitizeLine(std::string_view text) {
  return SanitizeForTerminal(present::ShowLineBreaks(text));
}

int DisplayWidth(std::string_view text) {
  int width = 0;
  bool ascii = true;
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    for (char c : text) width += (c >= 0x20 && c != 0x7f) ? 1 : 0;
    return width;
  }
  ForEachGrapheme(text, [&width](std::string_view, int w) { width += w; });
  return width;
}

std::string TruncateToWidth(std::string_view text, int width, std::string_view ellipsis) {
  if (DisplayWidth(text) <= width) return std::string(text);
  int budget = std::max(0, width - DisplayWidth(ellipsis));
  std::string out;
  int used = 0;
  bool full = false;
  ForEachGrapheme(text, [&](std::string_view cluster, int w) {
    if (full || used + w > budget) {
      full = true;
      return;
    }
    out.append(cluster);
    used += w;
  });
  if (width >= DisplayWidth(ellipsis)) out.append(ellipsis);
  return out;
}

StyledLine FitToWidth(const StyledLine& line, int width, Style pad) {
  StyledLine out;
  int used = 0;
  bool full = false;
  for (const Span& span : line.spans) {
    if (full) break;
    if (used + DisplayWidth(span.text) <= width) {
      out.Add(span.text, span.style);
      used += DisplayWidth(span.text);
      continue;
    }
    std::string part;
    ForEachGrapheme(span.text, [&](std::string_view cluster, int w) {
      if (full || used + w > width) {
        full = true;
        return;
      }
      part.append(cluster);
      used += w;
    });
    out.Add(part, span.style);
  }
  if (used < width) out.Add(std::string(static_cast<size_t>(width - used), ' '), pad);
  return out;
}

namespace {

// One grapheme with its style, the unit of wrapping.
struct Glyph {
  std::string_view text;
  Style style;
  int width;
};

std::vector<Glyph> Explode(const StyledLine& line) {
  std::vector<Glyph> glyphs;
  for (const Span& span : line.spans) {
    ForEachGrapheme(span.text, [&](std::string_view cluster, int w) {
      glyphs.push_back(Glyph{cluster, span.style, w});
    });
  }
  return glyphs;
}

class LineBuilder {
 public:
  LineBuilder(int width, const StyledLine& first, const StyledLine& rest)
      : width_(width), rest_(rest) {
    Start(first);
  }

  int room() const { return width_ - used_; }
  bool at_start() const { return used_ == indent_; }

  void Add(const Glyph& g) {
    line_.Add(g.text, g.style);
    used_ += g.width;
  }

  void Break() {
    lines_.push_back(std::move(line_));
    Start(rest_);
  }

  Lines Finish() {
    lines_.push_back(std::move(line_));
    return std::move(lines_);
  }

 private:
  void Start(const StyledLine& prefix) {
    line_ = prefix;
    indent_ = used_ = prefix.Width();
    // A prefix wider than the line leaves one column at least.
    if (width_ - used_ < 1) width_ = used_ + 1;
  }

  int width_;
  StyledLine rest_;
  StyledLine line_;
  int used_ = 0;
  int indent_ = 0;
  Lines lines_;
};

}  // namespace

Lines WrapSpans(const StyledLine& text, int width, const StyledLine& first, const StyledLine& rest,
                SpacesAtBreaks spaces_at_breaks) {
  std::vector<Glyph> glyphs = Explode(text);
  LineBuilder builder(std::max(width, 1), first, rest);
  size_t i = 0;
  while (i < glyphs.size()) {
    const Glyph& g = glyphs[i];
    if (g.text == "\n") {
      builder.Break();
      ++i;
      continue;
    }
    if (g.text == " " && spaces_at_breaks == SpacesAtBreaks::kKeep) {
      // Every space, breaking only when the line is full; the next word
      // moves to the next line by itself when it does not fit.
      if (g.width > builder.room() && !builder.at_start()) builder.Break();
      builder.Add(g);
      ++i;
      continue;
    }
    if (g.text == " ") {
      // Spaces: kept when the next word fits after them on this line.
      size_t j = i;
      int spaces = 0;
      while (j < glyphs.size() && glyphs[j].text == " ") spaces += glyphs[j++].width;
      size_t k = j;
      int word = 0;
      while (k < glyphs.size() && glyphs[k].text != " " && glyphs[k].text != "\n") {
        word += glyphs[k++].width;
      }
      if (!builder.at_start() && spaces + word > builder.room() && k > j) {
        builder.Break();
      } else if (spaces <= builder.room()) {
        for (size_t s = i; s < j; ++s) builder.Add(glyphs[s]);
      }
      i = j;
      continue;
    }
    // A word: moved to the next line when it does not fit but would there.
    size_t k = i;
    int word = 0;
    while (k < glyphs.size() && glyphs[k].text != " " && glyphs[k].text != "\n") {
      word += glyphs[k++].width;
    }
    if (word > builder.room() && !builder.at_start()) builder.Break();
    for (size_t s = i; s < k; ++s) {
      if (glyphs[s].width > builder.room() && !builder.at_start()) builder.Break();
      builder.Add(glyphs[s]);
    }
    i = k;
  }
  return builder.Finish();
}

Lines HardWrap(const StyledLine& text, int width, const StyledLine& first,
               const StyledLine& rest) {
  LineBuilder builder(std::max(width, 1), first, rest);
  for (const Glyph& g : Explode(text)) {
    if (g.text == "\n") {
      builder.Break();
      continue;
    }
    if (g.width > builder.room() && !builder.at_start()) builder.Break();
    builder.Add(g);
  }
  return builder.Finish();
}

}  // namespace raw::tui
