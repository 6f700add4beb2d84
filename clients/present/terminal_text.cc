#include "clients/present/terminal_text.h"

#include <utf8proc.h>

#include <cstdio>
#include <string>

namespace raw::present {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD
constexpr utf8proc_int32_t kZeroWidthJoiner = 0x200D;

bool IsPictographic(utf8proc_int32_t cp) {
  return utf8proc_get_property(cp)->boundclass == UTF8PROC_BOUNDCLASS_EXTENDED_PICTOGRAPHIC;
}

bool IsEmojiModifier(utf8proc_int32_t cp) { return cp >= 0x1F3FB && cp <= 0x1F3FF; }

// VS15 and VS16: text or emoji presentation of the character before.
bool IsPresentationSelector(utf8proc_int32_t cp) { return cp == 0xFE0E || cp == 0xFE0F; }

// Format characters (bidi embeddings, overrides, isolates and marks,
// zero-width spaces and joiners, tags, ...), line and paragraph separators
// and every other Default_Ignorable_Code_Point: they change or hide what a
// reader sees without showing themselves.
bool IsInvisible(utf8proc_int32_t cp) {
  const utf8proc_property_t* p = utf8proc_get_property(cp);
  return p->category == UTF8PROC_CATEGORY_CF || p->category == UTF8PROC_CATEGORY_ZL ||
         p->category == UTF8PROC_CATEGORY_ZP || p->ignorable;
}

// "⟨U+202E⟩"; returns its length in code points.
int AppendMarker(std::string& out, utf8proc_int32_t cp) {
  char hex[16];
  int digits = std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(cp));
  out.append("\xE2\x9F\xA8U+");  // U+27E8
  out.append(hex, static_cast<size_t>(digits));
  out.append("\xE2\x9F\xA9");  // U+27E9
  return digits + 4;
}

// What the code point before the current one was, for the invisible
// characters that are kept because they only shape an emoji.
enum class Before {
  kStart,          // nothing: the text (or a streamed piece of it) starts here
  kVisible,        // a visible character
  kEmoji,          // an Extended_Pictographic character, or an emoji modifier after one
  kEmojiSelected,  // an emoji followed by its presentation selector
  kOther,          // a control, a marker, a newline or tab, a selector after a non-emoji
};

}  // namespace

bool IsInvisibleCodePoint(int32_t cp) { return cp >= 0 && IsInvisible(cp); }

std::string CodePointMarker(int32_t cp) {
  std::string out;
  AppendMarker(out, cp);
  return out;
}

