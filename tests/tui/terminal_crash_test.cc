// Terminal's crash handler when the UI thread's stack overflows: the SIGSEGV
// finds no room on that stack, so the handler must run on its own.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include "clients/tui/terminal.h"
#include "gtest/gtest.h"

namespace raw::tui {
namespace {

// Recurses until the stack is gone; the frame's buffer is used so that the
// call is neither inlined away nor turned into a loop.
__attribute__((noinline)) int Overflow(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  frame[sizeof frame - 1] = frame[0];
  return Overflow(depth + 1) + frame[sizeof frame - 1];
}

// Opens a pseudo-terminal as standard input and output (the master stays
// open in this process, unread), then the Terminal on it.
void OpenTerminalOnAPty() {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) _exit(90);
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  if (slave < 0 || dup2(slave, STDIN_FILENO) < 0 || dup2(slave, STDOUT_FILENO) < 0) _exit(91);
  setenv("TERM", "xterm", 1);
  static auto terminal = Terminal::Open(/*plain=*/true, /*no_color=*/true);
  if (!terminal.ok()) {
    std::fprintf(stderr, "%s\n", std::string(terminal.status().message()).c_str());
    _exit(92);
  }
  // A small stack, so that the overflow comes quickly.
  struct rlimit limit = {256 * 1024, 256 * 1024};
  setrlimit(RLIMIT_STACK, &limit);
}

TEST(TerminalCrashTest, AStackOverflowStillRestoresTheTerminal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        OpenTerminalOnAPty();
        Overflow(0);
      },
      ::testing::KilledBySignal(SIGSEGV), "raw: crashed; the terminal was restored");
}

}  // namespace
}  // namespace raw::tui
