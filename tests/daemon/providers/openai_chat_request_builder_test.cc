#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "daemon/providers/openai_chat/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/merged_history.h"

namespace raw::providers::openai_chat {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string Message(const events::ContextItem& item, bool send_reasoning_content = false) {
  std::string out;
  AppendMessage(item, send_reasoning_content, &out);
  return out;
}

// The message as a document built with nlohmann and dumped, as the builder
// once made it: the oracle for the message written directly.
OrderedJson ReferenceMessage(const events::ContextItem& item, bool send_reasoning_content) {
  OrderedJson message = OrderedJson::object();
  if (const auto* user = std::get_if<events::UserText>(&item)) {
    message["role"] = "user";
    message["content"] = user->text;
  } else if (const auto* turn = std::get_if<events::AssistantTurn>(&item)) {
    message["role"] = "assistant";
    if (turn->text.empty() && !turn->tool_calls.empty()) {
      message["content"] = nullptr;
    } else {
      message["content"] = turn->text;
    }
    if (send_reasoning_content && !turn->tool_calls.empty()) {
      message["reasoning_content"] = turn->reasoning;
    }
    if (!turn->tool_calls.empty()) {
      OrderedJson calls = OrderedJson::array();
      for (const events::ToolCallRequest& call : turn->tool_calls) {
        OrderedJson entry = OrderedJson::object();
        entry["id"] = call.call_id;
        entry["type"] = "function";
        entry["function"] = OrderedJson{{"name", call.name}, {"arguments", call.arguments}};
        calls.push_back(std::move(entry));
      }
      message["tool_calls"] = std::move(calls);
    }
  } else {
    const auto& outcome = std::get<events::ToolOutcome>(item);
    message["role"] = "tool";
    message["tool_call_id"] = outcome.call_id;
    message["content"] = outcome.is_error ? "Error: " + outcome.content : outcome.content;
  }
  return message;
}

TEST(OpenAiChatRequestBuilderTest, AMessageWrittenDirectlyIsTheDocumentDumped) {
  const std::vector<events::ContextItem> items = {
      events::UserText{"plain"},
      events::UserText{"controls \x01\t\n \"quotes\" \\ caf\xC3\xA9 \xF0\x9F\x98\x80"},
      events::UserText{"not UTF-8 \xFF\xC3("},
      events::UserText{""},
      events::AssistantTurn{"text", "why", {}, {}},
      events::AssistantTurn{"", "why", {{"c1", "ls", R"({"dir":"."})"}, {"c\"2", "x", ""}}, {}},
      events::AssistantTurn{"both", "", {{"c1", "read_file", "{\n \"path\": \"a\"}"}}, {}},
      events::AssistantTurn{},
      events::ToolOutcome{"c1", "ls", "a\nb", false},
      events::ToolOutcome{"c2", "x", "boom \x7f", true},
  };
  for (const events::ContextItem& item : items) {
    for (bool reasoning : {false, true}) {
      EXPECT_EQ(Message(item, reasoning), DumpJson(ReferenceMessage(item, reasoning)));
    }
  }
}

config::ModelConfig ChatModel() {
  config::ModelConfig model;
  model.name = "gpt";
  model.provider = "openai";
  model.method = config::kMethodOpenAiChat;
  model.model_id = "gpt-test";
  model.base_url = "https://api.openai.com/v1";
  return model;
}

ToolDefinition ReadFileTool() {
  ToolDefinition tool;
  tool.name = "read_file";
  tool.description = "Read a file.";
  tool.parameters = *ParseOrderedJson(
      R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})");
  return tool;
}

events::AssistantTurn CallsTwoFiles() {
  events::AssistantTurn turn;
  turn.reasoning = "not sent back";
  turn.tool_calls = {{"call_A", "read_file", R"({"path":"a.txt"})"},
                     {"call_B", "read_file", "{\"path\": \"b.txt\" , \"n\":1e2}"}};
  return turn;
}

