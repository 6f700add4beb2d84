#include "daemon/raven/normalizer.h"

#include <utf8proc.h>

#include <algorithm>

namespace raw::raven {
namespace {

// Step 2 of the key (see the header); 0 when `c` is not folded.
const char* Typographic(utf8proc_int32_t c) {
  switch (c) {
    case 0x2018: case 0x2019: case 0x201A: case 0x201B: case 0x2032: case 0xFF07:
    case 0x0060: case 0x00B4:
      return "'";
    case 0x201C: case 0x201D: case 0x201E: case 0x201F: case 0x2033: case 0x00AB:
    case 0x00BB: case 0xFF02:
      return "\"";
    case 0x2010: case 0x2011: case 0x2012: case 0x2013: case 0x2014: case 0x2015:
    case 0x2212: case 0x2043: case 0xFE58: case 0xFE63: case 0xFF0D:
      return "-";
    case 0x2026:
      return "...";
    default:
      return nullptr;
  }
}

bool IsSpace(utf8proc_int32_t c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85) return true;
  if (c < 0x80) return false;
  utf8proc_category_t cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
         cat == UTF8PROC_CATEGORY_ZP;
}

class KeyBuilder {
 public:
  // The key is written into buffers sized ahead (`size_` bytes used) and
  // cut to size by Finish: most input bytes become one key byte.
  KeyBuilder(NormalizedText& out, size_t expected) : out_(out) { Reserve(expected + 16); }

  void Space(size_t at) {
    if (size_ != 0) pending_space_ = at;
    has_pending_ = size_ != 0;
  }
  void Append(std::string_view bytes, size_t at) {
    Reserve(bytes.size() + 1);
    Pending();
    for (char c : bytes) {
      out_.key[size_] = c;
      out_.offsets[size_++] = static_cast<uint32_t>(at);
    }
  }
  // ASCII bytes [from, to) of `text` that each stand for themselves in the
  // key (lower-cased).
  void AppendAscii(const unsigned char* text, size_t from, size_t to) {
    Reserve(to - from + 1);
    Pending();
    char* key = out_.key.data() + size_;
    uint32_t* offsets = out_.offsets.data() + size_;
    for (size_t k = from; k < to; ++k) {
      const unsigned char c = text[k];
      *key++ = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
      *offsets++ = static_cast<uint32_t>(k);
    }
    size_ += to - from;
  }
  void Finish() {
    out_.key.resize(size_);
    out_.offsets.resize(size_);
  }

 private:
  void Reserve(size_t more) {
    if (size_ + more > out_.key.size()) Grow(more);
  }
  void Grow(size_t more) {
    const size_t grown = std::max(out_.key.size() * 2, size_ + more);
    out_.key.resize(grown);
    out_.offsets.resize(grown);
  }
  void Pending() {
    if (!has_pending_) return;
    out_.key[size_] = ' ';
    out_.offsets[size_++] = static_cast<uint32_t>(pending_space_);
    has_pending_ = false;
  }

  NormalizedText& out_;
  size_t size_ = 0;
  bool has_pending_ = false;
  size_t pending_space_ = 0;
};

// Steps 2 and 4 for one code point that step 3 produced (or an ASCII one).
void Emit(KeyBuilder& key, utf8proc_int32_t c, size_t at) {
  if (IsSpace(c)) {
    key.Space(at);
  } else if (const char* folded = Typographic(c)) {
    key.Append(folded, at);
  } else if (c < 0x80) {
    char ascii = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    key.Append(std::string_view(&ascii, 1), at);
  } else {
    char encoded[4];
    utf8proc_ssize_t len = utf8proc_encode_char(c, reinterpret_cast<utf8proc_uint8_t*>(encoded));
    key.Append(std::string_view(encoded, static_cast<size_t>(len)), at);
  }
}

// A character whose compatibility decomposition is <super>, <sub> or
// <fraction> (step 3 of the header): its decomposition reads as other
// digits and letters ("10⁶" as "106", "2½" as "21⁄2"), so it is kept.
bool KeptAsIs(utf8proc_int32_t c) {
  switch (utf8proc_get_property(c)->decomp_type) {
    case UTF8PROC_DECOMP_TYPE_SUPER:
    case UTF8PROC_DECOMP_TYPE_SUB:
    case UTF8PROC_DECOMP_TYPE_FRACTION:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::pair<size_t, size_t> NormalizedText::InputRange(std::string_view input, size_t begin,
                                                     size_t end) const {
  size_t first = offsets[begin];
  size_t last = offsets[end - 1];
  // Through the end of the last code point.
  ++last;
  while (last < input.size() && (static_cast<unsigned char>(input[last]) & 0xC0) == 0x80) ++last;
  return {first, last};
}

NormalizedText Normalize(std::string_view text) {
  NormalizedText out;
  KeyBuilder key(out, text.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  size_t i = 0;
  utf8proc_int32_t buffer[32];
  while (i < text.size()) {
    if (bytes[i] < 0x80) {
      // ASCII has no decomposition and folds to lower case; white space and
      // '`' take the general path.
      do {
        size_t j = i;
        while (j < text.size() && bytes[j] > ' ' && bytes[j] < 0x7F && bytes[j] != '`') ++j;
        if (j > i) {
          key.AppendAscii(bytes, i, j);
          i = j;
        } else if (bytes[i] == ' ' || (bytes[i] >= '\t' && bytes[i] <= '\r')) {
          key.Space(i);
          ++i;
        } else {
          Emit(key, bytes[i], i);
          ++i;
        }
      } while (i < text.size() && bytes[i] < 0x80);
      continue;
    }
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n =
        utf8proc_iterate(bytes + i, static_cast<utf8proc_ssize_t>(text.size() - i), &cp);
    size_t at = i;
    if (n <= 0) {
      cp = 0xFFFD;
      n = 1;
    }
    i += static_cast<size_t>(n);
    if (IsSpace(cp) || Typographic(cp) != nullptr || KeptAsIs(cp)) {
      Emit(key, cp, at);
      continue;
    }
    int last_boundclass = 0;
    utf8proc_ssize_t count = utf8proc_decompose_char(
        cp, buffer, 32,
        static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE),
        &last_boundclass);
    if (count < 0 || count > 32) {
      buffer[0] = cp;
      count = 1;
    }
    // Case folding can yield a character that has a compatibility form of
    // its own (fullwidth Ａ folds to fullwidth ａ): decompose once more.
    for (utf8proc_ssize_t k = 0; k < count; ++k) {
      utf8proc_int32_t again[8];
      utf8proc_ssize_t n2 =
          buffer[k] < 0x80 ? -1
                           : utf8proc_decompose_char(
                                 buffer[k], again, 8,
                                 static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT |
                                                                UTF8PROC_CASEFOLD |
                                                                UTF8PROC_IGNORE),
                                 &last_boundclass);
      if (n2 < 0 || n2 > 8) {
        Emit(key, buffer[k], at);
      } else {
        for (utf8proc_ssize_t j = 0; j < n2; ++j) Emit(key, again[j], at);
      }
    }
  }
  key.Finish();
  return out;
}

}  // namespace raw::raven
