// child_peak PROGRAM [ARG...]: runs PROGRAM with the same standard streams
// and environment, waits for it, prints "child_peak_kb=N" (its peak resident
// memory, from wait4) as the last line of standard error and exits with its
// exit code (128 + the signal if a signal ended it).
//
// Why: a child spawned by a multi-threaded process (a benchmark harness with
// its fake servers' threads) reports from wait4 a peak that includes the
// harness's own resident memory at the moment of the spawn, since the child
// starts in the harness's address space until it calls exec. Spawned from
// this small single-threaded program, the figure is the child's own.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: child_peak PROGRAM [ARG...]\n");
    return 2;
  }
  pid_t pid = -1;
  if (int rc = posix_spawnp(&pid, argv[1], nullptr, nullptr, argv + 1, environ); rc != 0) {
    std::fprintf(stderr, "child_peak: cannot run %s: %s\n", argv[1], std::strerror(rc));
    return 127;
  }
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid) {
    std::fprintf(stderr, "child_peak: wait4: %s\n", std::strerror(errno));
    return 127;
  }
  std::fprintf(stderr, "child_peak_kb=%ld\n", usage.ru_maxrss);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