ModelRequest Conversation() {
  ModelRequest request;
  request.system_prompt = "You are a coding agent.";
  request.tools = {ReadFileTool()};
  request.messages = {
      events::UserText{"Compare a.txt and b.txt"},
      CallsTwoFiles(),
      events::ToolOutcome{"call_A", "read_file", "alpha\n", false},
      events::ToolOutcome{"call_B", "read_file", "b.txt: no such file", true},
      events::AssistantTurn{"They differ: b.txt is missing.", "", {}, {}},
  };
  return request;
}

TEST(OpenAiChatRequestBuilderTest, BuildsTheDocumentedBody) {
  config::ModelConfig model = ChatModel();
  model.max_output_tokens = 8192;
  model.max_tokens_field = "max_completion_tokens";
  model.system_role = "developer";
  std::string body = BuildRequestBody(Conversation(), model, "session-key");
  EXPECT_EQ(
      body,
      R"({"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},)"
      R"("max_completion_tokens":8192,"prompt_cache_key":"session-key",)"
      R"("tools":[{"type":"function","function":{"name":"read_file","description":"Read a file.",)"
      R"("parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],)"
      R"("messages":[{"role":"developer","content":"You are a coding agent."},)"
      R"({"role":"user","content":"Compare a.txt and b.txt"},)"
      R"({"role":"assistant","content":null,"tool_calls":[)"
      R"({"id":"call_A","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}},)"
      R"({"id":"call_B","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"b.txt\" , \"n\":1e2}"}}]},)"
      R"({"role":"tool","tool_call_id":"call_A","content":"alpha\n"},)"
      R"({"role":"tool","tool_call_id":"call_B","content":"Error: b.txt: no such file"},)"
      R"({"role":"assistant","content":"They differ: b.txt is missing."}]})");
}

TEST(OpenAiChatRequestBuilderTest, SameInputGivesTheSameBytes) {
  EXPECT_EQ(BuildRequestBody(Conversation(), ChatModel(), std::nullopt),
            BuildRequestBody(Conversation(), ChatModel(), std::nullopt));
}

TEST(OpenAiChatRequestBuilderTest, AppendedHistoryKeepsThePreviousMessagesAsPrefix) {
  ModelRequest request = Conversation();
  request.messages.resize(1);
  std::vector<std::string> bodies;
  bodies.push_back(BuildRequestBody(request, ChatModel(), "k"));
  const std::vector<events::ContextItem> all = Conversation().messages;
  for (size_t i = 1; i < all.size(); ++i) {
    const events::ContextItem& item = all[i];
    request.messages.push_back(item);
    bodies.push_back(BuildRequestBody(request, ChatModel(), "k"));
  }
  for (size_t i = 1; i < bodies.size(); ++i) {
    // "messages" is the last key: the previous body minus its closing "]}"
    // starts the next one, byte for byte.
    std::string previous = bodies[i - 1].substr(0, bodies[i - 1].size() - 2);
    EXPECT_THAT(bodies[i], StartsWith(previous)) << "request " << i;
    EXPECT_GT(bodies[i].size(), bodies[i - 1].size());
  }
}

TEST(OpenAiChatRequestBuilderTest, EachItemSerializesTheSameWayEveryTime) {
  for (const events::ContextItem& item : Conversation().messages) {
    EXPECT_EQ(Message(item), Message(item));
  }
  EXPECT_EQ(Message(events::UserText{"h\xC3\xA9 \"q\""}),
            "{\"role\":\"user\",\"content\":\"h\xC3\xA9 \\\"q\\\"\"}");
}

TEST(OpenAiChatRequestBuilderTest, OptionalPartsAreLeftOut) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  std::string body = BuildRequestBody(request, ChatModel(), std::nullopt);
  EXPECT_EQ(body,
            R"({"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},)"
            R"("messages":[{"role":"user","content":"hi"}]})");
  EXPECT_THAT(body, Not(HasSubstr("tools")));
  EXPECT_THAT(body, Not(HasSubstr("max_tokens")));
  EXPECT_THAT(BuildRequestBody(request, ChatModel(), ""), Not(HasSubstr("prompt_cache_key")));
}

