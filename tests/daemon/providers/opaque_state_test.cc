// An assistant item's opaque state (thinking and thought signatures,
// encrypted reasoning) goes back only to the model that made it: after a
// session switches model, every request builder leaves the old state out,
// with the reasoning it carries, and still sends the item's text and calls.
#include "daemon/providers/opaque_state.h"

#include <string>
#include <vector>

#include "daemon/providers/anthropic/request_builder.h"
#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/google/request_builder.h"
#include "daemon/providers/google/thought_signature.h"
#include "daemon/providers/openai_responses/request_builder.h"
#include "daemon/providers/provider_factory.h"
#include "daemon/providers/serialized_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::providers {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSignature[] = "SIGNATURE-4c1d";
constexpr char kReasoning[] = "REASONING-9e02";

struct Case {
  const char* method;
  events::OpaqueBlob blob;
};

std::vector<Case> Cases() {
  return {
      {config::kMethodAnthropicMessages,
       {anthropic::kOpaqueProvider, anthropic::kThinkingSignatureKind, "", kSignature}},
      {config::kMethodGoogleGenerateContent,
       {google::kOpaqueProvider, google::kThoughtSignatureKind, google::kThoughtAnchor,
        kSignature}},
      {config::kMethodGoogleGenerateContent,
       {google::kOpaqueProvider, google::kThoughtSignatureKind, google::CallAnchor("c1"),
        kSignature}},
      {config::kMethodOpenAiResponses,
       {openai_responses::kOpaqueProvider, openai_responses::kReasoningItemKind, "rs_1",
        kSignature}},
  };
}

config::ModelConfig Model(const char* method, const char* model_id) {
  config::ModelConfig model;
  model.method = method;
  model.model_id = model_id;
  return model;
}

ModelRequest Request(const events::AssistantTurn& turn, SerializedHistory* history) {
  ModelRequest request;
  request.messages = {events::UserText{"go"}, turn, events::ToolOutcome{"c1", "run", "ok", false},
                      events::UserText{"next"}};
  request.history = history;
  request.history_generation = 7;
  return request;
}

std::string Body(const ModelRequest& request, const config::ModelConfig& model) {
  if (model.method == config::kMethodAnthropicMessages) {
    return anthropic::BuildRequestBody(request, model, anthropic::CacheRetention::k5m);
  }
  if (model.method == config::kMethodOpenAiResponses) {
    return openai_responses::BuildRequestBody(request, model, std::nullopt);
  }
  return google::BuildRequestBody(request, model);
}

events::AssistantTurn TurnOf(const events::OpaqueBlob& blob, const char* model_id) {
  events::AssistantTurn turn;
  turn.text = "answer";
  turn.reasoning = kReasoning;
  turn.tool_calls = {{"c1", "run", "{}"}};
  turn.opaque = {blob};
  turn.model = model_id;
  return turn;
}

TEST(OpaqueStateTest, GoesBackOnlyToTheModelThatMadeIt) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::string(c.method) + " " + c.blob.kind + " " + c.blob.id);
    const events::AssistantTurn turn = TurnOf(c.blob, "model-a");
    const std::string same = Body(Request(turn, nullptr), Model(c.method, "model-a"));
    const std::string other = Body(Request(turn, nullptr), Model(c.method, "model-b"));
    EXPECT_THAT(same, HasSubstr(kSignature));
    EXPECT_THAT(other, Not(HasSubstr(kSignature)));
    EXPECT_THAT(other, Not(HasSubstr(kReasoning)));
    // The answer itself still goes to the new model.
    EXPECT_THAT(other, HasSubstr("answer"));
    EXPECT_THAT(other, HasSubstr("\"c1\""));
    // The rule the context estimate counts by says the same.
    EXPECT_FALSE(ReasoningRuleFor(Model(c.method, "model-b")).Sends(turn));
  }
}

TEST(OpaqueStateTest, ItemsStoredWithoutTheirModelSendTheirStateAsBefore) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::string(c.method) + " " + c.blob.kind + " " + c.blob.id);
    EXPECT_THAT(Body(Request(TurnOf(c.blob, ""), nullptr), Model(c.method, "model-b")),
                HasSubstr(kSignature));
  }
}

TEST(OpaqueStateTest, AKeptHistoryIsNotReusedForAnotherModel) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::string(c.method) + " " + c.blob.kind + " " + c.blob.id);
    const events::AssistantTurn turn = TurnOf(c.blob, "model-a");
    SerializedHistory history;
    const std::string first = Body(Request(turn, &history), Model(c.method, "model-a"));
    EXPECT_THAT(first, HasSubstr(kSignature));
    // The same context, same generation, kept serialized for model-a.
    const std::string switched = Body(Request(turn, &history), Model(c.method, "model-b"));
    EXPECT_EQ(switched, Body(Request(turn, nullptr), Model(c.method, "model-b")));
    EXPECT_THAT(switched, Not(HasSubstr(kSignature)));
    EXPECT_EQ(Body(Request(turn, &history), Model(c.method, "model-a")), first);
  }
}

TEST(OpaqueStateTest, TheRuleIsTheBuildersRule) {
  events::AssistantTurn turn;
  turn.model = "model-a";
  EXPECT_TRUE(ReplaysOpaqueState(turn, "model-a"));
  EXPECT_FALSE(ReplaysOpaqueState(turn, "model-b"));
  turn.model.clear();
  EXPECT_TRUE(ReplaysOpaqueState(turn, "model-b"));
}

}  // namespace
}  // namespace raw::providers
