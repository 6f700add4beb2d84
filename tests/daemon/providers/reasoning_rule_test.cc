// ReasoningRule against the request builders: for each method and
// setting, a request carries an assistant item's reasoning back exactly
// when the rule says it does, so that the context estimate counts what the
// model receives (context/token_estimate.h).
#include <string>
#include <vector>

#include "daemon/providers/anthropic/request_builder.h"
#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/google/request_builder.h"
#include "daemon/providers/google/thought_signature.h"
#include "daemon/providers/openai_chat/request_builder.h"
#include "daemon/providers/openai_responses/request_builder.h"
#include "daemon/providers/provider_factory.h"
#include "gtest/gtest.h"

namespace raw::providers {
namespace {

constexpr char kMark[] = "REASONING-MARK-7f3a";

std::string Body(const config::ModelConfig& model, const events::AssistantTurn& turn) {
  ModelRequest request;
  request.messages = {events::UserText{"go"}, turn};
  if (!turn.tool_calls.empty()) {
    request.messages.push_back(events::ToolOutcome{"c1", "read_file", "x", false});
  }
  if (model.method == config::kMethodOpenAiChat) {
    return openai_chat::BuildRequestBody(request, model, std::nullopt);
  }
  if (model.method == config::kMethodOpenAiResponses) {
    return openai_responses::BuildRequestBody(request, model, std::nullopt);
  }
  if (model.method == config::kMethodAnthropicMessages) {
    return anthropic::BuildRequestBody(request, model, anthropic::CacheRetention::k5m);
  }
  return google::BuildRequestBody(request, model);
}

TEST(ReasoningRuleTest, SendsWhatEveryRequestBuilderSends) {
  std::vector<config::ModelConfig> models;
  for (const char* method :
       {config::kMethodOpenAiChat, config::kMethodOpenAiResponses, config::kMethodAnthropicMessages,
        config::kMethodGoogleGenerateContent}) {
    config::ModelConfig model;
    model.method = method;
    model.model_id = "m";
    models.push_back(model);
  }
  models.push_back(models[0]);
  models.back().send_reasoning_content = true;

  std::vector<events::AssistantTurn> turns;
  events::AssistantTurn plain;
  plain.text = "answer";
  plain.reasoning = kMark;
  turns.push_back(plain);
  events::AssistantTurn calls = plain;
  calls.tool_calls = {{"c1", "read_file", R"({"path":"a"})"}};
  turns.push_back(calls);
  for (events::AssistantTurn turn : {plain, calls}) {
    turn.opaque = {{anthropic::kOpaqueProvider, anthropic::kThinkingSignatureKind,
                    std::to_string(turn.reasoning.size()), "sig"}};
    turns.push_back(turn);
    turn.opaque = {
        {google::kOpaqueProvider, google::kThoughtSignatureKind, google::kThoughtAnchor, "sig"}};
    turns.push_back(turn);
    turn.opaque = {
        {google::kOpaqueProvider, google::kThoughtSignatureKind, google::CallAnchor("c1"), "sig"}};
    turns.push_back(turn);
  }
  // The same items answered by the model the requests go to, and by another.
  for (size_t i = 2, n = turns.size(); i < n; ++i) {
    for (const char* model_id : {"m", "other"}) {
      turns.push_back(turns[i]);
      turns.back().model = model_id;
    }
  }
  int sent = 0;
  for (const config::ModelConfig& model : models) {
    const ReasoningRule rule = ReasoningRuleFor(model);
    for (size_t i = 0; i < turns.size(); ++i) {
      const bool in_body = Body(model, turns[i]).find(kMark) != std::string::npos;
      EXPECT_EQ(rule.Sends(turns[i]), in_body)
          << model.method << (model.send_reasoning_content ? " (send)" : "") << ", turn " << i;
      sent += in_body ? 1 : 0;
    }
  }
  // Each of the three ways of sending it back was met.
  EXPECT_GE(sent, 3);
}

}  // namespace
}  // namespace raw::providers
