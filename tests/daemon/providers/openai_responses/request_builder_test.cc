// The Responses request body: the exact bytes for a conversation with user
// text, reasoning replay, parallel calls and their outputs (one failed),
// determinism and prefix stability as the history grows.
#include "daemon/providers/openai_responses/request_builder.h"

#include <string>
#include <vector>

#include "common/json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::providers::openai_responses {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// An item's input items as a JSON array.
std::string Items(const events::ContextItem& item) {
  std::string out = "[";
  AppendInputItems(item, &out);
  return out + "]";
}

// The input items as documents built with nlohmann and dumped, as the
// builder once made them: the oracle for the items written directly.
OrderedJson ReferenceItems(const events::ContextItem& item) {
  auto message = [](const char* role, const char* part_type, const std::string& text) {
    OrderedJson m = OrderedJson::object();
    m["type"] = "message";
    m["role"] = role;
    m["content"] = OrderedJson::array({OrderedJson{{"type", part_type}, {"text", text}}});
    return m;
  };
  OrderedJson items = OrderedJson::array();
  if (const auto* user = std::get_if<events::UserText>(&item)) {
    items.push_back(message("user", "input_text", user->text));
  } else if (const auto* turn = std::get_if<events::AssistantTurn>(&item)) {
    if (turn->text.empty() && turn->tool_calls.empty()) return items;
    for (const events::OpaqueBlob& blob : turn->opaque) {
      if (blob.provider != kOpaqueProvider || blob.kind != kReasoningItemKind || blob.data.empty()) {
        continue;
      }
      OrderedJson reasoning = OrderedJson::object();
      reasoning["type"] = "reasoning";
      reasoning["summary"] = OrderedJson::array();
      reasoning["encrypted_content"] = blob.data;
      items.push_back(std::move(reasoning));
    }
    if (!turn->text.empty()) items.push_back(message("assistant", "output_text", turn->text));
    for (const events::ToolCallRequest& call : turn->tool_calls) {
      OrderedJson entry = OrderedJson::object();
      entry["type"] = "function_call";
      entry["call_id"] = call.call_id;
      entry["name"] = call.name;
      entry["arguments"] = call.arguments;
      items.push_back(std::move(entry));
    }
  } else {
    const auto& outcome = std::get<events::ToolOutcome>(item);
    OrderedJson entry = OrderedJson::object();
    entry["type"] = "function_call_output";
    entry["call_id"] = outcome.call_id;
    entry["output"] = outcome.is_error ? "Error: " + outcome.content : outcome.content;
    items.push_back(std::move(entry));
  }
  return items;
}

TEST(OpenAiResponsesRequestBuilderTest, ItemsWrittenDirectlyAreTheDocumentsDumped) {
  const events::OpaqueBlob reasoning{std::string(kOpaqueProvider), std::string(kReasoningItemKind),
                                     "rs_1", "gAAAA\"enc"};
  const std::vector<events::ContextItem> items = {
      events::UserText{"plain"},
      events::UserText{"controls \x01\t\n \"quotes\" \\ caf\xC3\xA9 \xF0\x9F\x98\x80"},
      events::UserText{"not UTF-8 \xFF\xC3("},
      events::AssistantTurn{"text", "why", {}, {reasoning}},
      events::AssistantTurn{"", "why", {{"c1", "ls", R"({"dir":".\"})"}, {"c2", "x", ""}}, {reasoning}},
      events::AssistantTurn{"", "", {}, {reasoning}},
      events::AssistantTurn{},
      events::ToolOutcome{"c1", "ls", "a\nb", false},
      events::ToolOutcome{"c2", "x", "boom", true},
  };
  for (const events::ContextItem& item : items) {
    EXPECT_EQ(Items(item), DumpJson(ReferenceItems(item)));
  }
}

config::ModelConfig ResponsesModel() {
  config::ModelConfig model;
  model.name = "gpt";
  model.provider = "openai";
  model.method = config::kMethodOpenAiResponses;
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
  turn.text = "Reading both.";
  turn.reasoning = "summary text, display only";
  turn.tool_calls = {{"call_A", "read_file", R"({"path":"a.txt"})"},
                     {"call_B", "read_file", "{\"path\": \"b.txt\" , \"n\":1e2}"}};
  turn.opaque = {
      events::OpaqueBlob{"openai-responses", "reasoning_item", "rs_01", "gAAAAB-enc"},
      // State of other providers is never sent here.
      events::OpaqueBlob{"deepseek", "reasoning_content", "", "not sent"},
      events::OpaqueBlob{"anthropic", "reasoning_item", "", "not sent either"},
  };
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
      events::UserText{"Create b.txt"},
  };
  return request;
}

