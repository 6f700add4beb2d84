// The child ledger: a file that lists the process groups rawd started and has
// not yet waited for, so that a rawd started after a crash (SIGKILL, the OOM
// killer, a power cut of the process) can end the groups its predecessor left
// running: a tool's command cut short by the crash, a hook, an MCP server.
// A live daemon ends such a group when the call is interrupted; the ledger
// lets the next daemon do what the dead one could not.
//
// Each child Raw starts (SpawnInNewSession) leads its own session and process
// group, so its pid names the group. The file holds the boot id and one
// "+PID START N" line per started child (START: the leader's start time, in
// clock ticks since boot, from /proc/PID/stat; N: see below) and "-PID" once
// it is reaped.
//
// A recorded group is ended at Open only when it is provably the one rawd
// started: the ledger is from this boot; and either the leader still runs
// with the recorded start time, or the leader is gone, in which case any
// process still in the group keeps the pid from being reused by the kernel,
// so a group with that id can only be the recorded one.
//
// A crash can also come between a child's start and its record. So before
// each start the ledger gets a "?N" line (N: a number, new for each child of
// the instance), the record reads "+PID START N", and the child carries
// RAW_DAEMON_CHILD=<instance>.<N> in its environment, the instance being a
// random id of the ledger (in its header). Open also ends the group of every
// session leader whose environment names the previous instance and an N that
// was announced and never recorded. Every descendant inherits the variable,
// and one that put itself in a session of its own (`setsid server &`, a tmux
// server) is also a session leader, but it carries a recorded N and is left
// alone: rawd never ends a process a child detached.
//
// Close writes "clean" when no started child is left unreaped; Open then has
// nothing to end and scans nothing.
//
// Thread-safety: every function may be called from any thread. Before Open
// (and in programs that never call it) and after Close, Announce returns no
// mark and Record and Forget do nothing.
#pragma once

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace raw::child_ledger {

// Opens the ledger at `path` (creating it, mode 0600), sends SIGKILL to every
// group the previous process recorded and did not reap, and starts a fresh
// ledger. Returns how many groups it ended. REQUIRES: the caller holds the
// lock that makes it the only process using `path` (rawd's state lock).
absl::StatusOr<int> Open(const std::string& path);

// Marks the clean end of this ledger: writes "clean" when every child it
// recorded has been forgotten and none is being started, so that the next
// Open ends nothing. Otherwise leaves the ledger as it is, and the next Open
// ends the groups still listed, as after a crash. Returns whether it wrote
// "clean". Afterwards Announce, Record and Forget do nothing.
bool Close();

// Sends SIGKILL to the group of every child recorded and not yet forgotten,
// for a stop cut short by its deadline, which ends them itself rather than
// leave them running until the next start. Changes nothing in the ledger, so
// the next Open still ends what survived. Does nothing when the ledger's lock
// is held (by a thread that may be the one stuck, on a hung disk say): the
// next Open ends the groups then. Returns how many groups it signalled.
int EndLiveGroups();

// "RAW_DAEMON_CHILD=<instance>" while a ledger is open, "" before: the
// prefix of every child's mark.
std::string ChildMark();

// A child about to be started: `mark` ("RAW_DAEMON_CHILD=<instance>.<N>",
// or "" when no ledger is open) is the entry for its environment, `nonce` the
// N that Record or Withdraw takes.
struct Announced {
  std::string mark;
  unsigned long long nonce = 0;
};

// Writes "?N" for a new N before the child starts. The caller (the owned
// children registry) then calls exactly one of Record, once the child
// started, or Withdraw, when nothing started.
Announced Announce();
void Withdraw(unsigned long long nonce);

// Records a started child (called with the child unreaped, so /proc/PID
// still exists) and forgets it once reaped.
void Record(pid_t pid, unsigned long long nonce);
void Forget(pid_t pid);

// The start time of `pid` in clock ticks since boot (field 22 of
// /proc/PID/stat), or -1 when it cannot be read.
long long ProcessStartTime(pid_t pid);

}  // namespace raw::child_ledger
