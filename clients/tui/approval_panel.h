// ApprovalPanel: the prompt for a pending approval request.
//
// Shows the whole batch: each call's tool, state and the reason it asks or
// was decided, every argument in full (every line, long lines wrapped,
// never cut) and, for pending calls, the rules each "allow for this
// session" choice adds. The answers for the pending calls: allow once (y),
// allow for this session with the exact rules (a), with the program
// patterns (p, when a call offers them), deny (n), deny with a message (m,
// which opens a one-line editor for the message). One answer covers the
// whole batch. Left/Right and Enter choose too. A follower (read-only
// client) sees the batch without the answers.
// When the batch does not fit in the rows given, its end is folded behind
// a marker that is always shown ("N more lines (B bytes) - press v to view
// all"); v shows all of it, scrolled with Up/Down, and v again folds it.
// Answering never requires viewing.
//
// Single-threaded; no I/O: HandleKey returns the answer for the app to send.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "clients/tui/input_decoder.h"
#include "clients/tui/input_editor.h"
#include "clients/tui/screen.h"
#include "clients/tui/styled_line.h"
#include "raw/v1/event.pb.h"

namespace raw::tui {

class ApprovalPanel {
 public:
  struct Answer {
    v1::ApprovalDecision decision = v1::APPROVAL_DECISION_DENY;
    std::string message;
    int session_rule = 0;  // with ALLOW_SESSION: which session_rules option
  };

  // Shows `request`; the selection resets when it is a new request.
  void Show(const v1::ApprovalRequested& request);
  void Hide() { request_.reset(); }
  bool visible() const { return request_.has_value(); }
  const std::string& request_id() const;
  bool entering_message() const { return entering_message_; }

  // Keys the panel does not use return nullopt with `handled` false.
  std::optional<Answer> HandleKey(const InputEvent& event, bool* handled);

  struct View {
    Lines lines;
    std::optional<CursorPos> cursor;  // relative to the first line
  };
  View Render(int width, int max_rows, const Glyphs& glyphs, bool read_only) const;

 private:
  struct Option {
    std::string key;
    std::string label;
    v1::ApprovalDecision decision;
    int session_rule;
  };
  // The answers offered for the current request, in order.
  std::vector<Option> Options() const;

  std::optional<v1::ApprovalRequested> request_;
  int selected_ = 0;
  bool entering_message_ = false;
  InputEditor message_;
  bool viewing_all_ = false;  // v: the whole batch, scrolled
  int scroll_ = 0;            // first body line shown while viewing all
};

}  // namespace raw::tui