TEST(OpenAiChatRequestBuilderTest, OutputCapUsesTheConfiguredField) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  config::ModelConfig model = ChatModel();
  model.max_output_tokens = 100;
  EXPECT_THAT(BuildRequestBody(request, model, std::nullopt), HasSubstr(R"("max_tokens":100)"));
  model.max_tokens_field = "max_completion_tokens";
  std::string body = BuildRequestBody(request, model, std::nullopt);
  EXPECT_THAT(body, HasSubstr(R"("max_completion_tokens":100)"));
  EXPECT_THAT(body, Not(HasSubstr(R"("max_tokens")")));
}

TEST(OpenAiChatRequestBuilderTest, SystemRoleAndEmptySystemPrompt) {
  ModelRequest request;
  request.system_prompt = "be brief";
  request.messages = {events::UserText{"hi"}};
  EXPECT_THAT(BuildRequestBody(request, ChatModel(), std::nullopt),
              HasSubstr(R"("messages":[{"role":"system","content":"be brief"},)"));
  request.system_prompt.clear();
  EXPECT_THAT(BuildRequestBody(request, ChatModel(), std::nullopt),
              HasSubstr(R"("messages":[{"role":"user","content":"hi"}])"));
}

TEST(OpenAiChatRequestBuilderTest, ToolWithoutSchemaGetsAnEmptyObjectSchema) {
  ModelRequest request;
  ToolDefinition tool;
  tool.name = "now";
  tool.description = "Current time.";
  request.tools = {tool};
  request.messages = {events::UserText{"time?"}};
  EXPECT_THAT(BuildRequestBody(request, ChatModel(), std::nullopt),
              HasSubstr(R"("parameters":{"type":"object","properties":{}})"));
}

TEST(OpenAiChatRequestBuilderTest, AssistantTextWithCallsKeepsBoth) {
  events::AssistantTurn turn = CallsTwoFiles();
  turn.text = "Reading both.";
  std::string message = Message(turn);
  EXPECT_THAT(message, StartsWith(R"({"role":"assistant","content":"Reading both.","tool_calls":[)"));
  EXPECT_THAT(message, Not(HasSubstr("not sent back")));
}

// DeepSeek-style history: a reasoned tool call, a tool call with no
// reasoning, then a reasoned final answer.
ModelRequest ThinkingConversation() {
  ModelRequest request;
  request.messages = {
      events::UserText{"Compare a.txt and b.txt"},
      events::AssistantTurn{"", "Read a first.", {{"call_A", "read_file", R"({"path":"a.txt"})"}}, {}},
      events::ToolOutcome{"call_A", "read_file", "alpha\n", false},
      events::AssistantTurn{"Now b.", "", {{"call_B", "read_file", R"({"path":"b.txt"})"}}, {}},
      events::ToolOutcome{"call_B", "read_file", "beta\n", false},
      events::AssistantTurn{"They differ.", "alpha vs beta", {}, {}},
  };
  return request;
}

config::ModelConfig SendsReasoning() {
  config::ModelConfig model = ChatModel();
  model.model_id = "deepseek-v4";
  model.send_reasoning_content = true;
  return model;
}

TEST(OpenAiChatRequestBuilderTest, SendsReasoningContentOnEveryToolCallingMessageWhenSet) {
  EXPECT_EQ(
      BuildRequestBody(ThinkingConversation(), SendsReasoning(), std::nullopt),
      R"({"model":"deepseek-v4","stream":true,"stream_options":{"include_usage":true},)"
      R"("messages":[{"role":"user","content":"Compare a.txt and b.txt"},)"
      R"({"role":"assistant","content":null,"reasoning_content":"Read a first.","tool_calls":[)"
      R"({"id":"call_A","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}}]},)"
      R"({"role":"tool","tool_call_id":"call_A","content":"alpha\n"},)"
      // No reasoning in that turn: the field is still there, empty.
      R"({"role":"assistant","content":"Now b.","reasoning_content":"","tool_calls":[)"
      R"({"id":"call_B","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.txt\"}"}}]},)"
      R"({"role":"tool","tool_call_id":"call_B","content":"beta\n"},)"
      // A message without tool calls never carries reasoning.
      R"({"role":"assistant","content":"They differ."}]})");
}

