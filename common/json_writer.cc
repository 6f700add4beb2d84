#include "common/json_writer.h"

#include <cstdint>
#include <cstring>

#include "common/json.h"
#include "common/utf8.h"

namespace raw {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Whether any of the eight bytes of `word` must be escaped in a JSON string:
// a control character (below 0x20), '"' or '\\'. Exact for the word as a
// whole (each test is the classic "has a byte less than n" / "has a zero
// byte", which never misses and never reports a byte that is not there);
// bytes of multi-byte UTF-8 sequences (0x80 and up) never match.
bool WordNeedsEscape(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  const uint64_t quote = word ^ (kOnes * '"');
  const uint64_t backslash = word ^ (kOnes * '\\');
  const uint64_t control = (word - kOnes * 0x20) & ~word;
  return ((control | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash)) & kHigh) != 0;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  if (ValidUtf8Prefix(text) != text.size()) {
    // nlohmann's replacement of ill-formed sequences is what DumpJson does:
    // rare enough to leave to it.
    out += DumpJson(OrderedJson(std::string(text)));
    return;
  }
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  size_t run = 0;  // start of the bytes not yet written
  for (size_t i = 0; i < text.size();) {
    // Text is mostly bytes that need no escape: pass them eight at a time.
    if (i + 8 <= text.size()) {
      uint64_t word;
      std::memcpy(&word, text.data() + i, sizeof word);
      if (!WordNeedsEscape(word)) {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(text[i]);
    ++i;
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run, i - 1 - run);
    run = i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
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
