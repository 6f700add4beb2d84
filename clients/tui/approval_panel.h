// ApprovalPanel: the prompt for a pending approval request.
//
// Shows the whole batch: each call's tool, state and the reason it asks or
// was decided, every argument in full (every line, long lines wrapped,
// never cut) and, for pending calls, the rules each "allow for this
// session" choice adds. A row that continues a wrapped one starts with the
// continuation glyph (↪), which no row of its own has, and long runs of
// blanks show as markers ("⟨37 spaces⟩"): padding cannot make the rest of
// a value read as an argument of its own. The answers for the pending calls: allow once (y),
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
// Keys answer only once the answers have been on screen for kGuard with no
// key typed meanwhile: a key the user typed for the message box just as
// the panel appeared (already buffered, or typed within the guard) never
// answers a request they have not read. Until then the answers' row says
// so; text and pastes typed meanwhile are left to the app (which keeps them
// in the message box) and any other key is dropped. The guard starts again
// whenever the answers are shown anew: a new request, or after a frame
// without them (a follower's, a picker over the screen), and at every
// paste, even once the answers are live (unless a message for the model is
// being typed, which a paste belongs to): answers go live only on a frame
// drawn after the guard, so an Enter that came in the same read as a paste
// never answers. Time is passed in, so the guard is measured on the
// caller's clock.
//
// Single-threaded; no I/O: HandleKey returns the answer for the app to send.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
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

  // How long the answers are shown before keys answer, and how long after
  // the last key typed meanwhile, unless set_guard() says otherwise.
  static constexpr absl::Duration kGuard = absl::Milliseconds(500);
  void set_guard(absl::Duration guard) { guard_ = guard; }

  // Shows `request`; the selection and the guard reset when it is a new
  // request.
  void Show(const v1::ApprovalRequested& request);
  void Hide() { request_.reset(); }
  bool visible() const { return request_.has_value(); }
  const std::string& request_id() const;
  bool entering_message() const { return entering_message_; }

  // Called before rendering each frame that shows the panel, at `now`;
  // `with_answers` false when the frame does not show its answers (a
  // follower's) or hides the panel. The first frame with answers starts the
  // guard; the first at or after its end makes keys answer, so a key never
  // answers while the screen still shows the guard's row.
  void BeforeFrame(absl::Time now, bool with_answers);
  // True until keys answer.
  bool guarded() const { return !live_; }
  // When a frame must be drawn for keys to answer; nullopt when they do, or
  // when no frame has shown the answers yet.
  std::optional<absl::Time> guard_end() const;

  // Keys the panel does not use return nullopt with `handled` false; so do
  // text and pastes while guarded (see above), which also restarts the
  // guard from `now`, as does every other key it drops then, and a paste
  // on live answers (guarded from then on).
  std::optional<Answer> HandleKey(const InputEvent& event, absl::Time now, bool* handled);

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
  // The last first line Render could show (scrolling down stops there, so
  // that scrolling up moves at once). Set by Render.
  mutable int max_scroll_ = 0;
  // The guard: a frame has shown the answers since `shown_` last reset;
  // keys answer (`live_`) once a frame is drawn at or after `guard_until_`.
  bool shown_ = false;
  bool live_ = false;
  absl::Time guard_until_;
  absl::Duration guard_ = kGuard;
};

}  // namespace raw::tui
