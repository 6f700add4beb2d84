#include "clients/tui/app.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "clients/present/text.h"
#include "clients/tui/footer.h"
#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

constexpr int kMaxEditorRows = 10;
constexpr int kMaxPopupRows = 9;

int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

}  // namespace

TuiApp::TuiApp(TuiOptions options, Terminal& terminal)
    : options_(std::move(options)),
      terminal_(terminal),
      glyphs_(options_.plain ? Glyphs::Ascii() : Glyphs::Unicode()),
      palette_(terminal.depth()),
      canvas_(palette_),
      screen_(canvas_),
      controller_(
          {options_.connect,
           {options_.client_name, "raw", options_.client_pid, /*interrupt_on_release=*/false,
            /*wait_for_release=*/true},
           options_.handover},
          [this](std::function<void()> task) { ui_.Post(std::move(task)); }, *this),
      view_(glyphs_) {
  approval_.set_guard(options_.approval_guard);
}

// The controller (declared after the queue) ends its streams and releases
// the lease before the queue goes.
TuiApp::~TuiApp() = default;

TuiExit TuiApp::Run() {
  Terminal::Size size = terminal_.UpdateSize();
  screen_.Resize(size.rows, size.cols);
  controller_.Start();
  Draw();
  while (!quit_) {
    pollfd fds[3] = {{terminal_.input_fd(), POLLIN, 0},
                     {ui_.wake_fd(), POLLIN, 0},
                     {terminal_.signal_fd(), POLLIN, 0}};
    int n = poll(fds, 3, NextTimeoutMs());
    if (n < 0 && errno != EINTR) break;
    if (n > 0) {
      if (fds[2].revents & POLLIN) {
        while (int sig = terminal_.ReadSignal()) HandleSignal(sig);
      }
      if (!quit_ && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) ReadInput();
      if (!quit_ && (fds[1].revents & POLLIN)) ui_.RunPending();
    }
    OnTick();
    if (!quit_) Draw();
  }
  ui_.Close();
  return exit_;
}

void TuiApp::HandleSignal(int sig) {
  if (sig == SIGWINCH) {
    Terminal::Size size = terminal_.UpdateSize();
    screen_.Resize(size.rows, size.cols);
    return;
  }
  if (sig == SIGTSTP) {
    SuspendToShell();
    return;
  }
  // SIGTERM, SIGHUP, SIGINT, SIGQUIT: leave cleanly.
  quit_ = true;
  exit_.signal = sig;
}

void TuiApp::SuspendToShell() {
  terminal_.Suspend();  // returns once continued (`fg`)
  terminal_.Resume();
  // The size may have changed meanwhile; every row is drawn again.
  Terminal::Size size = terminal_.UpdateSize();
  screen_.Resize(size.rows, size.cols);
}

void TuiApp::ReadInput() {
  char buffer[8192];
  ssize_t n = read(terminal_.input_fd(), buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    // The terminal went away.
    quit_ = true;
    exit_.status = absl::UnavailableError("the terminal closed");
    return;
  }
  for (const InputEvent& event : decoder_.Feed(std::string_view(buffer, static_cast<size_t>(n)))) {
    HandleInput(event);
    if (quit_) return;
  }
  esc_deadline_.reset();
  if (decoder_.pending()) {
    esc_deadline_ = absl::Now() + absl::Milliseconds(InputDecoder::kEscapeTimeoutMs);
  }
}

int TuiApp::NextTimeoutMs() const {
  absl::Time now = absl::Now();
  std::optional<absl::Time> next;
  auto consider = [&next](absl::Time t) {
    if (!next || t < *next) next = t;
  };
  if (esc_deadline_) consider(*esc_deadline_);
  // The frame that makes the approval's answers live.
  if (std::optional<absl::Time> guard = approval_.guard_end()) consider(*guard);
  if (!status_.empty()) consider(status_until_);
  if (std::optional<absl::Time> session = controller_.NextDeadline()) consider(*session);
  // A handover countdown is shown in whole seconds.
  const client::HandoverGate& gate = controller_.lease().gate();
  if (gate.phase() == client::HandoverGate::Phase::kCountdown) {
    consider(gate.release_at() - absl::Seconds(gate.SecondsLeft(now) - 1));
  }
  if (Busy() || transcript_.HasRunningTools()) {
    // The next whole second, for the elapsed-time displays.
    int64_t ms = NowMs();
    consider(absl::FromUnixMillis((ms / 1000 + 1) * 1000));
  }
  if (!next) return -1;
  return static_cast<int>(std::clamp<int64_t>(absl::ToInt64Milliseconds(*next - now) + 1, 0, 60000));
}

