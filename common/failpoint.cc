#include "common/failpoint.h"

#ifdef RAW_FAILPOINTS

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"

namespace raw::failpoint {
namespace {

struct Armed {
  std::string name;  // empty: nothing armed
  long long at = 1;  // the hit that kills
  std::atomic<long long> hits{0};
};

// Parsed once, on the first hit; never freed (it lives as long as the
// process, which a failpoint may end at any moment).
Armed& TheArmed() {
  static Armed* armed = [] {
    auto* a = new Armed;
    const char* env = std::getenv("RAW_FAILPOINT");
    if (env == nullptr) return a;
    std::string spec = env;
    if (auto at = spec.rfind('@'); at != std::string::npos) {
      long long n = 0;
      if (absl::SimpleAtoi(spec.substr(at + 1), &n) && n > 0) a->at = n;
      spec.resize(at);
    }
    a->name = spec;
    return a;
  }();
  return *armed;
}

}  // namespace

void Hit(std::string_view name) {
  Armed& armed = TheArmed();
  if (armed.name.empty() || name != armed.name) return;
  if (armed.hits.fetch_add(1) + 1 == armed.at) {
    // SIGKILL, not abort(): no handler, no atexit, no flush, as when the
    // machine loses power or the OOM killer strikes.
    kill(getpid(), SIGKILL);
    pause();
  }
}

}  // namespace raw::failpoint

#endif
