// A large session written straight into a daemon's database before the
// daemon starts, for the benches and measurements of long histories.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {

// Writes session `id` of agent `agent`, whose model context holds `items`
// items: a question and an answer of about 300 bytes each (`filler_bytes`
// of filler and a short head), alternating, the last one "answer <items>"
// when `items` is even. Its display history holds
// the turns they make, as a daemon records them (turn start, message,
// answer, turn end: twice as many events). Call before daemon.Start().
absl::Status SeedSession(const TestDaemon& daemon, const std::string& id, const std::string& agent,
                         int items, size_t filler_bytes = 280);

}  // namespace raw::e2e
