// SessionStore reads on large sessions, in a real database file in a
// temporary directory:
// - BM_HistoryPage: one page of 100 display-history events, forward from the
//   middle of the session and backward from its end, in a session of 10,000
//   and one of 1,000,000 events: the page cost does not grow with the size
//   of the session;
// - BM_FirstSeqOfTurn: the first event of a turn in the middle of the same
//   sessions (an index search);
// - BM_LoadContext: the whole model context of a session holding 10,000 and
//   100,000 context items.
// The committed-item append rate is measured by store_append_bench.
//
// Each session is built once per process, the first time a benchmark needs
// it, with large batches in few transactions; building is not timed.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "daemon/store/page_token.h"
#include "daemon/store/session_store.h"

namespace raw::store {
namespace {

constexpr int kEventsPerTurn = 10;
constexpr uint64_t kPerCommit = 20000;

std::string HistoryId(int64_t events) { return "history-" + std::to_string(events); }
std::string ContextId(int64_t items) { return "context-" + std::to_string(items); }
std::string TurnOf(uint64_t seq) { return "turn_" + std::to_string((seq - 1) / kEventsPerTurn); }

events::SessionEvent HistoryEvent(uint64_t seq) {
  events::SessionEvent event;
  event.seq = seq;
  event.turn_id = TurnOf(seq);
  event.time_unix_ms = 1700000000000 + static_cast<int64_t>(seq);
  event.payload = events::AssistantMessage{
      "an assistant message of a typical length for a display history, number " +
          std::to_string(seq),
      "", 1};
  return event;
}

// A mix of what a model context holds: prompts, assistant turns with a tool
// call, and tool results.
events::ContextItem ContextEntry(int64_t index) {
  const std::string n = std::to_string(index);
  switch (index % 3) {
    case 0:
      return events::UserText{"please look at the file number " + n + " and fix the bug in it"};
    case 1:
      return events::AssistantTurn{
          "I will read the file first.",
          "",
          {{"call_" + n, "read_file", "{\"path\":\"src/file_" + n + ".cc\"}"}},
          {}};
    default:
      return events::ToolOutcome{"call_" + std::to_string(index - 1), "read_file",
                                 std::string(200, 'c'), false};
  }
}

// The shared database: one per process, removed at exit.
class BenchStore {
 public:
  static BenchStore& Get() {
    static BenchStore store;
    return store;
  }

  // Null (with error() set) when the session could not be built.
  SessionStore* WithHistory(int64_t events) {
    const std::string id = HistoryId(events);
    if (!Ensure(id)) return nullptr;
    if (built_[id]) return store_.get();
    for (uint64_t first = 1; first <= static_cast<uint64_t>(events); first += kPerCommit) {
      CommitBatch batch;
      const uint64_t end = std::min<uint64_t>(first + kPerCommit, events + 1);
      for (uint64_t seq = first; seq < end; ++seq) batch.events.push_back(HistoryEvent(seq));
      if (!Check(store_->Commit(id, batch))) return nullptr;
    }
    built_[id] = true;
    return store_.get();
  }

  SessionStore* WithContext(int64_t items) {
    const std::string id = ContextId(items);
    if (!Ensure(id)) return nullptr;
    if (built_[id]) return store_.get();
    for (int64_t first = 0; first < items; first += static_cast<int64_t>(kPerCommit)) {
      CommitBatch batch;
      for (int64_t i = first; i < std::min<int64_t>(first + kPerCommit, items); ++i) {
        batch.context_appends.push_back(ContextEntry(i));
      }
      if (!Check(store_->Commit(id, batch))) return nullptr;
    }
    built_[id] = true;
    return store_.get();
  }

  const std::string& error() const { return error_; }

 private:
  BenchStore() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "raw-store-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      error_ = "cannot create a temporary directory";
      return;
    }
    dir_ = pattern;
    auto opened = SessionStore::Open(dir_ + "/" + DatabaseFileName());
    if (Check(opened.status())) store_ = std::move(opened).value();
  }
  ~BenchStore() {
    store_.reset();
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }

  bool Check(const absl::Status& status) {
    if (!status.ok()) error_ = std::string(status.message());
    return status.ok();
  }
  // Creates session `id` unless it exists.
  bool Ensure(const std::string& id) {
    if (store_ == nullptr) return false;
    if (built_.count(id) > 0) return true;
    SessionRecord record;
    record.id = id;
    record.agent = "coder";
    record.cwd = dir_;
    if (!Check(store_->CreateSession(record))) return false;
    built_[id] = false;
    return true;
  }

  std::string dir_;
  std::string error_;
  std::unique_ptr<SessionStore> store_;
  std::map<std::string, bool> built_;
};

// Args: events in the session, direction (0 = backward from the end,
// 1 = forward from the middle).
void BM_HistoryPage(benchmark::State& state) {
  constexpr int kLimit = 100;
  const int64_t events = state.range(0);
  const bool forward = state.range(1) == 1;
  SessionStore* store = BenchStore::Get().WithHistory(events);
  if (store == nullptr) {
    state.SkipWithError(BenchStore::Get().error().c_str());
    return;
  }
  const std::string id = HistoryId(events);
  const std::string cursor =
      forward ? EncodeHistoryCursor(id, static_cast<uint64_t>(events / 2)) : "";
  const HistoryDirection direction =
      forward ? HistoryDirection::kForward : HistoryDirection::kBackward;
  for (auto _ : state) {
    auto page = store->GetHistory(id, cursor, kLimit, direction);
    if (!page.ok() || page->events.size() != kLimit) {
      state.SkipWithError(page.ok() ? "short page" : std::string(page.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(page->events.data());
  }
  state.SetItemsProcessed(state.iterations() * kLimit);
}
BENCHMARK(BM_HistoryPage)
    ->ArgNames({"events", "forward"})
    ->Args({10000, 1})
    ->Args({1000000, 1})
    ->Args({10000, 0})
    ->Args({1000000, 0})
    ->Unit(benchmark::kMicrosecond);

void BM_FirstSeqOfTurn(benchmark::State& state) {
  const int64_t events = state.range(0);
  SessionStore* store = BenchStore::Get().WithHistory(events);
  if (store == nullptr) {
    state.SkipWithError(BenchStore::Get().error().c_str());
    return;
  }
  const std::string id = HistoryId(events);
  const uint64_t middle = static_cast<uint64_t>(events / 2) + 5;
  const std::string turn = TurnOf(middle);
  for (auto _ : state) {
    auto seq = store->FirstSeqOfTurn(id, turn);
    if (!seq.ok()) {
      state.SkipWithError(std::string(seq.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(*seq);
  }
}
BENCHMARK(BM_FirstSeqOfTurn)
    ->ArgNames({"events"})
    ->Arg(10000)
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);

void BM_LoadContext(benchmark::State& state) {
  const int64_t items = state.range(0);
  SessionStore* store = BenchStore::Get().WithContext(items);
  if (store == nullptr) {
    state.SkipWithError(BenchStore::Get().error().c_str());
    return;
  }
  const std::string id = ContextId(items);
  for (auto _ : state) {
    auto context = store->LoadContext(id);
    if (!context.ok() || static_cast<int64_t>(context->size()) != items) {
      state.SkipWithError(context.ok() ? "wrong item count"
                                       : std::string(context.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(context->data());
    // A resumed session keeps its context: freeing it is not part of a load.
    state.PauseTiming();
    context = std::vector<events::ContextItem>();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * items);
}
BENCHMARK(BM_LoadContext)
    ->ArgNames({"items"})
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace raw::store

BENCHMARK_MAIN();
