#include "common/json_writer.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/json.h"
#include "common/utf8.h"

namespace raw {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// The index of the first byte of text[i, end) that a JSON string cannot
// carry as it is, or that starts a multi-byte UTF-8 sequence (to be
// validated): a control character (below 0x20), '"', '\\' or a byte of
// 0x80 and up; text.size() when there is none. Text is mostly plain ASCII,
// so it is scanned sixteen bytes at a time where SSE2 is there (every
// x86-64 processor) and eight bytes at a time elsewhere.
size_t NextSpecial(std::string_view text, size_t i) {
  const char* p = text.data();
  const size_t n = text.size();
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // A signed comparison: bytes of 0x80 and up are negative, so "below
    // 0x20" takes them in with the control characters.
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmplt_epi8(v, space));
    if (const int mask = _mm_movemask_epi8(special); mask != 0) {
      return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
  }
#else
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, sizeof word);
    // Each test is the classic "has a byte less than n" / "has a zero byte"
    // (exact for the word as a whole), or a high bit.
    const uint64_t quote = word ^ (kOnes * '"');
    const uint64_t backslash = word ^ (kOnes * '\\');
    const uint64_t control = (word - kOnes * 0x20) & ~word;
    if (((control | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | word) &
         kHigh) != 0) {
      break;
    }
  }
#endif
  for (; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return i;
  }
  return n;
}

}  // namespace

// One pass validates the UTF-8 and escapes: the scan stops at every byte
// that needs either.
void AppendJsonString(std::string& out, std::string_view text) {
  const size_t start = out.size();
  out.reserve(start + text.size() + 2);
  out.push_back('"');
  size_t run = 0;  // start of the bytes not yet written
  size_t i = 0;
  // One call of the scan, so that the compiler puts it inline.
  while ((i = NextSpecial(text, i)) < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(text, i);
      if (length == 0) {
        // nlohmann's replacement of ill-formed sequences is what DumpJson
        // does: rare enough to leave to it.
        out.resize(start);
        out += DumpJson(OrderedJson(std::string(text)));
        return;
      }
      i += length;
      continue;
    }
    out.append(text.data() + run, i - run);
    run = ++i;
    switch (c) {
      case '"':
        out.append("\\\"", 2);
        break;
      case '\\':
        out.append("\\\\", 2);
        break;
      case '\b':
        out.append("\\b", 2);
        break;
      case '\f':
        out.append("\\f", 2);
        break;
      case '\n':
        out.append("\\n", 2);
        break;
      case '\r':
        out.append("\\r", 2);
        break;
      case '\t':
        out.append("\\t", 2);
        break;
      default: {
        const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out.append(escape, sizeof escape);
      }
    }
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_element_[depth_]) out_.push_back(',');
  has_element_[depth_] = true;
}

JsonWriter& JsonWriter::Open(char bracket) {
  Separate();
  out_.push_back(bracket);
  has_element_[++depth_] = false;
  return *this;
}

JsonWriter& JsonWriter::Close(char bracket) {
  out_.push_back(bracket);
  --depth_;
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  Separate();
  AppendJsonString(out_, key);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view text) {
  Separate();
  AppendJsonString(out_, text);
  return *this;
}

JsonWriter& JsonWriter::Null() {
  Separate();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  Separate();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  Separate();
  out_.append(json);
  return *this;
}

}  // namespace raw
