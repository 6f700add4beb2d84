// Terminal: the process's terminal in full-screen mode, and its restoration.
//
// Open() saves the terminal modes, starts curses on stdin/stdout (alternate
// screen, raw input, no echo), turns on bracketed paste and mouse reports
// (wheel and clicks, SGR encoding), and installs signal handlers:
//  - SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT and SIGTSTP only write the
//    signal number to a pipe (signal_fd()) that the app's poll loop reads,
//    so resizing, termination and suspension are handled on the UI thread;
//  - SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT restore the terminal from
//    inside the handler (async-signal-safe writes and tcsetattr only) and
//    then die with the original signal, so a crash never leaves the user's
//    terminal raw. They run on an alternate signal stack of the thread that
//    called Open (the UI thread), so a stack overflow there is covered too.
// Close() (also run by the destructor) turns the modes off, ends curses and
// restores the saved modes. Suspend() gives the terminal back to the shell
// as it was before Open (normal screen, modes off) and stops the process
// until it is continued (`fg`); Resume() takes the terminal again. Together
// they are Ctrl-Z.
//
// One Terminal per process at a time (signal handlers are process-wide).
// Used on the UI thread only.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "clients/tui/palette.h"

namespace raw::tui {

class Terminal {
 public:
  struct Size {
    int rows = 24;
    int cols = 80;
  };

  // `plain` and `no_color` choose the colour depth (see Palette).
  static absl::StatusOr<std::unique_ptr<Terminal>> Open(bool plain, bool no_color);
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  void Close();
  void Suspend();
  void Resume();

  int input_fd() const { return 0; }
  // Readable when a signal arrived; ReadSignal() returns its number.
  int signal_fd() const;
  int ReadSignal();
  // Asks the kernel for the size and tells curses about it.
  Size UpdateSize();
  ColorDepth depth() const { return depth_; }

 private:
  Terminal() = default;
  void EnableModes();
  void DisableModes();

  bool open_ = false;
  ColorDepth depth_ = ColorDepth::kNone;
  void* screen_ = nullptr;  // SCREEN*
};

}  // namespace raw::tui
