#include "daemon/context/summary_model.h"

#include "gtest/gtest.h"

namespace raw::context {
namespace {

config::ModelConfig Model(const char* method) {
  config::ModelConfig model;
  model.method = method;
  model.model_id = "m";
  return model;
}

// A reasoning model's summary request has room for its reasoning on top of
// compact.max_output_tokens, and reasons at the lowest effort.
TEST(SummaryModelTest, AReasoningModelGetsAnAllowanceAndTheLowestEffort) {
  config::ModelConfig responses = Model(config::kMethodOpenAiResponses);
  responses.reasoning_effort = "high";
  responses.max_output_tokens = 64000;
  config::ModelConfig summary = SummaryModel(responses, 512);
  EXPECT_EQ(summary.max_output_tokens, 512 + kSummaryReasoningAllowance);
  EXPECT_EQ(summary.reasoning_effort, "low");
  // "minimal" is lower still; Raw keeps it but never picks it.
  responses.reasoning_effort = "minimal";
  EXPECT_EQ(SummaryModel(responses, 512).reasoning_effort, "minimal");

  config::ModelConfig gemini = Model(config::kMethodGoogleGenerateContent);
  EXPECT_EQ(SummaryOutputCap(gemini, 512), 512 + kSummaryReasoningAllowance);
  config::ModelConfig deepseek = Model(config::kMethodOpenAiChat);
  deepseek.send_reasoning_content = true;
  EXPECT_EQ(SummaryOutputCap(deepseek, 512), 512 + kSummaryReasoningAllowance);
  // The entry's own cap, when larger than the summary's, bounds the total.
  deepseek.max_output_tokens = 4000;
  EXPECT_EQ(SummaryOutputCap(deepseek, 512), 4000);
  deepseek.max_output_tokens = 256;
  EXPECT_EQ(SummaryOutputCap(deepseek, 512), 512 + kSummaryReasoningAllowance);
}

TEST(SummaryModelTest, AModelThatDoesNotReasonGetsTheSummaryCapAlone) {
  config::ModelConfig chat = Model(config::kMethodOpenAiChat);
  chat.max_output_tokens = 4000;
  EXPECT_EQ(SummaryModel(chat, 512).max_output_tokens, 512);
  config::ModelConfig responses = Model(config::kMethodOpenAiResponses);
  EXPECT_EQ(SummaryModel(responses, 512).max_output_tokens, 512);
  EXPECT_FALSE(SummaryModel(responses, 512).reasoning_effort.has_value());
  config::ModelConfig gemini = Model(config::kMethodGoogleGenerateContent);
  gemini.include_thoughts = false;
  EXPECT_EQ(SummaryOutputCap(gemini, 512), 512);
  EXPECT_EQ(SummaryOutputCap(Model(config::kMethodAnthropicMessages), 300), 300);
}

}  // namespace
}  // namespace raw::context
