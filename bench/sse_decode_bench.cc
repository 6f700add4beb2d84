// Throughput of the streaming decode path: SseDecoder alone, and SseDecoder
// feeding the Chat Completions StreamDecoder, over a large synthetic stream
// (text deltas, reasoning, tool-call argument fragments, usage, [DONE]) cut
// into chunks of the sizes a socket read delivers. Reports bytes/s and
// events/s (frames/s for the SSE-only case).
//
//   sse_decode_bench --benchmark_counters_tabular=true
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "daemon/providers/openai_chat/stream_decoder.h"
#include "daemon/http/sse_decoder.h"

namespace raw::providers {
namespace {

constexpr char kPrefix[] =
    R"(data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1760000000,)"
    R"("model":"gpt-bench","system_fingerprint":"fp_bench","choices":[{"index":0,"delta":)";

std::string Chunk(const std::string& delta, const std::string& finish = "null") {
  return absl::StrCat(kPrefix, delta, R"(,"logprobs":null,"finish_reason":)", finish,
                      "}],\"usage\":null}\n\n");
}

// About `target_bytes` of stream: a reasoning preamble, text deltas of
// typical token sizes (with some multi-byte text), then tool calls whose
// arguments arrive in small fragments.
std::string SyntheticStream(size_t target_bytes) {
  static const char* kWords[] = {"The ",   "quick ",     "caf\xC3\xA9 ", "parser ", "splits ",
                                 "lines, ", "and \\\"q\\\" ", "\xE2\x82\xAC" "5 ", "then\\n", "ok. "};
  std::string stream = ": keep-alive\n\n";
  stream += Chunk(R"({"role":"assistant","content":""})");
  for (int i = 0; i < 50; ++i) {
    stream += Chunk(absl::StrCat(R"({"reasoning_content":")", kWords[i % 10], R"("})"));
  }
  size_t word = 0;
  while (stream.size() < target_bytes * 8 / 10) {
    stream += Chunk(absl::StrCat(R"({"content":")", kWords[word++ % 10], R"("})"));
  }
  int call = 0;
  while (stream.size() < target_bytes) {
    stream += Chunk(absl::StrCat(R"({"tool_calls":[{"index":)", call, R"(,"id":"call_)", call,
                                 R"(","type":"function","function":{"name":"edit_file","arguments":""}}]})"));
    for (const char* piece : {R"({\"pa)", R"(th\":\"src/)", R"(main.cc\",)", R"(\"text\":\")",
                              R"(int x = 1;\\n)", R"(\"})"}) {
      stream += Chunk(absl::StrCat(R"({"tool_calls":[{"index":)", call,
                                   R"(,"function":{"arguments":")", piece, R"("}}]})"));
    }
    ++call;
  }
  stream += Chunk("{}", R"("tool_calls")");
  stream +=
      R"(data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3100,"completion_tokens":58,"total_tokens":3158,"prompt_tokens_details":{"cached_tokens":2944},"completion_tokens_details":{"reasoning_tokens":0}}})"
      "\n\ndata: [DONE]\n\n";
  return stream;
}

std::vector<std::string> Split(const std::string& stream, size_t size) {
  std::vector<std::string> chunks;
  for (size_t pos = 0; pos < stream.size(); pos += size) chunks.push_back(stream.substr(pos, size));
  return chunks;
}

const std::string& Stream() {
  static const std::string* stream = new std::string(SyntheticStream(4 << 20));
  return *stream;
}

void BM_SseDecoder(benchmark::State& state) {
  std::vector<std::string> chunks = Split(Stream(), static_cast<size_t>(state.range(0)));
  int64_t frames = 0;
  for (auto _ : state) {
    http::SseDecoder decoder;
    for (const std::string& chunk : chunks) {
      decoder.Feed(chunk, [&frames](const http::SseFrame& frame) {
        benchmark::DoNotOptimize(frame.data.data());
        ++frames;
      });
    }
    benchmark::DoNotOptimize(decoder.Finish());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(Stream().size()));
  state.counters["frames/s"] = benchmark::Counter(static_cast<double>(frames),
                                                  benchmark::Counter::kIsRate);
}

void BM_SseAndChatDecoder(benchmark::State& state) {
  std::vector<std::string> chunks = Split(Stream(), static_cast<size_t>(state.range(0)));
  int64_t events = 0;
  std::vector<ProviderEvent> out;
  for (auto _ : state) {
    http::SseDecoder sse;
    openai_chat::StreamDecoder decoder;
    for (const std::string& chunk : chunks) {
      sse.Feed(chunk, [&](const http::SseFrame& frame) { decoder.Decode(frame, &out); });
      events += static_cast<int64_t>(out.size());
      out.clear();  // a sink would consume them here
    }
    sse.Finish();
    decoder.Finish(&out);
    events += static_cast<int64_t>(out.size());
    out.clear();
    if (!decoder.done()) state.SkipWithError("stream did not end");
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(Stream().size()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events),
                                                  benchmark::Counter::kIsRate);
}

// 64: tiny reads; 1448: one TCP segment; 16384: libcurl's default buffer.
BENCHMARK(BM_SseDecoder)->Arg(64)->Arg(1448)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SseAndChatDecoder)->Arg(64)->Arg(1448)->Arg(16384)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace raw::providers

BENCHMARK_MAIN();