TEST(OpenAiResponsesRequestBuilderTest, BuildsTheDocumentedBody) {
  config::ModelConfig model = ResponsesModel();
  model.max_output_tokens = 16000;
  std::string body = BuildRequestBody(Conversation(), model, "session-key");
  EXPECT_EQ(
      body,
      R"({"model":"gpt-test","stream":true,"store":false,"include":["reasoning.encrypted_content"],)"
      R"("instructions":"You are a coding agent.","max_output_tokens":16000,)"
      R"("prompt_cache_key":"session-key",)"
      R"("tools":[{"type":"function","name":"read_file","description":"Read a file.",)"
      R"("parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},)"
      R"("strict":false}],)"
      R"("input":[)"
      R"({"type":"message","role":"user","content":[{"type":"input_text","text":"Compare a.txt and b.txt"}]},)"
      R"({"type":"reasoning","summary":[],"encrypted_content":"gAAAAB-enc"},)"
      R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading both."}]},)"
      R"({"type":"function_call","call_id":"call_A","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},)"
      R"({"type":"function_call","call_id":"call_B","name":"read_file","arguments":"{\"path\": \"b.txt\" , \"n\":1e2}"},)"
      R"({"type":"function_call_output","call_id":"call_A","output":"alpha\n"},)"
      R"({"type":"function_call_output","call_id":"call_B","output":"Error: b.txt: no such file"},)"
      R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"They differ: b.txt is missing."}]},)"
      R"({"type":"message","role":"user","content":[{"type":"input_text","text":"Create b.txt"}]}]})");
}

TEST(OpenAiResponsesRequestBuilderTest, SameInputGivesTheSameBytes) {
  EXPECT_EQ(BuildRequestBody(Conversation(), ResponsesModel(), "k"),
            BuildRequestBody(Conversation(), ResponsesModel(), "k"));
}

TEST(OpenAiResponsesRequestBuilderTest, AppendedHistoryKeepsThePreviousInputAsPrefix) {
  ModelRequest request = Conversation();
  request.messages.resize(1);
  std::vector<std::string> bodies;
  bodies.push_back(BuildRequestBody(request, ResponsesModel(), "k"));
  const std::vector<events::ContextItem> all = Conversation().messages;
  for (size_t i = 1; i < all.size(); ++i) {
    request.messages.push_back(all[i]);
    bodies.push_back(BuildRequestBody(request, ResponsesModel(), "k"));
  }
  for (size_t i = 1; i < bodies.size(); ++i) {
    // "input" is the last key: the previous body minus its closing "]}"
    // starts the next one, byte for byte.
    std::string previous = bodies[i - 1].substr(0, bodies[i - 1].size() - 2);
    EXPECT_THAT(bodies[i], StartsWith(previous)) << "request " << i;
    EXPECT_GT(bodies[i].size(), bodies[i - 1].size());
  }
}

TEST(OpenAiResponsesRequestBuilderTest, EachItemSerializesTheSameWayEveryTime) {
  for (const events::ContextItem& item : Conversation().messages) {
    EXPECT_EQ(Items(item), Items(item));
  }
  EXPECT_EQ(Items(events::UserText{"h\xC3\xA9 \"q\""}),
            "[{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\","
            "\"text\":\"h\xC3\xA9 \\\"q\\\"\"}]}]");
}

TEST(OpenAiResponsesRequestBuilderTest, OptionalPartsAreLeftOut) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  std::string body = BuildRequestBody(request, ResponsesModel(), std::nullopt);
  EXPECT_EQ(body,
            R"({"model":"gpt-test","stream":true,"store":false,"include":["reasoning.encrypted_content"],)"
            R"("input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]})");
  EXPECT_THAT(BuildRequestBody(request, ResponsesModel(), ""), Not(HasSubstr("prompt_cache_key")));
}

TEST(OpenAiResponsesRequestBuilderTest, CallsOnlyTurnHasNoAssistantMessage) {
  events::AssistantTurn turn = CallsTwoFiles();
  turn.text.clear();
  std::string items = Items(turn);
  EXPECT_THAT(items, StartsWith(R"([{"type":"reasoning","summary":[],"encrypted_content":"gAAAAB-enc"},)"));
  EXPECT_THAT(items, Not(HasSubstr(R"("role":"assistant")")));
  EXPECT_THAT(items, Not(HasSubstr("display only")));
  EXPECT_THAT(items, Not(HasSubstr("not sent")));
  EXPECT_THAT(items, Not(HasSubstr("rs_01")));  // no server item ids under store:false
}

