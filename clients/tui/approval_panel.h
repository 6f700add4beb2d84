// ApprovalPanel: the prompt for a pending approval request.
//
// Shows the whole batch (each call's tool, arguments, state and the reason
// it asks or was decided) and four answers for the pending calls: allow
// once (y), allow for this session (a), deny (n), deny with a message (m,
// which opens a one-line editor for the message). One answer covers the
// whole batch. Left/Right and Enter choose too. A follower (read-only
// client) sees the batch without the answers.
//
// Single-threaded; no I/O: HandleKey returns the answer for the app to send.
#pragma once

#include <optional>
#include <string>

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
  std::optional<v1::ApprovalRequested> request_;
  int selected_ = 0;
  bool entering_message_ = false;
  InputEditor message_;
};

}  // namespace raw::tui
