#include "tests/tui/tmux_harness.h"

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tests/support/test_daemon.h"

namespace raw::tui::testing {
namespace {

constexpr char kTmux[] = "/usr/bin/tmux";

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// An exact session name: a bare name could also match another session by
// prefix or pattern.
std::string Target(const std::string& name) { return "=" + name + ":"; }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

bool TmuxHarness::Available() { return access(kTmux, X_OK) == 0; }

TmuxHarness::TmuxHarness() {
  char tmpl[] = "/tmp/rawtui.XXXXXX";
  dir_ = mkdtemp(tmpl);
  socket_ = dir_ + "/tmux.sock";
  config_ = dir_ + "/tmux.conf";
  std::ofstream(config_) << "set -g remain-on-exit on\n"
                            "set -g status off\n"
                            "set -g escape-time 0\n"
                            "set -g history-limit 0\n";
  inotify_fd_ = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
}

TmuxHarness::~TmuxHarness() {
  // Programs end before the server (and before whatever the test tears down
  // next, such as their daemon): SIGTERM, then wait for their exit status.
  for (const auto& [name, wd] : watches_) {
    (void)wd;
    int pid = PanePid(name);
    if (pid > 0 && kill(pid, SIGTERM) == 0) WaitForExit(name, absl::Seconds(10));
  }
  Tmux({"kill-server"});
  if (inotify_fd_ >= 0) close(inotify_fd_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string TmuxHarness::Tmux(const std::vector<std::string>& args, int* exit_code) {
  std::vector<std::string> argv = {kTmux, "-S", socket_, "-f", config_, "-u"};
  argv.insert(argv.end(), args.begin(), args.end());
  e2e::CommandResult result =
      e2e::RunCommand(argv, {{"PATH", "/usr/bin:/bin"}, {"LANG", "C.UTF-8"}, {"HOME", dir_}});
  if (exit_code != nullptr) *exit_code = result.exit_code;
  return result.out;
}

absl::Status TmuxHarness::Start(const std::string& name, const std::vector<std::string>& argv,
                                const std::map<std::string, std::string>& env, int cols, int rows) {
  // A shell runs the program and records its exit status (tmux does not
  // always report the status of a pane's process).
  std::vector<std::string> words = {"env", "-i"};
  for (const auto& [k, v] : env) words.push_back(ShellQuote(absl::StrCat(k, "=", v)));
  for (const auto& a : argv) words.push_back(ShellQuote(a));
  std::string command = absl::StrCat(absl::StrJoin(words, " "), "; echo $? > ",
                                     ShellQuote(StatusPath(name)));
  std::ofstream(LogPath(name)).flush();  // exists before the watch
  int wd = inotify_add_watch(inotify_fd_, LogPath(name).c_str(), IN_MODIFY);
  if (wd < 0) return absl::InternalError("inotify_add_watch failed");
  watches_[name] = wd;
  int code = 0;
  Tmux({"new-session", "-d", "-s", name, "-x", absl::StrCat(cols), "-y", absl::StrCat(rows),
        command},
       &code);
  if (code != 0) return absl::InternalError(absl::StrCat("tmux new-session failed: ", code));
  Tmux({"pipe-pane", "-O", "-t", Target(name), absl::StrCat("cat >> ", ShellQuote(LogPath(name)))}, &code);
  if (code != 0) return absl::InternalError("tmux pipe-pane failed");
  return absl::OkStatus();
}

std::string TmuxHarness::Capture(const std::string& name, bool escapes) {
  std::vector<std::string> args = {"capture-pane", "-p", "-t", Target(name)};
  if (escapes) args.push_back("-e");
  return Tmux(args);
}

bool TmuxHarness::WaitForOutput(absl::Time deadline) {
  // Re-check at least every half second: output may have come before the
  // log was attached.
  absl::Duration left = std::min(deadline - absl::Now(), absl::Milliseconds(500));
  if (left <= absl::ZeroDuration()) return false;
  pollfd fd = {inotify_fd_, POLLIN, 0};
  int n = poll(&fd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
  if (n > 0) {
    char buffer[4096];
    while (read(inotify_fd_, buffer, sizeof buffer) > 0) {
    }
  }
  return absl::Now() < deadline;
}

std::string TmuxHarness::WaitFor(const std::string& name,
                                 const std::function<bool(const std::string&)>& pred,
                                 absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    std::string screen = Capture(name);
    if (pred(screen)) return screen;
    if (!WaitForOutput(deadline)) return Capture(name);
  }
}

bool TmuxHarness::WaitForText(const std::string& name, const std::string& text,
                              absl::Duration timeout) {
  std::string screen = WaitFor(
      name, [&text](const std::string& s) { return s.find(text) != std::string::npos; }, timeout);
  return screen.find(text) != std::string::npos;
}

int TmuxHarness::WaitForExit(const std::string& name, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    std::string state = Tmux({"display-message", "-p", "-t", Target(name), "#{pane_dead}"});
    if (state.rfind("1", 0) == 0) {
      std::string status = ReadAll(StatusPath(name));
      if (!status.empty()) return atoi(status.c_str());
    }
    if (!WaitForOutput(deadline)) return -1;
  }
}

int TmuxHarness::PanePid(const std::string& name) {
  // The pane runs a shell; the program is its child. A dead pane keeps the
  // pid of its shell, which tmux has reaped and the system may have given to
  // another process since: no pid then.
  std::string pane = Tmux({"display-message", "-p", "-t", Target(name), "#{pane_dead} #{pane_pid}"});
  pane = pane.substr(0, pane.find('\n'));
  if (!absl::StartsWith(pane, "0 ")) return 0;
  const std::string shell = pane.substr(2);
  return atoi(ReadAll(absl::StrCat("/proc/", shell, "/task/", shell, "/children")).c_str());
}

void TmuxHarness::SendKeys(const std::string& name, const std::vector<std::string>& keys) {
  std::vector<std::string> args = {"send-keys", "-t", Target(name)};
  args.insert(args.end(), keys.begin(), keys.end());
  Tmux(args);
}

void TmuxHarness::SendText(const std::string& name, const std::string& text) {
  Tmux({"send-keys", "-t", Target(name), "-l", text});
}

void TmuxHarness::Paste(const std::string& name, const std::string& text) {
  // Through a file: a command line could not carry a large text.
  std::string path = dir_ + "/paste.txt";
  std::ofstream(path, std::ios::binary) << text;
  Tmux({"load-buffer", "-b", "rawtest", path});
  Tmux({"paste-buffer", "-p", "-d", "-b", "rawtest", "-t", Target(name)});
}

std::string TmuxHarness::PaneFormat(const std::string& name, const std::string& format) {
  std::string value = Tmux({"display-message", "-p", "-t", Target(name), format});
  return value.substr(0, value.find('\n'));
}

std::string TmuxHarness::WaitForFormat(const std::string& name, const std::string& format,
                                       const std::string& value, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    std::string now = PaneFormat(name, format);
    if (now == value || !WaitForOutput(deadline)) return now;
  }
}

void TmuxHarness::Resize(const std::string& name, int cols, int rows) {
  Tmux({"resize-window", "-t", Target(name), "-x", absl::StrCat(cols), "-y", absl::StrCat(rows)});
}

bool TmuxHarness::WaitForOutputText(const std::string& name, const std::string& text,
                                    absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    if (Output(name).find(text) != std::string::npos) return true;
    if (!WaitForOutput(deadline)) return Output(name).find(text) != std::string::npos;
  }
}

std::string TmuxHarness::Output(const std::string& name) const { return ReadAll(LogPath(name)); }

}  // namespace raw::tui::testing
