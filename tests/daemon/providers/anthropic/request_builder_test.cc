#include "daemon/providers/anthropic/request_builder.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::providers::anthropic {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

config::ModelConfig BuilderModel() {
  config::ModelConfig model;
  model.name = "claude";
  model.provider = "anthropic";
  model.method = config::kMethodAnthropicMessages;
  model.model_id = "claude-test";
  model.base_url = "https://api.anthropic.com/v1";
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

// An answer with thinking (signature, in the shape the decoder stores it),
// text and two calls.
events::AssistantTurn CallsTwoFiles() {
  events::AssistantTurn turn;
  turn.reasoning = "I need both files.";
  turn.text = "Reading both files.";
  turn.tool_calls = {{"toolu_01A", "read_file", R"({"path": "a.txt"})"},
                     {"toolu_01B", "read_file", "{\"path\":\"b.txt\",\"n\":1e2}"}};
  turn.opaque = {{"anthropic", "thinking_signature", "18", "EqQBCkYIARgC"}};
  return turn;
}

ModelRequest Conversation() {
  ModelRequest request;
  request.system_prompt = "You are a coding agent.";
  request.tools = {ReadFileTool()};
  request.messages = {
      events::UserText{"Compare a.txt and b.txt"},
      CallsTwoFiles(),
      events::ToolOutcome{"toolu_01A", "read_file", "alpha\n", false},
      events::ToolOutcome{"toolu_01B", "read_file", "b.txt: no such file", true},
      events::AssistantTurn{"They differ: b.txt is missing.", "", {}, {}},
      events::UserText{"Thanks."},
  };
  return request;
}

TEST(AnthropicRequestBuilderTest, BuildsTheDocumentedBody) {
  config::ModelConfig model = BuilderModel();
  model.max_output_tokens = 16000;
  EXPECT_EQ(
      BuildRequestBody(Conversation(), model, CacheRetention::k5m),
      R"({"model":"claude-test","max_tokens":16000,"stream":true,)"
      R"("cache_control":{"type":"ephemeral"},"system":"You are a coding agent.",)"
      R"("tools":[{"name":"read_file","description":"Read a file.",)"
      R"("input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}],)"
      R"("messages":[{"role":"user","content":[{"type":"text","text":"Compare a.txt and b.txt"}]},)"
      R"({"role":"assistant","content":[)"
      R"({"type":"thinking","thinking":"I need both files.","signature":"EqQBCkYIARgC"},)"
      R"({"type":"text","text":"Reading both files."},)"
      R"({"type":"tool_use","id":"toolu_01A","name":"read_file","input":{"path":"a.txt"}},)"
      R"({"type":"tool_use","id":"toolu_01B","name":"read_file","input":{"path":"b.txt","n":100.0}}]},)"
      R"({"role":"user","content":[)"
      R"({"type":"tool_result","tool_use_id":"toolu_01A","content":"alpha\n"},)"
      R"({"type":"tool_result","tool_use_id":"toolu_01B","content":"b.txt: no such file","is_error":true}]},)"
      R"({"role":"assistant","content":[{"type":"text","text":"They differ: b.txt is missing."}]},)"
      R"({"role":"user","content":[{"type":"text","text":"Thanks."}]}]})");
}

TEST(AnthropicRequestBuilderTest, OneHourRetentionAndDefaultMaxTokens) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  EXPECT_EQ(BuildRequestBody(request, BuilderModel(), CacheRetention::k1h),
            R"({"model":"claude-test","max_tokens":8192,"stream":true,)"
            R"("cache_control":{"type":"ephemeral","ttl":"1h"},)"
            R"("messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]})");
}