TEST(OpenAiResponsesRequestBuilderTest, ReasoningIsNotReplayedWithoutAFollowingItem) {
  events::AssistantTurn turn;
  turn.opaque = {events::OpaqueBlob{"openai-responses", "reasoning_item", "rs_1", "enc"}};
  EXPECT_EQ(Items(turn), "[]");
  turn.text = "ok";
  EXPECT_EQ(Items(turn),
            R"([{"type":"reasoning","summary":[],"encrypted_content":"enc"},)"
            R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}])");
  // Without encrypted content there is nothing the stateless API can use.
  turn.opaque[0].data.clear();
  EXPECT_THAT(Items(turn), Not(HasSubstr("reasoning")));
}

TEST(OpenAiResponsesRequestBuilderTest, ToolWithoutSchemaGetsAnEmptyObjectSchema) {
  ModelRequest request;
  ToolDefinition tool;
  tool.name = "now";
  tool.description = "Current time.";
  request.tools = {tool};
  request.messages = {events::UserText{"time?"}};
  EXPECT_THAT(BuildRequestBody(request, ResponsesModel(), std::nullopt),
              HasSubstr(R"({"type":"function","name":"now","description":"Current time.",)"
                        R"("parameters":{"type":"object","properties":{}},"strict":false})"));
}

TEST(OpenAiResponsesRequestBuilderTest, ReasoningEffortSendsEffortAndSummaries) {
  ModelRequest request;
  request.system_prompt = "sys";
  request.messages = {events::UserText{"think"}};
  for (const char* effort : {"minimal", "low", "medium", "high"}) {
    config::ModelConfig model = ResponsesModel();
    model.reasoning_effort = effort;
    model.max_output_tokens = 100;
    EXPECT_EQ(BuildRequestBody(request, model, std::nullopt),
              std::string(R"({"model":"gpt-test","stream":true,"store":false,)"
                          R"("include":["reasoning.encrypted_content"],"instructions":"sys",)"
                          R"("reasoning":{"effort":")") +
                  effort +
                  R"(","summary":"auto"},"max_output_tokens":100,)"
                  R"("input":[{"type":"message","role":"user",)"
                  R"("content":[{"type":"input_text","text":"think"}]}]})")
        << effort;
  }
}

TEST(OpenAiResponsesRequestBuilderTest, NoReasoningSettingsWithoutAnEffort) {
  ModelRequest request;
  request.messages = {events::UserText{"hi"}};
  std::string body = BuildRequestBody(request, ResponsesModel(), std::nullopt);
  EXPECT_THAT(body, Not(HasSubstr(R"("reasoning")")));
  // Encrypted reasoning is requested either way: replay needs it.
  EXPECT_THAT(body, HasSubstr(R"("include":["reasoning.encrypted_content"])"));
}

}  // namespace
}  // namespace raw::providers::openai_responses

namespace raw::providers::openai_responses {
namespace {

// Growing histories built from the session's kept text equal fresh builds,
// an assistant turn with no entries included; a new generation starts
// afresh.
TEST(RequestBuilderHistoryTest, BodiesBuiltFromTheKeptHistoryEqualFreshOnes) {
  events::AssistantTurn calls;
  calls.text = "let me look";
  calls.tool_calls = {{"call_A", "read_file", R"({"path":"a.txt"})"},
                      {"call_B", "read_file", R"({"path":"b.txt"})"}};
  const std::vector<events::ContextItem> all = {
      events::AssistantTurn{},  // nothing to send
      events::UserText{"question"},
      calls,
      events::ToolOutcome{"call_A", "read_file", "a", false},
      events::ToolOutcome{"call_B", "read_file", "no such file", true},
      events::AssistantTurn{},
      events::AssistantTurn{"answer", "", {}, {}}};
  auto request = [](std::vector<events::ContextItem> items, SerializedHistory* history,
                    uint64_t generation) {
    ModelRequest r;
    r.system_prompt = "Be brief.";
    r.messages = std::move(items);
    r.history = history;
    r.history_generation = generation;
    return r;
  };
  SerializedHistory history;
  const uint64_t generation = NewHistoryGeneration();
  for (size_t n = 0; n <= all.size(); ++n) {
    std::vector<events::ContextItem> items(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
    const std::string fresh = BuildRequestBody(request(items, nullptr, 0), ResponsesModel(), "k");
    EXPECT_EQ(BuildRequestBody(request(items, &history, generation), ResponsesModel(), "k"), fresh)
        << n;
    EXPECT_TRUE(ParseJson(fresh).ok()) << fresh;
  }
  std::vector<events::ContextItem> rewritten = {events::UserText{"summary"}};
  EXPECT_EQ(
      BuildRequestBody(request(rewritten, &history, NewHistoryGeneration()), ResponsesModel(), "k"),
      BuildRequestBody(request(rewritten, nullptr, 0), ResponsesModel(), "k"));
}

}  // namespace
}  // namespace raw::providers::openai_responses
