#include "tests/crash/crash_model.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/json.h"
#include "tests/fakes/sse_builders.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::crash {
namespace {

// The text of a Chat Completions message (a string, or text parts).
std::string TextOf(const Json& message) {
  const Json& content = message.value("content", Json());
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const Json& part : content) {
      if (part.is_object() && part.value("type", "") == "text") text += part.value("text", "");
    }
  }
  return text;
}

// "op N: K tool steps" -> (N, K).
bool ParsePrompt(const std::string& text, int* op, int* steps) {
  if (!absl::StartsWith(text, "op ")) return false;
  const size_t colon = text.find(':');
  const size_t tool = text.find(" tool steps");
  if (colon == std::string::npos || tool == std::string::npos || tool < colon + 2) return false;
  return absl::SimpleAtoi(text.substr(3, colon - 3), op) &&
         absl::SimpleAtoi(text.substr(colon + 2, tool - colon - 2), steps);
}

std::optional<testing::ScriptedResponse> RespondChat(const Json& body) {
  const Json& messages = body.value("messages", Json::array());
  if (!messages.empty() && messages[0].value("role", "") == "system" &&
      absl::StrContains(TextOf(messages[0]), "You summarize part of a conversation")) {
    return testing::chat::TextAnswer("The user ran numbered operations; files were written.");
  }
  // The last user message, and the tool-calling answers after it.
  int op = 0, steps = 0, answered = 0;
  for (size_t i = messages.size(); i-- > 0;) {
    const Json& m = messages[i];
    if (m.value("role", "") == "assistant" && m.contains("tool_calls")) ++answered;
    if (m.value("role", "") == "user") {
      if (!ParsePrompt(TextOf(m), &op, &steps)) steps = 0;
      break;
    }
  }
  if (answered < steps) {
    const std::string id = absl::StrCat("op", op, "-", answered);
    return testing::chat::ToolCallsAnswer(
        {{id + "-bash", "bash", R"({"command":"sleep 1; echo step done"})"},
         {id + "-write", "write_file",
          absl::StrCat(R"({"path":"op)", op, "-", answered, R"(.txt","content":"written"})")}});
  }
  return testing::chat::WordsAnswer(40);
}

testing::ScriptedResponse Fixture(const char* dir) {
  testing::ScriptedResponse response;
  response.chunks = testing::SplitSseEvents(testing::ReadSseFixture(dir, "01-text"));
  return response;
}

}  // namespace

const char* ApiName(Api api) {
  switch (api) {
    case Api::kChat:
      return "chat";
    case Api::kResponses:
      return "responses";
    case Api::kAnthropic:
      return "anthropic";
    case Api::kGoogle:
      return "google";
  }
  return "";
}

std::optional<Api> ApiOfPath(const std::string& path) {
  if (absl::StrContains(path, "/chat/completions")) return Api::kChat;
  if (absl::StrContains(path, "/responses")) return Api::kResponses;
  if (absl::StrContains(path, "/messages")) return Api::kAnthropic;
  if (absl::StrContains(path, "enerateContent")) return Api::kGoogle;  // (stream)GenerateContent
  return std::nullopt;
}

std::string ToolPrompt(int op, int steps) { return absl::StrCat("op ", op, ": ", steps, " tool steps"); }

std::optional<testing::ScriptedResponse> Respond(const testing::RecordedRequest& request) {
  const std::optional<Api> api = ApiOfPath(request.path);
  if (!api) return std::nullopt;
  switch (*api) {
    case Api::kChat: {
      absl::StatusOr<Json> body = request.BodyJson();
      if (!body.ok()) return std::nullopt;
      return RespondChat(*body);
    }
    case Api::kResponses:
      return Fixture("responses");
    case Api::kAnthropic:
      return Fixture("anthropic");
    case Api::kGoogle:
      return Fixture("gemini");
  }
  return std::nullopt;
}

std::string HarnessConfig(const std::string& base_url) {
  constexpr char kConfig[] = R"({
  "default_agent": "coder",
  "models": {
    "fake-chat": {"provider": "openai", "method": "openai-chat-completions",
                  "model_id": "gpt-test", "base_url": "${BASE}", "api_key_env": "RAW_TEST_KEY",
                  "context_window_tokens": 200000},
    "fake-responses": {"provider": "openai", "method": "openai-responses",
                       "model_id": "gpt-test", "base_url": "${BASE}",
                       "api_key_env": "RAW_TEST_KEY"},
    "fake-anthropic": {"provider": "anthropic", "method": "anthropic-messages",
                       "model_id": "claude-test", "base_url": "${BASE}",
                       "api_key_env": "RAW_TEST_KEY"},
    "fake-google": {"provider": "google", "method": "google-generate-content",
                    "model_id": "gemini-test", "base_url": "${BASE}",
                    "api_key_env": "RAW_TEST_KEY"}
  },
  "agents": {
    "coder": {
      "model": "fake-chat",
      "system_prompt": "You are a test agent.",
      "max_steps": 8,
      "tools": {"use": ["builtin/bash", "builtin/write_file", "builtin/read_file"]},
      "approval_mode": "allow_all",
      "compact": {"keep_recent_turns": 1}
    }
  },
  "tools": {"bash": {"timeout_seconds": 30}}
})";
  return absl::StrReplaceAll(kConfig, {{"${BASE}", base_url}});
}

}  // namespace raw::crash
