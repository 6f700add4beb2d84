// Failpoints: named places where a test build can kill its own process, so
// that the crash harness (tests/crash/) can stop rawd exactly before or after
// a store commit, in the middle of a stream, a tool or a compaction.
//
// RAW_FAILPOINT("store.append.after") compiles to nothing unless the build is
// configured with -DRAW_FAILPOINTS=ON (scripts/sanitize.sh does; release and
// package builds never do). In such a build, the process reads the
// environment variable RAW_FAILPOINT once, as "NAME" or "NAME@N", and raises
// SIGKILL on itself at the Nth time (default: the first) that the failpoint
// NAME is reached. Any other name, or an unset variable, costs one compare of
// a cached pointer per hit.
#pragma once

#ifdef RAW_FAILPOINTS

#include <string_view>

namespace raw::failpoint {

// Counts a hit of `name`; kills the process with SIGKILL when it is the
// armed failpoint's Nth hit. Thread-safe.
void Hit(std::string_view name);

}  // namespace raw::failpoint

#define RAW_FAILPOINT(name) ::raw::failpoint::Hit(name)

#else

#define RAW_FAILPOINT(name) \
  do {                      \
  } while (false)

#endif
