// Builders for synthetic OpenAI Chat Completions responses, shaped like the
// recorded streams (chat.completion.chunk events), for tests that script a
// FakeProviderServer. Every event string is one SSE event,
// "data: <json>\n\n"; ScriptedResponse helpers put one event per chunk.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fakes/fake_provider_server.h"

namespace raw::testing::chat {

// The usual first event: role "assistant" with empty content.
std::string RoleChunk();
std::string TextChunk(std::string_view text);
// Reasoning text as DeepSeek and llama-server send it (reasoning_content).
std::string ReasoningChunk(std::string_view text);
// A call header (id, name, empty arguments) followed by `arguments` split
// into `fragments` pieces (at UTF-8 character boundaries; at least one).
std::vector<std::string> ToolCallChunks(int index, std::string_view id, std::string_view name,
                                        std::string_view arguments, int fragments = 2);
// reason: "stop", "tool_calls", "length", ...
std::string FinishChunk(std::string_view reason);
// The trailing usage event (choices: []). prompt_tokens_details appears only
// when `cached_tokens` is given.
std::string UsageChunk(int64_t prompt_tokens, int64_t completion_tokens,
                       std::optional<int64_t> cached_tokens = std::nullopt);
// A mid-stream error event.
std::string ErrorChunk(std::string_view message, std::string_view type = "server_error");
std::string Done();

struct Usage {
  int64_t prompt_tokens = 12;
  int64_t completion_tokens = 4;
  std::optional<int64_t> cached_tokens;
};

struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text
};

// 200 text/event-stream with one event per chunk.
ScriptedResponse Stream(std::vector<std::string> events);
// Role, the text, finish "stop", usage, [DONE].
ScriptedResponse TextAnswer(std::string_view text, const Usage& usage = {});
// Role, `count` text deltas "w0 ", "w1 ", ..., finish "stop", usage,
// [DONE]: a streamed answer whose deltas a test can tell apart.
ScriptedResponse WordsAnswer(int count, const Usage& usage = {});
// Role, each call (index = position), finish "tool_calls", usage, [DONE].
ScriptedResponse ToolCallsAnswer(const std::vector<ToolCall>& calls, const Usage& usage = {});
// An HTTP error with the OpenAI body
// {"error":{"message","type","param":null,"code"}}; an empty `code` is null.
ScriptedResponse ErrorResponse(int status, std::string_view message, std::string_view type,
                               std::string_view code);

}  // namespace raw::testing::chat