TEST(OpenAiChatRequestBuilderTest, NeverSendsReasoningWhenNotSet) {
  std::string body = BuildRequestBody(ThinkingConversation(), ChatModel(), std::nullopt);
  EXPECT_THAT(body, Not(HasSubstr("reasoning")));
  EXPECT_THAT(body, Not(HasSubstr("Read a first.")));
  EXPECT_THAT(body, Not(HasSubstr("alpha vs beta")));
  EXPECT_THAT(body, HasSubstr(R"({"role":"assistant","content":"Now b.","tool_calls":[)"));
  for (const events::ContextItem& item : ThinkingConversation().messages) {
    EXPECT_THAT(Message(item), Not(HasSubstr("reasoning")));
  }
}

TEST(OpenAiChatRequestBuilderTest, ReasoningContentKeepsTheHistoryPrefixStable) {
  const config::ModelConfig model = SendsReasoning();
  const std::vector<events::ContextItem> all = ThinkingConversation().messages;
  ModelRequest request;
  std::string previous;
  for (const events::ContextItem& item : all) {
    request.messages.push_back(item);
    std::string body = BuildRequestBody(request, model, "k");
    EXPECT_EQ(body, BuildRequestBody(request, model, "k"));
    if (!previous.empty()) {
      EXPECT_THAT(body, StartsWith(previous.substr(0, previous.size() - 2)));
    }
    EXPECT_EQ(Message(item, true),
              Message(item, true));
    previous = std::move(body);
  }
}

}  // namespace
}  // namespace raw::providers::openai_chat

