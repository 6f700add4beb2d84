// Cost of the four wire APIs' hot paths: decoding recorded response streams
// (tests/fixtures/sse/<api>/01-* and 02-*, repeated to about 1 MB, every
// response through a fresh SseDecoder and vendor StreamDecoder, fed in
// TCP-segment-sized reads), and building the request body for a
// 1,000-message history (user text, assistant turns with reasoning and a
// tool call, tool results).
//
//   provider_decode_bench --benchmark_min_time=0.1
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/events/conversation.h"
#include "daemon/providers/anthropic/request_builder.h"
#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/google/request_builder.h"
#include "daemon/providers/google/stream_decoder.h"
#include "daemon/providers/openai_chat/request_builder.h"
#include "daemon/providers/openai_chat/stream_decoder.h"
#include "daemon/providers/openai_responses/request_builder.h"
#include "daemon/providers/openai_responses/stream_decoder.h"
#include "daemon/providers/provider.h"
#include "daemon/http/sse_decoder.h"

namespace raw::providers {
namespace {

constexpr size_t kTargetBytes = 1 << 20;
constexpr size_t kReadSize = 1448;  // one TCP segment

std::string ReadFixture(std::string_view api, std::string_view prefix) {
  const std::string dir = std::string(RAW_SOURCE_DIR) + "/tests/fixtures/sse/" + std::string(api) + "/";
  for (std::string_view name : {"01-text.sse", "02-parallel-tools.sse"}) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    std::ifstream in(dir + std::string(name), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  return "";
}

// Responses alternating between the tool-call and the text fixture until
// their total reaches kTargetBytes.
std::vector<std::string> Responses(std::string_view api) {
  const std::string tools = ReadFixture(api, "02-");
  const std::string text = ReadFixture(api, "01-");
  std::vector<std::string> responses;
  if (tools.empty() || text.empty()) return responses;
  size_t total = 0;
  while (total < kTargetBytes) {
    const std::string& next = responses.size() % 2 == 0 ? tools : text;
    responses.push_back(next);
    total += next.size();
  }
  return responses;
}

template <typename MakeDecoder>
void BM_Decode(benchmark::State& state, std::string_view api, MakeDecoder make_decoder) {
  const std::vector<std::string> responses = Responses(api);
  if (responses.empty()) {
    state.SkipWithError("fixtures not found");
    return;
  }
  int64_t bytes = 0;
  for (const std::string& response : responses) bytes += static_cast<int64_t>(response.size());
  int64_t events = 0;
  std::vector<ProviderEvent> out;
  for (auto _ : state) {
    for (const std::string& response : responses) {
      http::SseDecoder sse;
      auto decoder = make_decoder();
      std::string_view rest = response;
      while (!rest.empty()) {
        const size_t n = std::min(rest.size(), kReadSize);
        sse.Feed(rest.substr(0, n),
                 [&](const http::SseFrame& frame) { decoder.Decode(frame, &out); });
        rest.remove_prefix(n);
      }
      sse.Finish();
      decoder.Finish(&out);
      if (!decoder.done()) state.SkipWithError("a response did not end");
      events += static_cast<int64_t>(out.size());
      out.clear();  // a sink would consume them here
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_Decode, chat, "chat", [] {
  return openai_chat::StreamDecoder();
})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, responses, "responses",
                  [] { return openai_responses::StreamDecoder(); })
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, anthropic, "anthropic", [] { return anthropic::StreamDecoder(); })
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, google, "gemini", [] { return google::StreamDecoder(); })
    ->Unit(benchmark::kMillisecond);

// A long session: 1,000 context items cycling through a user message, an
// assistant turn (reasoning, text, one tool call) and its tool result.
ModelRequest LongHistory(size_t items = 1000) {
  ModelRequest request;
  request.system_prompt = "You are a coding agent working in a local repository.";
  for (const char* name : {"read_file", "edit_file", "run_command"}) {
    ToolDefinition tool;
    tool.name = name;
    tool.description = absl::StrCat("The ", name, " tool.");
    tool.parameters = OrderedJson::parse(
        R"({"type":"object","properties":{"path":{"type":"string","description":"A path"},)"
        R"("text":{"type":"string"}},"required":["path"],"additionalProperties":false})");
    request.tools.push_back(std::move(tool));
  }
  for (int i = 0; request.messages.size() < items; ++i) {
    request.messages.push_back(events::UserText{absl::StrCat("Please fix the bug in file ", i,
                                                             ".cc; the test fails with \"x\".")});
    events::AssistantTurn turn;
    turn.reasoning = "The failing assertion is in the parser; read the file first.";
    turn.text = "Reading the file.";
    const std::string call_id = absl::StrCat("call_", i);
    turn.tool_calls.push_back(
        {call_id, "read_file", absl::StrCat(R"({"path":"src/file)", i, R"(.cc"})")});
    request.messages.push_back(std::move(turn));
    request.messages.push_back(events::ToolOutcome{
        call_id, "read_file", std::string(400, 'x') + "\nint main() { return 0; }\n", false});
  }
  request.messages.resize(items);
  return request;
}

// One step of a session: an assistant turn with a call, and its result.
void AppendStep(std::vector<events::ContextItem>& items, int step) {
  const std::string call_id = absl::StrCat("step_", step);
  items.push_back(events::AssistantTurn{
      "Reading it.", "", {{call_id, "read_file", R"({"path":"src/next.cc"})"}}, {}});
  items.push_back(events::ToolOutcome{call_id, "read_file", std::string(400, 'y'), false});
}

config::ModelConfig Model(const char* method) {
  config::ModelConfig model;
  model.name = "bench";
  model.provider = "bench";
  model.method = method;
  model.model_id = "bench-model";
  model.max_output_tokens = 4096;
  return model;
}

template <typename Build>
void BM_BuildRequest(benchmark::State& state, const char* method, Build build) {
  const ModelRequest request = LongHistory();
  const config::ModelConfig model = Model(method);
  int64_t bytes = 0;
  for (auto _ : state) {
    std::string body = build(request, model);
    bytes += static_cast<int64_t>(body.size());
    benchmark::DoNotOptimize(body.data());
  }
  state.SetBytesProcessed(bytes);
  state.counters["body_bytes"] =
      static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(state.iterations(), 1));
}

BENCHMARK_CAPTURE(BM_BuildRequest, chat, config::kMethodOpenAiChat,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return openai_chat::BuildRequestBody(r, m, "bench-key");
                  })
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildRequest, responses, config::kMethodOpenAiResponses,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return openai_responses::BuildRequestBody(r, m, "bench-key");
                  })
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildRequest, anthropic, config::kMethodAnthropicMessages,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return anthropic::BuildRequestBody(r, m, anthropic::CacheRetention::k5m);
                  })
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildRequest, google, config::kMethodGoogleGenerateContent,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return google::BuildRequestBody(r, m);
                  })
    ->Unit(benchmark::kMillisecond);

