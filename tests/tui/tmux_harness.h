// TmuxHarness: drives terminal programs in a private tmux server, for the
// end-to-end tests of the terminal client.
//
// Each program runs in its own tmux session on a socket in a temporary
// directory (never the user's server), with exactly the environment given,
// at a fixed size. What it shows is read with capture-pane; everything it
// writes is also appended to a log file (pipe-pane), whose growth is what a
// wait blocks on (inotify): WaitForText re-captures the pane each time the
// program produced output, until the text appears or the deadline passes.
// The destructor kills the server.
//
// Single-threaded.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace raw::tui::testing {

class TmuxHarness {
 public:
  TmuxHarness();
  ~TmuxHarness();
  TmuxHarness(const TmuxHarness&) = delete;
  TmuxHarness& operator=(const TmuxHarness&) = delete;

  // True when tmux can be run here.
  static bool Available();

  absl::Status Start(const std::string& name, const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env, int cols, int rows);

  // The pane as text (trailing blanks trimmed); with escapes, as
  // capture-pane -e gives it (SGR sequences for colours and attributes).
  std::string Capture(const std::string& name, bool escapes = false);
  // Waits until `pred` holds for the captured pane; returns the last capture
  // (check with pred again) when the deadline passes.
  std::string WaitFor(const std::string& name, const std::function<bool(const std::string&)>& pred,
                      absl::Duration timeout = absl::Seconds(20));
  // Waits for `text` in the pane; true when it appeared.
  bool WaitForText(const std::string& name, const std::string& text,
                   absl::Duration timeout = absl::Seconds(20));
  // Waits until the program has exited (remain-on-exit keeps the pane);
  // returns its exit status (128 + N when signal N killed it), or -1 on
  // timeout.
  int WaitForExit(const std::string& name, absl::Duration timeout = absl::Seconds(20));

  // The pid of the program (the child of the pane's shell), or 0 when the pane
  // is dead or runs none yet: never pass it to kill() unchecked.
  int PanePid(const std::string& name);
  // A tmux format evaluated for the pane, such as "#{alternate_on}" (1 while
  // the program is on the alternate screen) or "#{mouse_any_flag}".
  std::string PaneFormat(const std::string& name, const std::string& format);
  // Waits until PaneFormat gives `value`; returns the last value.
  std::string WaitForFormat(const std::string& name, const std::string& format,
                            const std::string& value, absl::Duration timeout = absl::Seconds(20));

  // tmux key names ("Enter", "C-c", "Escape", "PPage") and literal text.
  void SendKeys(const std::string& name, const std::vector<std::string>& keys);
  void SendText(const std::string& name, const std::string& text);
  // Pastes `text` as a terminal does: inside bracketed-paste markers when
  // the program turned that mode on.
  void Paste(const std::string& name, const std::string& text);
  void Resize(const std::string& name, int cols, int rows);

  // Waits until the program's output (Output) contains `text`.
  bool WaitForOutputText(const std::string& name, const std::string& text,
                         absl::Duration timeout = absl::Seconds(20));
  // Everything the program wrote to the terminal since Start (from the
  // moment tmux attached the log).
  std::string Output(const std::string& name) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string Tmux(const std::vector<std::string>& args, int* exit_code = nullptr);
  std::string LogPath(const std::string& name) const { return dir_ + "/" + name + ".out"; }
  std::string StatusPath(const std::string& name) const { return dir_ + "/" + name + ".status"; }
  // Blocks until a log file grows or `deadline`; returns false at the deadline.
  bool WaitForOutput(absl::Time deadline);

  std::string dir_;
  std::string socket_;
  std::string config_;
  int inotify_fd_ = -1;
  std::map<std::string, int> watches_;
};

}  // namespace raw::tui::testing
