#include "tests/fakes/sse_builders.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json.h"

namespace raw::testing::chat {
namespace {

std::string Event(const OrderedJson& data) { return "data: " + DumpJson(data) + "\n\n"; }

// One chat.completion.chunk with a single choice carrying `delta`.
std::string ChoiceChunk(OrderedJson delta, const OrderedJson& finish_reason) {
  OrderedJson choice = {{"index", 0},
                        {"delta", std::move(delta)},
                        {"logprobs", nullptr},
                        {"finish_reason", finish_reason}};
  OrderedJson chunk = {{"id", "chatcmpl-fake"},
                       {"object", "chat.completion.chunk"},
                       {"created", 1760000000},
                       {"model", "gpt-test"},
                       {"choices", OrderedJson::array({std::move(choice)})},
                       {"usage", nullptr}};
  return Event(chunk);
}

// Splits `text` into `parts` pieces of similar size without cutting a UTF-8
// sequence; empty pieces are dropped.
std::vector<std::string> SplitUtf8(std::string_view text, int parts) {
  std::vector<std::string> pieces;
  const size_t count = static_cast<size_t>(std::max(parts, 1));
  size_t begin = 0;
  for (size_t i = 1; i <= count && begin < text.size(); ++i) {
    size_t end = i == count ? text.size() : std::max(begin, text.size() * i / count);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    if (end > begin) pieces.emplace_back(text.substr(begin, end - begin));
    begin = end;
  }
  return pieces;
}

}  // namespace

std::string RoleChunk() {
  return ChoiceChunk({{"role", "assistant"}, {"content", ""}, {"refusal", nullptr}}, nullptr);
}

std::string TextChunk(std::string_view text) { return ChoiceChunk({{"content", text}}, nullptr); }

std::string ReasoningChunk(std::string_view text) {
  return ChoiceChunk({{"content", nullptr}, {"reasoning_content", text}}, nullptr);
}

std::vector<std::string> ToolCallChunks(int index, std::string_view id, std::string_view name,
                                        std::string_view arguments, int fragments) {
  std::vector<std::string> events;
  OrderedJson header = {{"index", index},
                        {"id", id},
                        {"type", "function"},
                        {"function", {{"name", name}, {"arguments", ""}}}};
  events.push_back(ChoiceChunk({{"tool_calls", OrderedJson::array({header})}}, nullptr));
  for (const std::string& piece : SplitUtf8(arguments, fragments)) {
    OrderedJson fragment = {{"index", index}, {"function", {{"arguments", piece}}}};
    events.push_back(ChoiceChunk({{"tool_calls", OrderedJson::array({fragment})}}, nullptr));
  }
  return events;
}

std::string FinishChunk(std::string_view reason) {
  return ChoiceChunk(OrderedJson::object(), reason);
}

std::string UsageChunk(int64_t prompt_tokens, int64_t completion_tokens,
                       std::optional<int64_t> cached_tokens) {
  OrderedJson usage = {{"prompt_tokens", prompt_tokens},
                       {"completion_tokens", completion_tokens},
                       {"total_tokens", prompt_tokens + completion_tokens}};
  if (cached_tokens.has_value()) {
    usage["prompt_tokens_details"] = {{"cached_tokens", *cached_tokens}};
  }
  OrderedJson chunk = {{"id", "chatcmpl-fake"},           {"object", "chat.completion.chunk"},
                       {"created", 1760000000},           {"model", "gpt-test"},
                       {"choices", OrderedJson::array()}, {"usage", std::move(usage)}};
  return Event(chunk);
}

std::string ErrorChunk(std::string_view message, std::string_view type) {
  return Event(
      {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}});
}

std::string Done() { return "data: [DONE]\n\n"; }

ScriptedResponse Stream(std::vector<std::string> events) {
  ScriptedResponse response;
  response.chunks = std::move(events);
  return response;
}

ScriptedResponse TextAnswer(std::string_view text, const Usage& usage) {
  return Stream({RoleChunk(), TextChunk(text), FinishChunk("stop"),
                 UsageChunk(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens),
                 Done()});
}

ScriptedResponse WordsAnswer(int count, const Usage& usage) {
  std::vector<std::string> events = {RoleChunk()};
  for (int w = 0; w < count; ++w) events.push_back(TextChunk(absl::StrCat("w", w, " ")));
  events.push_back(FinishChunk("stop"));
  events.push_back(UsageChunk(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens));
  events.push_back(Done());
  return Stream(std::move(events));
}

ScriptedResponse ToolCallsAnswer(const std::vector<ToolCall>& calls, const Usage& usage) {
  std::vector<std::string> events = {RoleChunk()};
  for (size_t i = 0; i < calls.size(); ++i) {
    for (std::string& event :
         ToolCallChunks(static_cast<int>(i), calls[i].id, calls[i].name, calls[i].arguments)) {
      events.push_back(std::move(event));
    }
  }
  events.push_back(FinishChunk("tool_calls"));
  events.push_back(UsageChunk(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens));
  events.push_back(Done());
  return Stream(std::move(events));
}

ScriptedResponse ErrorResponse(int status, std::string_view message, std::string_view type,
                               std::string_view code) {
  OrderedJson body = {{"error",
                       {{"message", message},
                        {"type", type},
                        {"param", nullptr},
                        {"code", code.empty() ? OrderedJson(nullptr) : OrderedJson(code)}}}};
  ScriptedResponse response;
  response.status = status;
  response.chunks.push_back(DumpJson(body));
  return response;
}

}  // namespace raw::testing::chat
