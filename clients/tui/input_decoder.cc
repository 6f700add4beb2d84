#include "clients/tui/input_decoder.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace raw::tui {
namespace {

constexpr std::string_view kPasteStart = "\x1b[200~";
constexpr std::string_view kPasteEnd = "\x1b[201~";

InputEvent Make(Key key, bool alt = false) {
  InputEvent e;
  e.key = key;
  e.alt = alt;
  return e;
}

size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xe) return 3;
  if ((lead >> 3) == 0x1e) return 4;
  return 1;
}

}  // namespace

std::vector<InputEvent> InputDecoder::Feed(std::string_view bytes) {
  buffer_.append(bytes);
  std::vector<InputEvent> out;
  for (;;) {
    if (in_paste_) {
      size_t end = buffer_.find(kPasteEnd);
      if (end == std::string::npos) {
        // Keep a possible partial end marker in the buffer.
        size_t keep = std::min(buffer_.size(), kPasteEnd.size() - 1);
        paste_.append(buffer_, 0, buffer_.size() - keep);
        buffer_.erase(0, buffer_.size() - keep);
        return out;
      }
      paste_.append(buffer_, 0, end);
      buffer_.erase(0, end + kPasteEnd.size());
      in_paste_ = false;
      InputEvent e = Make(Key::kPaste);
      e.text = std::move(paste_);
      paste_.clear();
      out.push_back(std::move(e));
      continue;
    }
    if (buffer_.empty()) return out;
    size_t used = ParseOne(out, /*final=*/false);
    if (used == 0) return out;
    buffer_.erase(0, used);
  }
}

std::vector<InputEvent> InputDecoder::Flush() {
  std::vector<InputEvent> out;
  while (!buffer_.empty() && !in_paste_) {
    size_t used = ParseOne(out, /*final=*/true);
    if (used == 0) used = 1;
    buffer_.erase(0, used);
  }
  return out;
}

size_t InputDecoder::ParseOne(std::vector<InputEvent>& out, bool final) {
  const unsigned char c = static_cast<unsigned char>(buffer_[0]);
  if (c == 0x1b) {
    if (buffer_.size() == 1) {
      if (!final) return 0;
      out.push_back(Make(Key::kEscape));
      return 1;
    }
    if (buffer_.compare(0, kPasteStart.size(), kPasteStart) == 0) {
      in_paste_ = true;
      paste_.clear();
      return kPasteStart.size();
    }
    const char next = buffer_[1];
    if (next == '[') return ParseCsi(out, /*alt=*/false, 2);
    if (next == 'O') {
      if (buffer_.size() < 3) return final ? 2 : 0;
      switch (buffer_[2]) {
        case 'A': out.push_back(Make(Key::kUp)); break;
        case 'B': out.push_back(Make(Key::kDown)); break;
        case 'C': out.push_back(Make(Key::kRight)); break;
        case 'D': out.push_back(Make(Key::kLeft)); break;
        case 'H': out.push_back(Make(Key::kHome)); break;
        case 'F': out.push_back(Make(Key::kEnd)); break;
        case 'M': out.push_back(Make(Key::kEnter)); break;
        default: out.push_back(Make(Key::kUnknown)); break;
      }
      return 3;
    }
    if (next == 0x1b) {
      // ESC ESC: an Escape, then decode the second one on its own.
      out.push_back(Make(Key::kEscape));
      return 1;
    }
    // Alt + key.
    std::string rest = buffer_.substr(1);
    std::swap(buffer_, rest);
    std::vector<InputEvent> inner;
    size_t used = ParseOne(inner, final);
    std::swap(buffer_, rest);
    if (used == 0) return 0;
    for (InputEvent& e : inner) {
      if (e.key == Key::kEnter) e.key = Key::kNewline;
      e.alt = true;
      out.push_back(std::move(e));
    }
    return used + 1;
  }
  if (c == '\r') {
    out.push_back(Make(Key::kEnter));
    return 1;
  }
  if (c == '\n') {
    out.push_back(Make(Key::kNewline));
    return 1;
  }
  if (c == '\t') {
    out.push_back(Make(Key::kTab));
    return 1;
  }
  if (c == 0x7f || c == 0x08) {
    out.push_back(Make(Key::kBackspace));
    return 1;
  }
  if (c < 0x20) {
    InputEvent e = Make(Key::kCtrl);
    e.ctrl = static_cast<char>(c == 0 ? ' ' : 'a' + c - 1);
    out.push_back(e);
    return 1;
  }
  size_t len = Utf8Length(c);
  if (buffer_.size() < len) return final ? buffer_.size() : 0;
  InputEvent e = Make(Key::kChar);
  e.text = buffer_.substr(0, len);
  out.push_back(std::move(e));
  return len;
}

size_t InputDecoder::ParseCsi(std::vector<InputEvent>& out, bool alt, size_t start) {
  // Parameters and intermediates up to a final byte in 0x40..0x7e.
  size_t i = start;
  while (i < buffer_.size()) {
    unsigned char b = static_cast<unsigned char>(buffer_[i]);
    if (b >= 0x40 && b <= 0x7e) break;
    ++i;
  }
  if (i >= buffer_.size()) return 0;
  const char final_byte = buffer_[i];
  std::string params = buffer_.substr(start, i - start);
  const size_t used = i + 1;

  if (!params.empty() && params[0] == '<' && (final_byte == 'M' || final_byte == 'm')) {
    // SGR mouse: <button;col;row
    std::vector<std::string> f = absl::StrSplit(params.substr(1), ';');
    int button = 0, col = 0, row = 0;
    if (f.size() == 3 && absl::SimpleAtoi(f[0], &button) && absl::SimpleAtoi(f[1], &col) &&
        absl::SimpleAtoi(f[2], &row)) {
      InputEvent e;
      if ((button & 64) != 0) {
        e.key = (button & 1) != 0 ? Key::kWheelDown : Key::kWheelUp;
      } else if (final_byte == 'M' && (button & 3) == 0 && (button & 32) == 0) {
        e.key = Key::kClick;
      } else {
        return used;  // releases, drags and other buttons are ignored
      }
      e.row = row - 1;
      e.col = col - 1;
      out.push_back(e);
    }
    return used;
  }

  std::vector<std::string> f = absl::StrSplit(params, ';');
  int first = 0, modifier = 1;
  if (!f.empty()) (void)absl::SimpleAtoi(f[0], &first);
  if (f.size() > 1) (void)absl::SimpleAtoi(f[1], &modifier);
  InputEvent e = Make(Key::kUnknown, alt || ((modifier - 1) & 2) != 0);
  e.ctrl_mod = ((modifier - 1) & 4) != 0;
  switch (final_byte) {
    case 'A': e.key = Key::kUp; break;
    case 'B': e.key = Key::kDown; break;
    case 'C': e.key = Key::kRight; break;
    case 'D': e.key = Key::kLeft; break;
    case 'H': e.key = Key::kHome; break;
    case 'F': e.key = Key::kEnd; break;
    case 'Z': e.key = Key::kBackTab; break;
    case '~':
      switch (first) {
        case 1: case 7: e.key = Key::kHome; break;
        case 4: case 8: e.key = Key::kEnd; break;
        case 3: e.key = Key::kDelete; break;
        case 5: e.key = Key::kPageUp; break;
        case 6: e.key = Key::kPageDown; break;
        default: break;
      }
      break;
    default:
      break;
  }
  out.push_back(e);
  return used;
}

}  // namespace raw::tui