void TuiApp::OnTick() {
  absl::Time now = absl::Now();
  if (esc_deadline_ && now >= *esc_deadline_) {
    esc_deadline_.reset();
    for (const InputEvent& event : decoder_.Flush()) HandleInput(event);
  }
  if (!status_.empty() && now >= status_until_) status_.clear();
  controller_.Tick(now);
  if (ctrl_c_at_ && now - *ctrl_c_at_ > absl::Seconds(3)) ctrl_c_at_.reset();
}

void TuiApp::SetStatus(const std::string& text, absl::Duration for_how_long) {
  status_ = text;
  status_until_ = absl::Now() + for_how_long;
}

StyledLine TuiApp::StatusLine(int width) const {
  std::string text;
  Role role = Role::kDim;
  std::string handover = HandoverStatus(absl::Now());
  if (!status_.empty()) {
    text = status_;
    role = Role::kWarning;
  } else if (!handover.empty()) {
    text = handover;
    role = Role::kWaiting;
  } else if (!controller_.connected() && controller_.reconnecting()) {
    text = controller_.reconnect_at()
               ? absl::StrCat("Daemon unreachable; retrying (attempt ",
                              controller_.reconnect_attempts() + 1, ")")
               : "Reconnecting to the daemon" + glyphs_.ellipsis;
    role = Role::kError;
  } else if (!controller_.connected()) {
    text = "Connecting to the daemon" + glyphs_.ellipsis;
  } else if (interrupting_ &&
             (controller_.activity().compacting() || controller_.activity().turn_running())) {
    // Until the turn or compaction ends, however long that takes.
    text = "Interrupting" + glyphs_.ellipsis;
    role = Role::kWarning;
  } else if (controller_.activity().compacting()) {
    // Only the writer can interrupt; a follower is told whose it is below.
    text = absl::StrCat("Compacting the context", glyphs_.ellipsis,
                        controller_.can_write() ? "  Esc to interrupt" : "  (read-only)");
    role = Role::kRunning;
  } else if (controller_.activity().turn_running()) {
    int64_t elapsed = turn_started_ms_ > 0 ? std::max<int64_t>(0, NowMs() - turn_started_ms_) : 0;
    text =
        absl::StrCat(approval_.visible() ? "Waiting for approval" : "Working",
                     elapsed >= 1000 ? " " + present::FormatDurationMs(elapsed / 1000 * 1000) : "",
                     controller_.can_write() ? "  Esc to interrupt" : "  (read-only)");
    role = approval_.visible() ? Role::kWaiting : Role::kRunning;
  } else if (Following()) {
    text = absl::StrCat("Read-only: ", HolderName(),
                        " holds this session. Ctrl-T asks for it");
    role = Role::kWarning;
  }
  if (view_.rows_below() > 0) {
    std::string more = absl::StrCat(view_.rows_below(), " more lines below (PgDn, Ctrl-End)");
    text = text.empty() ? more : absl::StrCat(text, "  ", more);
  } else if (controller_.history_loading()) {
    text = text.empty() ? "Loading older history" + glyphs_.ellipsis : text;
  }
  StyledLine line;
  line.Add(glyphs_.rule + glyphs_.rule, Style{Role::kBorder});
  if (!text.empty()) {
    line.Add(" ");
    // One row, whatever a daemon's message or a client's name holds.
    line.Add(TruncateToWidth(SanitizeLine(text), std::max(4, width - 6), glyphs_.ellipsis),
             Style{role});
    line.Add(" ");
  }
  int rest = width - line.Width();
  std::string fill;
  for (int i = 0; i < rest; ++i) fill += glyphs_.rule;
  line.Add(fill, Style{Role::kBorder});
  return line;
}

