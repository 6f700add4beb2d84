// Check(ok, target, what): a fuzz target's property check. A property that
// does not hold names the target and the property on stderr and aborts, so
// libFuzzer records the input as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace raw::fuzz {

inline void Check(bool ok, const char* target, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "%s: %s\n", target, what);
    std::abort();
  }
}

}  // namespace raw::fuzz
