// SessionPicker: the list from which `raw resume` (without an id) and
// /resume choose a session: id, agent, last activity, when it expires and
// title, most recently active first. Up/Down/PageUp/PageDown move, Enter opens, Esc
// cancels.
//
// Single-threaded; no I/O: the app loads the sessions and acts on the
// choice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clients/tui/input_decoder.h"
#include "clients/tui/styled_line.h"
#include "raw/v1/session.pb.h"

namespace raw::tui {

class SessionPicker {
 public:
  enum class Outcome { kNone, kChosen, kCancelled };

  // Expiry times are shown relative to `now_unix_ms`.
  void Open(std::vector<v1::Session> sessions, int64_t now_unix_ms);
  void Close() { open_ = false; }
  bool open() const { return open_; }
  const std::vector<v1::Session>& sessions() const { return sessions_; }

  // kChosen: chosen() names the session.
  Outcome HandleKey(const InputEvent& event, int page_rows);
  const v1::Session* chosen() const;

  Lines Render(int width, int rows, const Glyphs& glyphs) const;

 private:
  bool open_ = false;
  std::vector<v1::Session> sessions_;
  int selected_ = 0;
  int64_t now_unix_ms_ = 0;
};

}  // namespace raw::tui
