// What making a string fit for the store costs (valid UTF-8, known secret
// values hidden; daemon/vars/redact.h): every string of every commit goes
// through it, a tool's output more than once. Text of `state.range(0)`
// bytes that holds none of two secrets, the common case.
//
//   build/bin/redact_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "common/utf8.h"
#include "daemon/vars/redact.h"

namespace raw::vars {
namespace {

std::string Output(size_t bytes) {
  std::string text;
  while (text.size() < bytes) text += "src/main.cc:12: int main() { return 0; } // caf\xc3\xa9\n";
  text.resize(bytes);
  return std::string(text.data(), Utf8Floor(text, bytes));
}

const std::vector<std::string> kSecrets = {"sk-live-0123456789abcdef", "ghp_0123456789abcdef"};

// As it was done: sanitize into a copy, then redact into another.
void BM_RedactOfSanitized(benchmark::State& state) {
  const std::string text = Output(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::string stored = text;
    stored = Redact(SanitizeUtf8(stored), kSecrets);
    benchmark::DoNotOptimize(stored);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_RedactOfSanitized)->Arg(200)->Arg(30000);

// In place, copying only what changes (the copy of the input is the
// benchmark's, as above).
void BM_SanitizeAndRedact(benchmark::State& state) {
  const std::string text = Output(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::string stored = text;
    SanitizeAndRedact(stored, kSecrets);
    benchmark::DoNotOptimize(stored);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SanitizeAndRedact)->Arg(200)->Arg(30000);

}  // namespace
}  // namespace raw::vars

BENCHMARK_MAIN();