std::string ShowCarriageReturns(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\r') {
      AppendMarker(out, '\r');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string ShowLineBreaks(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\r' || c == '\n') {
      AppendMarker(out, c);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

namespace {

// A space or tab, or another Unicode space separator.
bool IsBlank(utf8proc_int32_t cp) {
  return cp == ' ' || cp == '\t' ||
         (cp >= 0x80 && utf8proc_get_property(cp)->category == UTF8PROC_CATEGORY_ZS);
}

// "⟨37 spaces⟩", "⟨1 tab⟩", "⟨U+00A0⟩", "⟨3 × U+3000⟩".
void AppendBlankMarker(std::string& out, utf8proc_int32_t cp, int count) {
  if (cp == ' ' || cp == '\t') {
    const char* name =
        cp == ' ' ? (count == 1 ? " space" : " spaces") : (count == 1 ? " tab" : " tabs");
    out.append("\xE2\x9F\xA8").append(std::to_string(count)).append(name).append("\xE2\x9F\xA9");
    return;
  }
  if (count == 1) {
    AppendMarker(out, cp);
    return;
  }
  std::string marker;
  AppendMarker(marker, cp);
  // After the opening bracket (3 bytes): "3 × ".
  marker.insert(3, std::to_string(count) + " \xC3\x97 ");
  out.append(marker);
}

}  // namespace

std::string ShowBlankRuns(std::string_view text) {
  constexpr int kMaxIndentColumns = 16;
  constexpr int kMinShownRun = 4;
  std::string out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  // One code point at `at`: its value (-1 for an invalid byte) and length.
  auto decode = [&](utf8proc_ssize_t at, utf8proc_int32_t* cp) {
    utf8proc_ssize_t n = utf8proc_iterate(bytes + at, size - at, cp);
    if (n <= 0) {
      *cp = -1;
      n = 1;
    }
    return n;
  };
  bool line_start = true;
  utf8proc_ssize_t pos = 0;
  while (pos < size) {
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t n = decode(pos, &cp);
    if (!IsBlank(cp)) {
      out.append(text.substr(static_cast<size_t>(pos), static_cast<size_t>(n)));
      line_start = cp == '\n';
      pos += n;
      continue;
    }
    // The run: how long, how wide as indentation, and of what.
    utf8proc_ssize_t end = pos;
    int count = 0;
    int columns = 0;
    bool spaces_only = true;
    bool indentation = true;  // spaces and tabs only
    for (utf8proc_int32_t c = cp; end < size && IsBlank(c);) {
      end += decode(end, &c);
      ++count;
      columns += c == '\t' ? 8 : 1;
      spaces_only = spaces_only && c == ' ';
      indentation = indentation && (c == ' ' || c == '\t');
      if (end < size) decode(end, &c);
    }
    bool trailing = end == size || text[static_cast<size_t>(end)] == '\n';
    bool keep = !trailing && ((line_start && indentation && columns <= kMaxIndentColumns) ||
                              (!line_start && spaces_only && count < kMinShownRun));
    if (keep) {
      out.append(text.substr(static_cast<size_t>(pos), static_cast<size_t>(end - pos)));
    } else {
      // Each stretch of one kind of blank as one marker.
      while (pos < end) {
        utf8proc_int32_t first = -1;
        utf8proc_ssize_t step = decode(pos, &first);
        int same = 0;
        utf8proc_int32_t c = first;
        while (pos < end && c == first) {
          pos += step;
          ++same;
          if (pos < end) step = decode(pos, &c);
        }
        AppendBlankMarker(out, first, same);
      }
    }
    pos = end;
    line_start = false;
  }
  return out;
}

std::string SanitizeForTerminal(std::string_view text, Tabs tabs) {
  std::string out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  utf8proc_ssize_t pos = 0;
  int column = 0;  // for tab stops, counted in code points since the last newline
  Before before = Before::kStart;
  while (pos < size) {
    unsigned char c = bytes[pos];
    if (c < 0x80) {
      before = Before::kOther;
      if (c == '\n') {
        out.push_back('\n');
        column = 0;
      } else if (c == '\t' && tabs == Tabs::kKeep) {
        out.push_back('\t');
        column = 0;
      } else if (c == '\t') {
        int spaces = 4 - column % 4;
        out.append(static_cast<size_t>(spaces), ' ');
        column += spaces;
      } else if (c == '\r') {
        // Dropped: a lone CR would move the cursor.
      } else if (c < 0x20 || c == 0x7f) {
        out.append(kReplacement);
        ++column;
      } else {
        out.push_back(static_cast<char>(c));
        before = Before::kVisible;
        ++column;
      }
      ++pos;
      continue;
    }
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t n = utf8proc_iterate(bytes + pos, size - pos, &cp);
    if (n <= 0 || (cp >= 0x80 && cp < 0xa0)) {
      out.append(kReplacement);
      pos += n <= 0 ? 1 : n;
      ++column;
      before = Before::kOther;
      continue;
    }
    // Invisible characters are shown as markers, except the two that only
    // shape an emoji: one presentation selector after a visible character
    // ("⚠️"), and a joiner between two emoji ("👨‍👩‍👧"). A selector after
    // another, or a joiner elsewhere, is shown: runs of them can carry text
    // no reader sees.
    bool keep = !IsInvisible(cp);
    Before next = IsPictographic(cp) ? Before::kEmoji : Before::kVisible;
    if (IsPresentationSelector(cp)) {
      keep = before == Before::kStart || before == Before::kVisible || before == Before::kEmoji;
      next = keep && before == Before::kEmoji ? Before::kEmojiSelected : Before::kOther;
    } else if (cp == kZeroWidthJoiner) {
      utf8proc_int32_t following = -1;
      if (pos + n < size) utf8proc_iterate(bytes + pos + n, size - pos - n, &following);
      keep = (before == Before::kEmoji || before == Before::kEmojiSelected) && following >= 0 &&
             IsPictographic(following);
      next = Before::kOther;
    } else if (IsEmojiModifier(cp) && before == Before::kEmoji) {
      next = Before::kEmoji;
    } else if (!keep) {
      next = Before::kOther;
    }
    if (keep) {
      out.append(text.substr(static_cast<size_t>(pos), static_cast<size_t>(n)));
      ++column;
    } else {
      column += AppendMarker(out, cp);
    }
    before = next;
    pos += n;
  }
  return out;
}

size_t IncompleteUtf8Tail(std::string_view text) {
  // Look back over at most 3 continuation bytes for the lead byte.
  size_t n = text.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (length > back) n -= back;
    break;
  }
  // Before that, a trailing emoji sequence (emoji joined by joiners, each
  // with its selector or modifiers; at most kHeld code points), or a
  // trailing joiner: how its joiners show depends on what comes next.
  constexpr int kHeld = 16;
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  size_t start = n;
  bool joined_only = false;  // after an emoji: only a joiner continues the sequence
  for (int held = 0; held < kHeld && start > 0; ++held) {
    size_t at = start - 1;
    while (at > 0 && (bytes[at] & 0xC0) == 0x80 && start - at < 4) --at;
    utf8proc_int32_t cp = -1;
    if (utf8proc_iterate(bytes + at, static_cast<utf8proc_ssize_t>(start - at), &cp) !=
        static_cast<utf8proc_ssize_t>(start - at)) {
      break;
    }
    if (cp == kZeroWidthJoiner) {
      joined_only = false;
    } else if (joined_only) {
      break;
    } else if (IsPictographic(cp)) {
      joined_only = true;
    } else if (!IsPresentationSelector(cp) && !IsEmojiModifier(cp)) {
      break;
    }
    start = at;
  }
  return text.size() - start;
}

}  // namespace raw::present