namespace raw::providers::openai_chat {
namespace {

std::vector<events::ContextItem> History() {
  events::AssistantTurn calls;
  calls.reasoning = "thinking about it";
  calls.tool_calls = {{"call_A", "read_file", R"({"path":"a.txt"})"}};
  return {events::UserText{"first \"quoted\" question"},
          calls,
          events::ToolOutcome{"call_A", "read_file", "file text", false},
          events::AssistantTurn{"an answer", "", {}, {}},
          events::UserText{"next question"},
          events::AssistantTurn{"another answer \xe2\x80\x94 with UTF-8", "", {}, {}}};
}

ModelRequest Request(const std::vector<events::ContextItem>& items, SerializedHistory* history,
                     uint64_t generation) {
  return testing::HistoryRequest(items, history, generation);
}

// Each request of a growing history reuses the text of the items before:
// the body is byte for byte the one built from scratch.
TEST(RequestBuilderHistoryTest, BodiesBuiltFromTheKeptHistoryEqualFreshOnes) {
  const std::vector<events::ContextItem> all = History();
  for (bool reasoning : {false, true}) {
    config::ModelConfig model = ChatModel();
    model.send_reasoning_content = reasoning;
    SerializedHistory history;
    const uint64_t generation = NewHistoryGeneration();
    for (size_t n = 0; n <= all.size(); ++n) {
      std::vector<events::ContextItem> items(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
      const std::string fresh = BuildRequestBody(Request(items, nullptr, 0), model, std::nullopt);
      EXPECT_EQ(BuildRequestBody(Request(items, &history, generation), model, std::nullopt), fresh)
          << n;
      EXPECT_EQ(history.items(), n);
      EXPECT_TRUE(ParseJson(fresh).ok()) << fresh;
    }
  }
}

// A new generation (a rewritten context), another format (a setting that
// changes the bytes) or fewer items than were kept never reuse the text.
TEST(RequestBuilderHistoryTest, ARewrittenContextOrAnotherFormatStartsAfresh) {
  const std::vector<events::ContextItem> all = History();
  config::ModelConfig model = ChatModel();
  SerializedHistory history;
  const uint64_t first = NewHistoryGeneration();
  (void)BuildRequestBody(Request(all, &history, first), model, std::nullopt);

  // The same number of items, other content: a compaction's summary.
  std::vector<events::ContextItem> rewritten(all.size(), events::UserText{"summary"});
  const uint64_t second = NewHistoryGeneration();
  EXPECT_NE(second, first);
  EXPECT_EQ(BuildRequestBody(Request(rewritten, &history, second), model, std::nullopt),
            BuildRequestBody(Request(rewritten, nullptr, 0), model, std::nullopt));

  model.send_reasoning_content = true;
  EXPECT_EQ(BuildRequestBody(Request(rewritten, &history, second), model, std::nullopt),
            BuildRequestBody(Request(rewritten, nullptr, 0), model, std::nullopt));

  std::vector<events::ContextItem> shorter(all.begin(), all.begin() + 2);
  EXPECT_EQ(BuildRequestBody(Request(shorter, &history, second), model, std::nullopt),
            BuildRequestBody(Request(shorter, nullptr, 0), model, std::nullopt));
  EXPECT_EQ(history.items(), 2u);
}

TEST(SerializedHistoryTest, OnlyTheItemsAfterTheKeptOnesAreSerialized) {
  std::vector<events::ContextItem> items = History();
  SerializedHistory history;
  int calls = 0;
  auto one = [&calls](const events::ContextItem&, std::string* out) {
    ++calls;
    out->append("x");
  };
  const uint64_t generation = NewHistoryGeneration();
  EXPECT_EQ(*history.Join("f", generation, items, one), "x,x,x,x,x,x");
  EXPECT_EQ(calls, 6);
  items.push_back(events::UserText{"more"});
  EXPECT_EQ(*history.Join("f", generation, items, one), "x,x,x,x,x,x,x");
  EXPECT_EQ(calls, 7);
  // An item with nothing to send adds no separator.
  auto nothing_for_more = [&calls](const events::ContextItem& item, std::string* out) {
    ++calls;
    if (!std::holds_alternative<events::UserText>(item) ||
        std::get<events::UserText>(item).text != "more") {
      out->append("x");
    }
  };
  SerializedHistory other;
  EXPECT_EQ(*other.Join("f", generation, items, nothing_for_more), "x,x,x,x,x,x");
  calls = 7;
  // Generation 0 keeps nothing.
  EXPECT_EQ(*history.Join("f", 0, items, one), "x,x,x,x,x,x,x");
  EXPECT_EQ(calls, 14);
  EXPECT_EQ(*history.Join("f", 0, items, one), "x,x,x,x,x,x,x");
  EXPECT_EQ(calls, 21);
}

TEST(SerializedHistoryTest, TextARequestHoldsNeverChanges) {
  std::vector<events::ContextItem> items = History();
  SerializedHistory history;
  auto one = [](const events::ContextItem&, std::string* out) { out->append("x"); };
  const uint64_t generation = NewHistoryGeneration();
  std::shared_ptr<const std::string> held = history.Join("f", generation, items, one);
  items.push_back(events::UserText{"more"});
  std::shared_ptr<const std::string> next = history.Join("f", generation, items, one);
  EXPECT_EQ(*held, "x,x,x,x,x,x");
  EXPECT_EQ(*next, "x,x,x,x,x,x,x");
  EXPECT_NE(next.get(), held.get());
  // Once nobody else holds it, the kept text grows where it is.
  const std::string* kept = next.get();
  held.reset();
  next.reset();
  items.push_back(events::UserText{"again"});
  next = history.Join("f", generation, items, one);
  EXPECT_EQ(*next, "x,x,x,x,x,x,x,x");
  EXPECT_EQ(next.get(), kept);
}

}  // namespace
}  // namespace raw::providers::openai_chat