// Nothing sends a summary request's prefix again: a cache write would be
// paid for and never read.
TEST(AnthropicRequestBuilderTest, SummaryRequestHasNoCacheControl) {
  ModelRequest request;
  request.system_prompt = "Summarize.";
  request.messages = {events::UserText{"Transcript"}};
  request.summary = true;
  for (CacheRetention retention : {CacheRetention::k5m, CacheRetention::k1h}) {
    EXPECT_EQ(BuildRequestBody(request, BuilderModel(), retention),
              R"({"model":"claude-test","max_tokens":8192,"stream":true,"system":"Summarize.",)"
              R"("messages":[{"role":"user","content":[{"type":"text","text":"Transcript"}]}]})");
  }
}

TEST(AnthropicRequestBuilderTest, ParseCacheRetention) {
  EXPECT_EQ(*ParseCacheRetention("5m"), CacheRetention::k5m);
  EXPECT_EQ(*ParseCacheRetention("1h"), CacheRetention::k1h);
  absl::StatusOr<CacheRetention> bad = ParseCacheRetention("30m");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown cache retention \"30m\" (expected \"5m\" or \"1h\")");
}

TEST(AnthropicRequestBuilderTest, SameInputGivesTheSameBytes) {
  EXPECT_EQ(BuildRequestBody(Conversation(), BuilderModel(), CacheRetention::k5m),
            BuildRequestBody(Conversation(), BuilderModel(), CacheRetention::k5m));
}

// Removes the closing brackets at the end of a body.
std::string WithoutClosers(std::string body) {
  while (!body.empty() && (body.back() == ']' || body.back() == '}')) body.pop_back();
  return body;
}

TEST(AnthropicRequestBuilderTest, AppendedHistoryKeepsThePreviousBytesAsPrefix) {
  ModelRequest request = Conversation();
  const std::vector<events::ContextItem> all = request.messages;
  request.messages.resize(1);
  std::vector<std::string> bodies = {
      BuildRequestBody(request, BuilderModel(), CacheRetention::k5m)};
  for (size_t i = 1; i < all.size(); ++i) {
    request.messages.push_back(all[i]);
    bodies.push_back(BuildRequestBody(request, BuilderModel(), CacheRetention::k5m));
  }
  for (size_t i = 1; i < bodies.size(); ++i) {
    EXPECT_THAT(bodies[i], StartsWith(WithoutClosers(bodies[i - 1]))) << "request " << i;
    EXPECT_GT(bodies[i].size(), bodies[i - 1].size());
  }
  // The system prompt and tools come first and never change.
  std::string head = bodies[0].substr(0, bodies[0].find("\"messages\""));
  for (const std::string& body : bodies) EXPECT_THAT(body, StartsWith(head));
}

TEST(AnthropicRequestBuilderTest, ThinkingBlocksReplayInOrderOnlyForAnthropic) {
  events::AssistantTurn turn;
  turn.reasoning = "firstsecond";
  turn.text = "Done.";
  turn.opaque = {
      {"anthropic", "redacted_thinking", "", "REDACTED=="},
      {"anthropic", "thinking_signature", "5", "S1"},
      {"deepseek", "reasoning_content", "", "not ours"},
      {"anthropic", "some_future_kind", "", "unknown"},
      {"anthropic", "thinking_signature", "6", "S2"},
  };
  EXPECT_EQ(DumpJson(BuildMessages({events::UserText{"q"}, turn})[1]),
            R"({"role":"assistant","content":[)"
            R"({"type":"redacted_thinking","data":"REDACTED=="},)"
            R"({"type":"thinking","thinking":"first","signature":"S1"},)"
            R"({"type":"thinking","thinking":"second","signature":"S2"},)"
            R"({"type":"text","text":"Done."}]})");
}

TEST(AnthropicRequestBuilderTest, ThinkingWithoutAUsableLengthTakesTheRest) {
  events::AssistantTurn turn;
  turn.reasoning = "all of it";
  turn.opaque = {{"anthropic", "thinking_signature", "", "S"}};
  turn.tool_calls = {{"toolu_1", "now", ""}};
  EXPECT_EQ(DumpJson(BuildMessages({turn})[0]),
            R"({"role":"assistant","content":[)"
            R"({"type":"thinking","thinking":"all of it","signature":"S"},)"
            R"({"type":"tool_use","id":"toolu_1","name":"now","input":{}}]})");
  turn.opaque[0].id = "999";  // longer than the text: the rest
  EXPECT_THAT(DumpJson(BuildMessages({turn})[0]), HasSubstr(R"("thinking":"all of it")"));
}

