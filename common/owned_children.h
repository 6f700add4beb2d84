// Owned children and orphans.
//
// rawd is a child subreaper (PR_SET_CHILD_SUBREAPER, daemon/main.cc), so
// processes that a tool's command left behind (`sleep 5 &`, a detaching
// `git gc --auto`) are re-parented to it when their parent exits, and
// become its zombies when they end. Two kinds of children therefore exist:
//
//  - owned children: the processes Raw started itself (SpawnInNewSession
//    records every one). Their starter waits for them and needs their exit
//    status; nobody else may reap them.
//  - orphans: everything else. ReapOrphans() (run by OrphanReaper on every
//    SIGCHLD) reaps those that have exited.
//
// A child is recorded as owned while the same lock that ReapOrphans holds is
// held, from before posix_spawn until its pid is recorded, so a child that
// exits at once can never be taken for an orphan. It stays owned until its
// starter reaps it through WaitOwnedChild.
//
// Thread-safety: every function may be called from any thread.
#pragma once

#include <sys/types.h>

#include <string>

#include "absl/functional/function_ref.h"

namespace raw {

// Runs `spawn` (which starts one child and returns its pid, or -1 when it
// started nothing) and records the child as owned and in the child ledger.
// `spawn` gets the ledger's mark for the child (child_ledger::Announce; ""
// when no ledger is open), to put in its environment. Returns spawn's result.
pid_t StartOwnedChild(absl::FunctionRef<pid_t(const std::string& mark)> spawn);

// Blocks until the owned child `pid` exits, reaps it (retrying on EINTR)
// and forgets it. Returns its wait status (0 when waitpid failed).
int WaitOwnedChild(pid_t pid);

// Reaps every exited child of this process that is not owned, without
// blocking. Returns how many it reaped.
int ReapOrphans();

// Whether this process has a child that is not owned, running or not yet
// reaped: for rawd, the subreaper, a background job or a detached process
// that a tool's command left behind.
bool HasOrphans();

}  // namespace raw
