// SessionStore hot paths on a real database file in a temporary directory:
// - BM_CommitAssistantMessage: one committed item per Commit() (an
//   AssistantMessage event plus its context item), the loop's common write;
// - BM_CommitStep: the commit that ends a model request with a tool call
//   (the call batch and usage events, the assistant item, the request's
//   usage, the context meter and the session's activity), as the loop
//   makes it;
// - BM_GetHistoryPage: one page of display history from a session holding
//   many events, newest page (backward from the end) and oldest page
//   (forward from the start).
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "daemon/store/session_store.h"

namespace raw::store {
namespace {

class ScratchStore {
 public:
  ScratchStore() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "raw-store-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return;
    dir_ = pattern;
    auto opened = SessionStore::Open(dir_ + "/" + DatabaseFileName());
    if (!opened.ok()) {
      error_ = std::string(opened.status().message());
      return;
    }
    store_ = std::move(opened).value();
    SessionRecord record;
    record.id = "bench";
    record.agent = "coder";
    record.cwd = dir_;
    absl::Status created = store_->CreateSession(record);
    if (!created.ok()) error_ = std::string(created.message());
  }
  ~ScratchStore() {
    store_.reset();
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  SessionStore* store() { return store_.get(); }
  const std::string& error() const { return error_; }

 private:
  std::string dir_;
  std::string error_ = "no temporary directory";
  std::unique_ptr<SessionStore> store_;
};

events::SessionEvent AssistantEvent(uint64_t seq, const std::string& text) {
  events::SessionEvent event;
  event.seq = seq;
  event.turn_id = "turn_bench";
  event.time_unix_ms = 1700000000000 + static_cast<int64_t>(seq);
  event.payload = events::AssistantMessage{text, "", 1};
  return event;
}

void BM_CommitAssistantMessage(benchmark::State& state) {
  ScratchStore scratch;
  if (scratch.store() == nullptr) {
    state.SkipWithError(scratch.error().c_str());
    return;
  }
  const std::string text(static_cast<size_t>(state.range(0)), 'x');
  uint64_t seq = 0;
  for (auto _ : state) {
    CommitBatch batch;
    batch.events.push_back(AssistantEvent(++seq, text));
    batch.context_appends.push_back(events::AssistantTurn{text, "", {}, {}});
    batch.conversation_activity = true;
    absl::Status status = scratch.store()->Commit("bench", batch);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CommitAssistantMessage)->Arg(200)->Arg(4000);

void BM_CommitStep(benchmark::State& state) {
  ScratchStore scratch;
  if (scratch.store() == nullptr) {
    state.SkipWithError(scratch.error().c_str());
    return;
  }
  events::Usage usage;
  usage.input_tokens = 12000;
  usage.output_tokens = 40;
  usage.cache_read_tokens = 11000;
  const events::ToolCallRequest call{"call_1", "read_file", R"({"path":"small.txt"})"};
  uint64_t seq = 0;
  for (auto _ : state) {
    CommitBatch batch;
    events::ToolCallBatch calls;
    calls.calls.push_back({call.call_id, call.name, "builtin/read_file", call.arguments});
    events::SessionEvent event = AssistantEvent(++seq, "");
    event.payload = std::move(calls);
    batch.events.push_back(std::move(event));
    event = AssistantEvent(++seq, "");
    event.payload = events::UsageReport{usage, 1};
    batch.events.push_back(std::move(event));
    batch.context_appends.push_back(events::AssistantTurn{"", "", {call}, {}});
    batch.usage = usage;
    batch.context_meter = R"({"v":1,"items":12,"baseline":12040,"baseline_runtime":900,)"
                          R"("baseline_items":11})";
    batch.conversation_activity = true;
    absl::Status status = scratch.store()->Commit("bench", batch);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CommitStep);

void BM_GetHistoryPage(benchmark::State& state) {
  constexpr uint64_t kEvents = 100000;
  constexpr uint64_t kPerCommit = 1000;
  ScratchStore scratch;
  if (scratch.store() == nullptr) {
    state.SkipWithError(scratch.error().c_str());
    return;
  }
  for (uint64_t first = 1; first <= kEvents; first += kPerCommit) {
    CommitBatch batch;
    for (uint64_t seq = first; seq < first + kPerCommit; ++seq) {
      batch.events.push_back(AssistantEvent(seq, "message text of a typical length, " +
                                                     std::to_string(seq)));
    }
    absl::Status status = scratch.store()->Commit("bench", batch);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      return;
    }
  }
  const auto direction = state.range(1) == 0 ? HistoryDirection::kBackward
                                             : HistoryDirection::kForward;
  const int limit = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto page = scratch.store()->GetHistory("bench", "", limit, direction);
    if (!page.ok()) {
      state.SkipWithError(std::string(page.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(page->events.data());
  }
  state.SetItemsProcessed(state.iterations() * limit);
}
// Args: page size, direction (0 = newest page backward, 1 = oldest forward).
BENCHMARK(BM_GetHistoryPage)
    ->ArgNames({"limit", "forward"})
    ->Args({100, 0})
    ->Args({100, 1})
    ->Args({1000, 0})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace raw::store

BENCHMARK_MAIN();