TEST(AnthropicRequestBuilderTest, ArgumentsThatAreNotAnObjectBecomeAnEmptyInput) {
  events::AssistantTurn turn;
  turn.tool_calls = {
      {"toolu_1", "run", R"({"cmd": "ls)"}, {"toolu_2", "run", "[1]"}, {"toolu_3", "run", "  "}};
  std::string message = DumpJson(BuildMessages({turn})[0]);
  EXPECT_EQ(message, R"({"role":"assistant","content":[)"
                     R"({"type":"tool_use","id":"toolu_1","name":"run","input":{}},)"
                     R"({"type":"tool_use","id":"toolu_2","name":"run","input":{}},)"
                     R"({"type":"tool_use","id":"toolu_3","name":"run","input":{}}]})");
}

TEST(AnthropicRequestBuilderTest, ToolResultsComeFirstInTheUserMessage) {
  std::vector<events::ContextItem> items = {
      events::UserText{"go"},
      events::AssistantTurn{"", "", {{"toolu_1", "run", "{}"}}, {}},
      events::ToolOutcome{"toolu_1", "run", "", false},
      events::UserText{"and then?"},
  };
  OrderedJson messages = BuildMessages(items);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(DumpJson(messages[2]),
            R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1"},)"
            R"({"type":"text","text":"and then?"}]})");
}

TEST(AnthropicRequestBuilderTest, EmptyItemsAreLeftOut) {
  std::vector<events::ContextItem> items = {
      events::UserText{"hi"},
      events::AssistantTurn{},
      events::UserText{""},
  };
  EXPECT_EQ(DumpJson(BuildMessages(items)),
            R"([{"role":"user","content":[{"type":"text","text":"hi"}]}])");
}

// The API refuses text blocks of only whitespace ("text content blocks must
// contain non-whitespace text"), so a model's "\n\n" before its calls is
// left out of the request; the call and a message with nothing else to send
// are kept or left out as for empty text.
TEST(AnthropicRequestBuilderTest, BlankTextIsLeftOutAsEmptyTextIs) {
  events::AssistantTurn calls;
  calls.text = "\n\n";
  calls.tool_calls = {{"toolu_01A", "read_file", R"({"path":"a.txt"})"}};
  std::vector<events::ContextItem> items = {
      events::UserText{"read a.txt"},
      calls,
      events::ToolOutcome{"toolu_01A", "read_file", "alpha", false},
      events::AssistantTurn{" \t\n", "", {}, {}},
      events::UserText{"  "},
  };
  EXPECT_EQ(DumpJson(BuildMessages(items)),
            R"([{"role":"user","content":[{"type":"text","text":"read a.txt"}]},)"
            R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A",)"
            R"("name":"read_file","input":{"path":"a.txt"}}]},)"
            R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A",)"
            R"("content":"alpha"}]}])");
}

TEST(AnthropicRequestBuilderTest, ToolWithoutSchemaGetsAnEmptyObjectSchema) {
  ModelRequest request;
  ToolDefinition tool;
  tool.name = "now";
  tool.description = "Current time.";
  request.tools = {tool};
  request.messages = {events::UserText{"time?"}};
  std::string body = BuildRequestBody(request, BuilderModel(), CacheRetention::k5m);
  EXPECT_THAT(body, HasSubstr(R"("input_schema":{"type":"object","properties":{}})"));
  EXPECT_THAT(body, Not(HasSubstr("\"system\"")));
}

}  // namespace
}  // namespace raw::providers::anthropic
