// Live event fan-out: what one streamed text delta costs when a session is
// watched by several clients at once (a terminal, a dashboard tab, an
// editor through ACP). Each iteration publishes one delta through
// SessionLog::PublishLive to N subscriptions and drains every queue, as the
// API's Subscribe streams do. The store is a real database file, though
// live deltas never touch it.
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/time.h"
#include "daemon/loop/session_log.h"
#include "daemon/store/session_store.h"

namespace raw::loop {
namespace {

void BM_PublishDeltaToSubscribers(benchmark::State& state) {
  const int subscribers = static_cast<int>(state.range(0));
  std::string dir = (std::filesystem::temp_directory_path() / "raw-fanout-bench-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    state.SkipWithError("no temporary directory");
    return;
  }
  auto store = store::SessionStore::Open(dir + "/sessions.sqlite3");
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  store::SessionRecord record;
  record.id = "bench";
  record.agent = "coder";
  record.cwd = dir;
  if (!(*store)->CreateSession(record).ok()) {
    state.SkipWithError("cannot create the session");
    return;
  }
  SystemClock clock;
  auto log = std::make_shared<SessionLog>(record.id, 0, **store, clock);
  std::vector<std::unique_ptr<Subscription>> subs;
  for (int i = 0; i < subscribers; ++i) subs.push_back(log->Subscribe(0));
  const std::string text = "a streamed delta of some forty bytes....";
  int64_t delivered = 0;
  for (auto _ : state) {
    log->PublishLive("turn_bench", events::TextDelta{text});
    for (auto& sub : subs) {
      auto next = sub->TryNext();
      if (next.ok() && next->has_value()) ++delivered;
    }
  }
  state.counters["delivered_per_publish"] =
      static_cast<double>(delivered) / static_cast<double>(state.iterations());
  for (auto& sub : subs) sub->Close();
  subs.clear();
  log.reset();
  store->reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}
BENCHMARK(BM_PublishDeltaToSubscribers)->Arg(1)->Arg(3)->Arg(16)->Arg(64);

}  // namespace
}  // namespace raw::loop

BENCHMARK_MAIN();
