#include "clients/tui/terminal.h"

// curses declares a global function raw(), which cannot coexist with the
// namespace raw in one translation unit: it is renamed away here (and not
// called; Terminal sets raw input through termios).
#define raw curses_raw_unused
#include <curses.h>
#undef raw
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <clocale>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"

namespace raw::tui {
namespace {

// Process-wide state for the signal handlers (see the header).
int g_signal_pipe[2] = {-1, -1};
struct termios g_saved_termios;
bool g_have_termios = false;
volatile sig_atomic_t g_modes_on = 0;

// Mouse (button events, SGR encoding), bracketed paste, and their end.
constexpr char kModesOn[] = "\x1b[?1000h\x1b[?1006h\x1b[?2004h";
constexpr char kModesOff[] = "\x1b[?1006l\x1b[?1000l\x1b[?2004l";
// What a crash handler writes: modes off, attributes reset, cursor shown,
// alternate screen left.
constexpr char kCrashRestore[] =
    "\x1b[?1006l\x1b[?1000l\x1b[?2004l\x1b[0m\x1b[?25h\x1b[?1049l\r\n";

constexpr int kForwarded[] = {SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP};
constexpr int kFatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void ForwardSignal(int sig) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(sig);
  if (g_signal_pipe[1] >= 0) (void)!write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

void FatalSignal(int sig) {
  if (g_modes_on) {
    WriteAll(STDOUT_FILENO, kCrashRestore, sizeof kCrashRestore - 1);
    if (g_have_termios) tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_termios);
    static const char kMessage[] = "raw: crashed; the terminal was restored\r\n";
    WriteAll(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void Install(int sig, void (*handler)(int), int flags = 0) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART | flags;
  sigaction(sig, &action, nullptr);
}

// An alternate stack for FatalSignal on the UI thread (the thread that opens
// the terminal and renders), so that a stack overflow, whose SIGSEGV finds no
// room on the overflowed stack, still restores the terminal. Allocated once
// and never freed: the handler may run until the process dies.
void UseAlternateSignalStack() {
  static const size_t kSize = std::max<size_t>(64 * 1024, SIGSTKSZ);
  static void* memory = std::malloc(kSize);
  if (memory == nullptr) return;
  stack_t stack;
  std::memset(&stack, 0, sizeof stack);
  stack.ss_sp = memory;
  stack.ss_size = kSize;
  sigaltstack(&stack, nullptr);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Terminal>> Terminal::Open(bool plain, bool no_color) {
  if (isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1) {
    return absl::FailedPreconditionError(
        "the terminal interface needs a terminal on standard input and output");
  }
  // Wide characters need a UTF-8 locale; fall back to C.UTF-8 when the
  // environment names none.
  std::setlocale(LC_ALL, "");
  const char* codeset = std::setlocale(LC_CTYPE, nullptr);
  if (codeset == nullptr || (std::strstr(codeset, "UTF-8") == nullptr &&
                             std::strstr(codeset, "utf8") == nullptr)) {
    std::setlocale(LC_CTYPE, "C.UTF-8");
  }
  if (g_signal_pipe[0] < 0 && pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  g_have_termios = tcgetattr(STDIN_FILENO, &g_saved_termios) == 0;
  // The escape key is decoded by InputDecoder, not curses.
  set_escdelay(25);
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (screen == nullptr) {
    const char* term = getenv("TERM");
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot use the terminal type '", term == nullptr ? "" : term,
        "' (no terminfo entry?); set TERM, or use 'raw run' for line output"));
  }
  auto terminal = std::unique_ptr<Terminal>(new Terminal());
  terminal->screen_ = screen;
  terminal->open_ = true;
  cbreak();
  noecho();
  nonl();
  // What curses' raw() does on top of cbreak: Ctrl-C, Ctrl-Z, Ctrl-\ and
  // Ctrl-S/Ctrl-Q arrive as keys instead of signals and flow control.
  struct termios modes;
  if (tcgetattr(STDIN_FILENO, &modes) == 0) {
    modes.c_lflag &= ~static_cast<tcflag_t>(ISIG | IEXTEN);
    modes.c_iflag &= ~static_cast<tcflag_t>(IXON | ICRNL | INLCR | IGNCR);
    tcsetattr(STDIN_FILENO, TCSANOW, &modes);
    def_prog_mode();
  }
  intrflush(stdscr, FALSE);
  keypad(stdscr, FALSE);
  // COLORS is known only once start_color ran.
  if (has_colors() && !no_color && !plain) {
    start_color();
    use_default_colors();
    terminal->depth_ = Palette::DepthFor(COLORS, no_color, plain);
  }
  for (int sig : kForwarded) Install(sig, ForwardSignal);
  UseAlternateSignalStack();
  for (int sig : kFatal) Install(sig, FatalSignal, SA_ONSTACK);
  terminal->EnableModes();
  terminal->UpdateSize();
  return terminal;
}

Terminal::~Terminal() { Close(); }

void Terminal::EnableModes() {
  // The first refresh enters the alternate screen (clearing it once, at
  // start-up); the modes go after it.
  wnoutrefresh(stdscr);
  doupdate();
  WriteAll(STDOUT_FILENO, kModesOn, sizeof kModesOn - 1);
  g_modes_on = 1;
}

void Terminal::DisableModes() {
  WriteAll(STDOUT_FILENO, kModesOff, sizeof kModesOff - 1);
  g_modes_on = 0;
}

void Terminal::Close() {
  if (!open_) return;
  open_ = false;
  DisableModes();
  endwin();
  delscreen(static_cast<SCREEN*>(screen_));
  screen_ = nullptr;
  if (g_have_termios) tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_termios);
  for (int sig : kForwarded) signal(sig, SIG_DFL);
  for (int sig : kFatal) signal(sig, SIG_DFL);
}

void Terminal::Suspend() {
  if (!open_) return;
  DisableModes();
  endwin();
  signal(SIGTSTP, SIG_DFL);
  raise(SIGTSTP);  // stops here until SIGCONT
  Install(SIGTSTP, ForwardSignal);
}

void Terminal::Resume() {
  if (!open_) return;
  reset_prog_mode();
  EnableModes();
  UpdateSize();
}

int Terminal::signal_fd() const { return g_signal_pipe[0]; }

int Terminal::ReadSignal() {
  unsigned char byte = 0;
  ssize_t n = read(g_signal_pipe[0], &byte, 1);
  return n == 1 ? byte : 0;
}

Terminal::Size Terminal::UpdateSize() {
  Size size;
  struct winsize ws;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
    size.rows = ws.ws_row;
    size.cols = ws.ws_col;
  } else {
    size.rows = LINES;
    size.cols = COLS;
  }
  if (size.rows != LINES || size.cols != COLS) resizeterm(size.rows, size.cols);
  return size;
}

}  // namespace raw::tui
