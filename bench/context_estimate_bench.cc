// The cost of keeping the context estimate current: one step's update
// (Append of the assistant item + RecordReported + tokens()) with a small
// and a large context already in place (it should not depend on the size),
// and a whole Reset over a large context (load, compaction, /clear).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/context/context_meter.h"

namespace {

using raw::events::ContextItem;

// A context of `n` items shaped like real turns: prompts, assistant turns
// with a tool call, tool outputs.
std::vector<ContextItem> MakeContext(int64_t n) {
  std::vector<ContextItem> items;
  items.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; static_cast<int64_t>(items.size()) < n; ++i) {
    items.push_back(raw::events::UserText(absl::StrCat("Please look at file ", i, ".cc")));
    raw::events::AssistantTurn turn;
    turn.text = "Reading it.";
    turn.tool_calls.push_back({absl::StrCat("c", i), "read_file",
                               absl::StrCat(R"({"path":"src/file)", i, R"(.cc"})")});
    items.push_back(turn);
    items.push_back(raw::events::ToolOutcome{absl::StrCat("c", i), "read_file",
                                             std::string(2000, 'x'), false});
  }
  items.resize(static_cast<size_t>(n));
  return items;
}

void BM_StepUpdate(benchmark::State& state) {
  raw::context::ContextMeter meter;
  meter.Reset(3000, MakeContext(state.range(0)));
  raw::events::AssistantTurn answer;
  answer.text = std::string(600, 'a');
  raw::events::Usage usage;
  usage.input_tokens = 120000;
  usage.output_tokens = 150;
  for (auto _ : state) {
    meter.Append(answer);
    meter.RecordReported(usage);
    benchmark::DoNotOptimize(meter.tokens());
  }
}
BENCHMARK(BM_StepUpdate)->Arg(100)->Arg(100000);

void BM_Reset(benchmark::State& state) {
  const auto items = MakeContext(state.range(0));
  raw::context::ContextMeter meter;
  for (auto _ : state) {
    meter.Reset(3000, items);
    benchmark::DoNotOptimize(meter.tokens());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Reset)->Arg(100000);

}  // namespace

BENCHMARK_MAIN();
