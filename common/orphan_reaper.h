// OrphanReaper: a thread that reaps orphans (see owned_children.h) as soon
// as they exit. It waits on a signalfd for SIGCHLD and, on each one, calls
// ReapOrphans(): signals coalesce, so every wake-up reaps every exited
// orphan, not one.
//
// REQUIRES: SIGCHLD is blocked in every thread of the process (rawd blocks
// it in main() before any thread starts), so that it is delivered only
// through the signalfd. Children get a clean signal mask (spawn.h).
// Ownership: one per process; destroying it stops and joins the thread.
#pragma once

#include <memory>
#include <thread>

#include "absl/status/statusor.h"

namespace raw {

class OrphanReaper {
 public:
  static absl::StatusOr<std::unique_ptr<OrphanReaper>> Start();
  ~OrphanReaper();
  OrphanReaper(const OrphanReaper&) = delete;
  OrphanReaper& operator=(const OrphanReaper&) = delete;

 private:
  OrphanReaper(int signal_fd, int stop_fd);
  void Loop();

  const int signal_fd_;
  const int stop_fd_;
  std::thread thread_;
};

}  // namespace raw