void TuiApp::Draw() {
  const int rows = screen_.rows();
  const int cols = screen_.cols();
  if (rows <= 0 || cols <= 0) return;
  const v1::Session& session = controller_.session();
  FooterState footer;
  footer.agent = SanitizeLine(session.agent());
  footer.model = SanitizeLine(session.model_id().empty() ? session.model() : session.model_id());
  footer.session_id = SanitizeLine(session.id());
  footer.connected = controller_.connected() || !controller_.reconnecting();
  client::SessionLease::State lease = controller_.lease().state();
  footer.turn_state = session_gone_                           ? "deleted"
                      : controller_.activity().compacting()   ? "compacting"
                      : controller_.activity().turn_running() ? "working"
                      : session.id().empty()                  ? ""
                      : (lease == client::SessionLease::State::kNone ||
                         lease == client::SessionLease::State::kAcquiring)
                          ? "opening"
                          : "idle";
  footer.read_only = Following();
  if (session.has_context()) footer.context = session.context();
  footer.usage = session.usage();
  footer.requests = session.requests();
  footer.cache_read_ratio = controller_.cache_read_ratio();
  StyledLine footer_line = RenderFooter(footer, cols, glyphs_);
  const bool covered = picker_.open() || agent_picker_.open();
  if (approval_.visible()) approval_.BeforeFrame(absl::Now(), !covered && !Following());

  Lines frame;
  std::optional<CursorPos> cursor;
  if (covered) {
    frame = picker_.open() ? picker_.Render(cols, rows - 1, glyphs_)
                           : agent_picker_.Render(cols, rows - 1, glyphs_);
    frame.resize(static_cast<size_t>(rows - 1));
    frame.push_back(std::move(footer_line));
    row_cells_.clear();
    screen_.Present(frame, std::nullopt);
    return;
  }

  // The bottom: the approval panel or the editor.
  Lines bottom;
  int bottom_cursor_row = -1;
  int bottom_cursor_col = 0;
  bool read_only = Following();
  if (approval_.visible()) {
    ApprovalPanel::View panel = approval_.Render(cols, std::max(4, rows / 2), glyphs_, read_only);
    bottom = std::move(panel.lines);
    if (panel.cursor) {
      bottom_cursor_row = panel.cursor->row;
      bottom_cursor_col = panel.cursor->col;
    }
  } else {
    StyledLine prompt(glyphs_.prompt + " ", Style{Role::kAccent, kAttrBold});
    int max_rows = std::clamp(rows / 3, 1, kMaxEditorRows);
    InputEditor::View edit = editor_.Render(cols, prompt, max_rows);
    if (editor_.empty()) {
      std::string hint = read_only ? "Read-only: Ctrl-T asks for this session"
                                   : "Type a message; Enter sends, Ctrl-J adds a line, /help";
      edit.lines[0].Add(TruncateToWidth(hint, std::max(0, cols - prompt.Width()), glyphs_.ellipsis),
                        Style{Role::kDim});
    }
    bottom = std::move(edit.lines);
    bottom_cursor_row = edit.cursor_row;
    bottom_cursor_col = edit.cursor_col;
  }

  // Completion popup for a slash command (or /agent's argument) being typed.
  const std::string& text = editor_.text();
  Lines popup = approval_.visible() ? Lines() : AgentPopup(text);
  if (!approval_.visible() && !text.empty() && text[0] == '/' &&
      text.find_first_of(" \n") == std::string::npos) {
    for (const CommandInfo* info : MatchCommands(text)) {
      StyledLine line("  ");
      line.Add(info->name, Style{Role::kAccent, kAttrBold});
      if (*info->args) line.Add(std::string(" ") + info->args, Style{Role::kAccent});
      line.Add("  " + std::string(info->help), Style{Role::kDim});
      popup.push_back(std::move(line));
      if (static_cast<int>(popup.size()) == kMaxPopupRows) break;
    }
  }

  transcript_rows_ = std::max(0, rows - 2 - static_cast<int>(bottom.size()));
  TranscriptView::Frame view = view_.Compose(transcript_, cols, transcript_rows_, NowMs());
  frame = std::move(view.rows);
  row_cells_ = std::move(view.cell_ids);
  frame.resize(static_cast<size_t>(transcript_rows_));
  row_cells_.resize(static_cast<size_t>(transcript_rows_), 0);
  // The popup covers the last transcript rows.
  int popup_rows = std::min<int>(static_cast<int>(popup.size()), transcript_rows_);
  for (int i = 0; i < popup_rows; ++i) {
    frame[static_cast<size_t>(transcript_rows_ - popup_rows + i)] =
        popup[popup.size() - static_cast<size_t>(popup_rows) + static_cast<size_t>(i)];
  }
  frame.push_back(StatusLine(cols));
  int bottom_top = static_cast<int>(frame.size());
  for (auto& line : bottom) frame.push_back(std::move(line));
  frame.push_back(std::move(footer_line));
  if (bottom_cursor_row >= 0 && controller_.connected()) {
    cursor = CursorPos{bottom_top + bottom_cursor_row, std::min(bottom_cursor_col, cols - 1)};
  }
  screen_.Present(frame, cursor);

  if (view_.near_top()) controller_.LoadOlderHistory();
}

}  // namespace raw::tui
