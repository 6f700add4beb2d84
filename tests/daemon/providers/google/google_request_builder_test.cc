// The Gemini request body: exact bytes for a full history (user text,
// assistant text with two calls and thought signatures, tool results with
// one failure), opaque replay rules, tool declarations, determinism and
// prefix stability.
#include "daemon/providers/google/request_builder.h"

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::providers::google {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

OrderedJson Parse(std::string_view text) {
  absl::StatusOr<OrderedJson> parsed = ParseOrderedJson(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : OrderedJson();
}

config::ModelConfig GeminiModel() {
  config::ModelConfig model;
  model.name = "gem";
  model.provider = "google";
  model.method = config::kMethodGoogleGenerateContent;
  model.model_id = "gemini-test";
  model.base_url = "http://127.0.0.1:9/v1beta";
  return model;
}

ToolDefinition ReadFileTool() {
  ToolDefinition tool;
  tool.name = "read_file";
  tool.description = "Read a file.";
  tool.parameters = Parse(
      R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",)"
      R"("properties":{"path":{"type":"string"}},"required":["path"],)"
      R"("additionalProperties":false})");
  return tool;
}

events::AssistantTurn TwoCallTurn() {
  events::AssistantTurn turn;
  turn.text = "Reading both.";
  turn.reasoning = "I should read a and b.";
  turn.tool_calls = {
      {"gemini-r1-0", "read_file", R"({"path":"a.txt","z":1,"a":2})"},
      {"gemini-r1-1", "read_file", R"({"path":"b.txt"})"},
  };
  turn.opaque = {
      {"google", "thought_signature", "thought", "SIGthought"},
      {"google", "thought_signature", "call:gemini-r1-0", "SIGcall0"},
      {"google", "thought_signature", "text", "SIGtext"},
      {"anthropic", "thinking_signature", "", "NOT-SENT"},
      {"google", "other_kind", "call:gemini-r1-1", "NOT-SENT"},
  };
  return turn;
}

std::vector<events::ContextItem> History() {
  return {
      events::UserText{"Compare a.txt and b.txt"},
      TwoCallTurn(),
      // Results arrive out of call order; they go back in call order.
      events::ToolOutcome{"gemini-r1-1", "read_file", "b.txt: no such file", true},
      events::ToolOutcome{"gemini-r1-0", "read_file", "alpha\n", false},
      events::UserText{"thanks"},
  };
}

TEST(GoogleRequestBuilderTest, ExactBodyForFullHistory) {
  ModelRequest request;
  request.system_prompt = "You are a coding agent.";
  request.tools = {ReadFileTool()};
  request.messages = History();
  config::ModelConfig model = GeminiModel();
  model.max_output_tokens = 1000;
  std::string expected =
      R"({"systemInstruction":{"parts":[{"text":"You are a coding agent."}]},)"
      R"("tools":[{"functionDeclarations":[{"name":"read_file","description":"Read a file.",)"
      R"("parameters":{"type":"OBJECT","properties":{"path":{"type":"STRING"}},"required":["path"]}}]}],)"
      R"("generationConfig":{"maxOutputTokens":1000,"thinkingConfig":{"includeThoughts":true}},)"
      R"("contents":[)"
      R"({"role":"user","parts":[{"text":"Compare a.txt and b.txt"}]},)"
      R"({"role":"model","parts":[)"
      R"({"text":"I should read a and b.","thought":true,"thoughtSignature":"SIGthought"},)"
      R"({"text":"Reading both.","thoughtSignature":"SIGtext"},)"
      R"({"functionCall":{"name":"read_file","args":{"path":"a.txt","z":1,"a":2}},"thoughtSignature":"SIGcall0"},)"
      R"({"functionCall":{"name":"read_file","args":{"path":"b.txt"}}}]},)"
      R"({"role":"user","parts":[)"
      R"({"functionResponse":{"name":"read_file","response":{"output":"alpha\n"}}},)"
      R"({"functionResponse":{"name":"read_file","response":{"error":"b.txt: no such file"}}}]},)"
      R"({"role":"user","parts":[{"text":"thanks"}]}]})";
  EXPECT_EQ(BuildRequestBody(request, model), expected);
}

TEST(GoogleRequestBuilderTest, MinimalBodyHasNoOptionalFields) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  EXPECT_EQ(BuildRequestBody(request, GeminiModel()),
            R"({"generationConfig":{"thinkingConfig":{"includeThoughts":true}},)"
            R"("contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
}

// thought_summaries "omit": a model without thinking refuses any
// thinkingConfig, so none is sent (nor an empty generationConfig).
TEST(GoogleRequestBuilderTest, ThoughtSummariesOmittedSendsNoThinkingConfig) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  config::ModelConfig model = GeminiModel();
  model.include_thoughts = false;
  EXPECT_EQ(BuildRequestBody(request, model),
            R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
  model.max_output_tokens = 100;
  EXPECT_EQ(BuildRequestBody(request, model),
            R"({"generationConfig":{"maxOutputTokens":100},)"
            R"("contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
}

// A summary's thinking counts against its maxOutputTokens: a summary
// request bounds it instead of asking for thought summaries, and still
// sends no thinkingConfig to a model without thinking.
TEST(GoogleRequestBuilderTest, SummaryRequestBoundsThinkingInsteadOfAskingForSummaries) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  request.summary = true;
  config::ModelConfig model = GeminiModel();
  model.max_output_tokens = 8704;
  EXPECT_EQ(
      BuildRequestBody(request, model),
      R"({"generationConfig":{"maxOutputTokens":8704,"thinkingConfig":{"thinkingBudget":512}},)"
      R"("contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
  model.include_thoughts = false;
  EXPECT_EQ(BuildRequestBody(request, model),
            R"({"generationConfig":{"maxOutputTokens":8704},)"
            R"("contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
}

TEST(GoogleRequestBuilderTest, ProviderChosenCallIdsAreEchoed) {
  events::AssistantTurn turn;
  turn.tool_calls = {{"fc-7", "run", ""}};
  std::vector<events::ContextItem> history = {
      turn, events::ToolOutcome{"fc-7", "run", "ok", false}};
  EXPECT_EQ(DumpJson(HistoryToContents(history)),
            R"([{"role":"model","parts":[{"functionCall":{"id":"fc-7","name":"run","args":{}}}]},)"
            R"({"role":"user","parts":[{"functionResponse":{"id":"fc-7","name":"run",)"
            R"("response":{"output":"ok"}}}]}])");
}

TEST(GoogleRequestBuilderTest, SignatureWithoutTextIsATrailingEmptyTextPart) {
  events::AssistantTurn turn;
  turn.tool_calls = {{"gemini-x-0", "run", "{}"}};
  turn.opaque = {{"google", "thought_signature", "text", "S"}};
  EXPECT_EQ(DumpJson(HistoryToContents({turn})),
            R"([{"role":"model","parts":[{"functionCall":{"name":"run","args":{}}},)"
            R"({"text":"","thoughtSignature":"S"}]}])");
}

TEST(GoogleRequestBuilderTest, EmptyTurnStillHasAPart) {
  EXPECT_EQ(DumpJson(HistoryToContents({events::AssistantTurn{}})),
            R"([{"role":"model","parts":[{"text":""}]}])");
}

TEST(GoogleRequestBuilderTest, InvalidStoredArgumentsBecomeEmptyObject) {
  events::AssistantTurn turn;
  turn.tool_calls = {{"gemini-x-0", "run", "{\"a\":"}, {"gemini-x-1", "run", "[1]"}};
  std::string json = DumpJson(HistoryToContents({turn}));
  EXPECT_THAT(json, HasSubstr(R"({"functionCall":{"name":"run","args":{}}},)"
                              R"({"functionCall":{"name":"run","args":{}}})"));
}

TEST(GoogleRequestBuilderTest, OtherProvidersBlobsAreNeverSent) {
  events::AssistantTurn turn;
  turn.text = "t";
  turn.opaque = {{"deepseek", "thought_signature", "text", "X"},
                 {"google", "reasoning_content", "text", "Y"}};
  std::string json = DumpJson(HistoryToContents({turn}));
  EXPECT_EQ(json, R"([{"role":"model","parts":[{"text":"t"}]}])");
}

TEST(GoogleRequestBuilderTest, ToolWithoutParametersOmitsThem) {
  ToolDefinition tool{"now", "Current time.", Parse(R"({"type":"object","properties":{}})")};
  EXPECT_EQ(DumpJson(ToolToDeclaration(tool)), R"({"name":"now","description":"Current time."})");
  ToolDefinition bare{"now", "Current time.", OrderedJson()};
  EXPECT_EQ(DumpJson(ToolToDeclaration(bare)), R"({"name":"now","description":"Current time."})");
}

TEST(GoogleRequestBuilderTest, DeterministicAndPrefixStable) {
  ModelRequest request;
  request.system_prompt = "sys";
  request.tools = {ReadFileTool()};
  std::vector<events::ContextItem> history = History();
  std::string previous;
  int compared = 0;
  for (size_t n = 1; n <= history.size(); ++n) {
    request.messages.assign(history.begin(), history.begin() + static_cast<long>(n));
    std::string body = BuildRequestBody(request, GeminiModel());
    EXPECT_EQ(body, BuildRequestBody(request, GeminiModel())) << "not deterministic";
    // A run of tool results is one content, so a second result of the same
    // run rewrites it; the loop appends a step's results all at once, so
    // such a partial run is never sent.
    bool extends_a_run = n >= 2 && std::holds_alternative<events::ToolOutcome>(history[n - 1]) &&
                         std::holds_alternative<events::ToolOutcome>(history[n - 2]);
    if (!previous.empty() && !extends_a_run) {
      // Everything up to the end of the previous contents is unchanged.
      std::string stem = previous.substr(0, previous.size() - 2);  // drop "]}"
      EXPECT_THAT(body, StartsWith(stem)) << "after " << n << " items";
      ++compared;
    }
    previous = body;
  }
  EXPECT_EQ(compared, 3);
}

TEST(GoogleRequestBuilderTest, CommittedPartsAreIdenticalInEveryRequest) {
  ModelRequest first;
  first.system_prompt = "sys";
  first.tools = {ReadFileTool()};
  first.messages = {History()[0], History()[1]};
  ModelRequest second = first;
  second.messages = History();
  std::string a = BuildRequestBody(first, GeminiModel());
  std::string b = BuildRequestBody(second, GeminiModel());
  ASSERT_THAT(b, StartsWith(a.substr(0, a.size() - 2)));
  EXPECT_THAT(a, Not(HasSubstr("NOT-SENT")));
  EXPECT_THAT(b, Not(HasSubstr("cache")));
}

}  // namespace
}  // namespace raw::providers::google