// The body of the next request of a session whose context holds
// state.range(0) items, built as the loop builds it: from the history kept
// since the previous request (providers/serialized_history.h), after one
// step (two items) was appended. Every 100 steps the history is cut back to
// its size and kept afresh, untimed.
template <typename Build>
void BM_BuildNextRequest(benchmark::State& state, const char* method, Build build) {
  const auto size = static_cast<size_t>(state.range(0));
  ModelRequest request = LongHistory(size);
  const config::ModelConfig model = Model(method);
  SerializedHistory history;
  request.history = &history;
  int step = 0;
  auto keep_afresh = [&] {
    request.messages.resize(size);
    request.history_generation = NewHistoryGeneration();
    benchmark::DoNotOptimize(build(request, model).head.data());
  };
  keep_afresh();
  for (auto _ : state) {
    if (request.messages.size() >= size + 200) {
      state.PauseTiming();
      keep_afresh();
      state.ResumeTiming();
    }
    AppendStep(request.messages, step++);
    http::PiecedBody body = build(request, model);
    benchmark::DoNotOptimize(body.head.data());
  }
}

#define RAW_NEXT_REQUEST_SIZES ->Arg(10)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond)
BENCHMARK_CAPTURE(BM_BuildNextRequest, chat, config::kMethodOpenAiChat,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return openai_chat::BuildRequest(r, m, "bench-key");
                  })
RAW_NEXT_REQUEST_SIZES;
BENCHMARK_CAPTURE(BM_BuildNextRequest, responses, config::kMethodOpenAiResponses,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return openai_responses::BuildRequest(r, m, "bench-key");
                  })
RAW_NEXT_REQUEST_SIZES;
BENCHMARK_CAPTURE(BM_BuildNextRequest, anthropic, config::kMethodAnthropicMessages,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return anthropic::BuildRequest(r, m, anthropic::CacheRetention::k5m);
                  })
RAW_NEXT_REQUEST_SIZES;
BENCHMARK_CAPTURE(BM_BuildNextRequest, google, config::kMethodGoogleGenerateContent,
                  [](const ModelRequest& r, const config::ModelConfig& m) {
                    return google::BuildRequest(r, m);
                  })
RAW_NEXT_REQUEST_SIZES;

// What ParseJson's nesting limit costs on a large document (the 250 KB Chat
// Completions body above): ParseJson against the bare nlohmann parse.
void BM_ParseLargeBody(benchmark::State& state, bool with_depth_limit) {
  const std::string body = openai_chat::BuildRequestBody(
      LongHistory(), Model(config::kMethodOpenAiChat), "bench-key");
  for (auto _ : state) {
    if (with_depth_limit) {
      absl::StatusOr<Json> doc = ParseJson(body);
      benchmark::DoNotOptimize(doc.ok());
    } else {
      Json doc = Json::parse(body);
      benchmark::DoNotOptimize(doc.is_object());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(body.size()) * state.iterations());
}

BENCHMARK_CAPTURE(BM_ParseLargeBody, parse_json, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ParseLargeBody, nlohmann_only, false)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace raw::providers

BENCHMARK_MAIN();
