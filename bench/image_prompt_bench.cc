// What a prompt's images cost Raw itself: checking and encoding them when
// the prompt arrives (on a worker thread, with the turn's plan), storing
// the context item, and writing the user message into a request body (once
// per session: later requests reuse the serialized history). The argument
// is the image's size in KiB.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "daemon/events/context_record.h"
#include "daemon/events/image_part.h"
#include "daemon/providers/openai_chat/request_builder.h"

namespace {

// A PNG header and `size` bytes in all.
std::string Png(size_t size) {
  std::string bytes("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x04\0\0\0\x03\0", 24);
  bytes.resize(size, '\x5a');
  return bytes;
}

void BM_CheckPromptImages(benchmark::State& state) {
  const std::vector<raw::events::ImageUpload> uploads = {
      {"image/png", Png(static_cast<size_t>(state.range(0)) * 1024)}};
  for (auto _ : state) {
    auto images = raw::events::CheckPromptImages(uploads);
    benchmark::DoNotOptimize(images);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 1024);
}
BENCHMARK(BM_CheckPromptImages)->Arg(100)->Arg(1024)->Arg(5 * 1024)->Unit(benchmark::kMicrosecond);

raw::events::UserText Prompt(size_t kib) {
  raw::events::UserText prompt{"What is in this screenshot?"};
  prompt.images = *raw::events::CheckPromptImages({{"", Png(kib * 1024)}});
  return prompt;
}

void BM_EncodeContextRecord(benchmark::State& state) {
  const raw::events::ContextItem item = Prompt(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::string record = raw::events::EncodeContextRecord(item);
    benchmark::DoNotOptimize(record);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 1024);
}
BENCHMARK(BM_EncodeContextRecord)->Arg(100)->Arg(5 * 1024)->Unit(benchmark::kMicrosecond);

void BM_DecodeContextRecord(benchmark::State& state) {
  const std::string record =
      raw::events::EncodeContextRecord(Prompt(static_cast<size_t>(state.range(0))));
  for (auto _ : state) {
    auto item = raw::events::DecodeContextRecord(record);
    benchmark::DoNotOptimize(item);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 1024);
}
BENCHMARK(BM_DecodeContextRecord)->Arg(100)->Arg(5 * 1024)->Unit(benchmark::kMicrosecond);

void BM_AppendChatMessage(benchmark::State& state) {
  const raw::events::ContextItem item = Prompt(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::string out;
    raw::providers::openai_chat::AppendMessage(item, false, &out);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 1024);
}
BENCHMARK(BM_AppendChatMessage)->Arg(100)->Arg(5 * 1024)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
