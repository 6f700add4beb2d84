// InputDecoder: terminal input bytes to key, paste and mouse events.
//
// Understands UTF-8 text, control keys, the usual CSI and SS3 sequences of
// xterm-like terminals (arrows, Home/End, PageUp/PageDown, Delete, with
// modifiers), Alt+key as ESC followed by the key (Alt-Enter: ESC CR),
// bracketed paste (ESC[200~ ... ESC[201~, delivered as one event however
// many reads it spans) and SGR mouse reports (wheel and clicks).
//
// A lone ESC is ambiguous until more bytes arrive or a short time passes:
// Feed keeps it pending, and the caller calls Flush() once its input has
// been quiet for kEscapeTimeoutMs, which turns it into the Escape key.
//
// Single-threaded; no I/O.
#pragma once

#include <string>
#include <vector>

namespace raw::tui {

enum class Key {
  kChar,  // `text` holds one grapheme's worth of UTF-8 (or a code point)
  kEnter,
  kNewline,  // Ctrl-J, Alt-Enter
  kTab,
  kBackTab,
  kBackspace,
  kDelete,
  kEscape,
  kUp,
  kDown,
  kLeft,
  kRight,
  kHome,
  kEnd,
  kPageUp,
  kPageDown,
  kCtrl,   // Ctrl + letter: `ctrl` holds the lower-case letter
  kPaste,  // `text` holds the pasted text
  kWheelUp,
  kWheelDown,
  kClick,  // `row`, `col` (0-based)
  kUnknown,
};

struct InputEvent {
  Key key = Key::kUnknown;
  std::string text;
  char ctrl = 0;
  bool alt = false;
  bool ctrl_mod = false;  // Ctrl with an arrow key
  int row = 0;
  int col = 0;
};

class InputDecoder {
 public:
  static constexpr int kEscapeTimeoutMs = 30;

  // Decodes what can be decoded; incomplete sequences wait for more bytes.
  std::vector<InputEvent> Feed(std::string_view bytes);
  // Resolves a pending lone ESC (and any unfinished sequence) after the
  // input went quiet.
  std::vector<InputEvent> Flush();
  // True when bytes are held back waiting for the rest of a sequence.
  bool pending() const { return !buffer_.empty() && !in_paste_; }

 private:
  // Parses one event at the start of buffer_; returns the bytes consumed, 0
  // when the buffer holds an incomplete sequence.
  size_t ParseOne(std::vector<InputEvent>& out, bool final);
  size_t ParseCsi(std::vector<InputEvent>& out, bool alt, size_t start);

  std::string buffer_;
  bool in_paste_ = false;
  std::string paste_;
};

}  // namespace raw::tui
