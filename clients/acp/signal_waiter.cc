#include "clients/acp/signal_waiter.h"

#include <pthread.h>

#include <utility>

namespace raw::acp {

sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

SignalWaiter::SignalWaiter(sigset_t signals, std::function<void(int count)> on_signal)
    : thread_([this, signals, on_signal = std::move(on_signal)] {
        int count = 0;
        for (;;) {
          int sig = 0;
          if (sigwait(&signals, &sig) != 0) continue;
          if (stopping_.load()) return;
          on_signal(++count);
        }
      }) {}

SignalWaiter::~SignalWaiter() {
  stopping_.store(true);
  // Wakes the sigwait with a signal of the set, aimed at the waiter alone
  // (blocked there, so it is taken by sigwait, never delivered).
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
}

}  // namespace raw::acp
