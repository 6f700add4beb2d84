// rawd: argv -> DaemonOptions -> Daemon::Run.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/mutex_mode.h"
#include "common/orphan_reaper.h"
#include "common/paths.h"
#include "common/version.h"
#include "daemon/app/daemon.h"
#include "daemon/app/daemon_options.h"
#include "daemon/app/listen_fds.h"

int main(int argc, char** argv) {
  raw::ConfigureMutexDeadlockDetection();
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = raw::app::ParseDaemonOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "rawd: %s\nTry 'rawd --help'.\n",
                 std::string(options.status().message()).c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(raw::app::DaemonUsage().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::printf("rawd %s (protocol %d)\n", raw::kVersion, raw::kProtocolVersion);
    return 0;
  }

  // Before any thread exists: the protocol's variables are removed from the
  // environment (setenv is not thread-safe).
  auto listen_socket = raw::app::TakeListenSocket();
  if (!listen_socket.ok()) {
    std::fprintf(stderr, "rawd: %s\n", std::string(listen_socket.status().message()).c_str());
    return 1;
  }
  if (listen_socket->has_value()) options->listen_fd = **listen_socket;

  // Before any thread exists, so that every thread inherits the mask: the
  // stop signals are then delivered only through the main thread's
  // signalfd. A client that disconnects mid-write must not kill the daemon.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);
  // SIGCHLD reaches only the orphan reaper's signalfd (below).
  sigaddset(&stop_signals, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // Past a file size limit (RLIMIT_FSIZE) a write fails with EFBIG, which
  // the store reports as a full disk, instead of killing the daemon.
  signal(SIGXFSZ, SIG_IGN);
  // Orphaned descendants of tool commands (for example `sleep 300 &` in a
  // bash call) are re-parented to rawd rather than to init, so the bash
  // tool can reap every process of a group it killed. Those that outlive
  // their call are reaped by the OrphanReaper when they exit; the children
  // Raw started itself are owned (common/owned_children.h) and reaped only
  // by their starters.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  auto reaper = raw::OrphanReaper::Start();
  if (!reaper.ok()) {
    std::fprintf(stderr, "rawd: %s\n", std::string(reaper.status().message()).c_str());
    return 1;
  }

  raw::app::Daemon daemon(*options, raw::ProcessEnv());
  return daemon.Run();
}
