// The child ledger: a file that lists the process groups rawd started and has
// not yet waited for, so that a rawd started after a crash (SIGKILL, the OOM
// killer, a power cut of the process) can end the groups its predecessor left
// running: a tool's command cut short by the crash, a hook, an MCP server.
// A live daemon ends such a group when the call is interrupted; the ledger
// lets the next daemon do what the dead one could not.
//
// Each child Raw starts (SpawnInNewSession) leads its own session and process
// group, so its pid names the group. The file holds the boot id and one
// "+PID START" line per started child (START: the leader's start time, in
// clock ticks since boot, from /proc/PID/stat) and "-PID" once it is reaped.
//
// A recorded group is ended at Open only when it is provably the one rawd
// started: the ledger is from this boot; and either the leader still runs
// with the recorded start time, or the leader is gone, in which case any
// process still in the group keeps the pid from being reused by the kernel,
// so a group with that id can only be the recorded one.
//
// A crash can also come between a child's start and its record. So every
// child also carries RAW_DAEMON_CHILD=<instance> in its environment, the
// instance being a random id of the ledger (in its header), and Open also
// ends the group of every session leader (a child rawd started itself, not
// one of that child's own children) whose environment names the previous
// instance.
//
// Thread-safety: every function may be called from any thread. Before Open
// (and in programs that never call it) Record and Forget do nothing.
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

// "RAW_DAEMON_CHILD=<instance>" while a ledger is open, "" before: the
// entry SpawnInNewSession adds to every child's environment.
std::string ChildMark();

// Records a started child (called with the child unreaped, so /proc/PID
// still exists) and forgets it once reaped.
void Record(pid_t pid);
void Forget(pid_t pid);

// The start time of `pid` in clock ticks since boot (field 22 of
// /proc/PID/stat), or -1 when it cannot be read.
long long ProcessStartTime(pid_t pid);

}  // namespace raw::child_ledger
