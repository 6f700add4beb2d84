#include "daemon/context/token_estimate.h"

#include <string>

#include "daemon/config/config.h"
#include "daemon/providers/provider_factory.h"
#include "gtest/gtest.h"

namespace raw::context {
namespace {

TEST(TokenEstimateTest, TextIsFourBytesPerTokenRoundedUp) {
  EXPECT_EQ(EstimateTextTokens(""), 0);
  EXPECT_EQ(EstimateTextTokens("a"), 1);
  EXPECT_EQ(EstimateTextTokens("abcd"), 1);
  EXPECT_EQ(EstimateTextTokens("abcde"), 2);
  EXPECT_EQ(EstimateTextTokens(std::string(4000, 'x')), 1000);
  // Bytes, not characters: "é" is two bytes.
  EXPECT_EQ(EstimateTextTokens("\xc3\xa9\xc3\xa9\xc3\xa9"), 2);
}

TEST(TokenEstimateTest, UserTextIsItsTextPlusTheMessageOverhead) {
  events::ContextItem item = events::UserText(std::string(40, 'u'));
  EXPECT_EQ(EstimateItemTokens(item), kMessageOverheadTokens + 10);
  events::ContextItem summary =
      events::UserText(std::string(8, 's'), events::UserTextKind::kSummary);
  EXPECT_EQ(EstimateItemTokens(summary), kMessageOverheadTokens + 2);
}

TEST(TokenEstimateTest, AnImageCountsItsPixelsNotItsBytes) {
  const auto image = [](int64_t w, int64_t h) {
    return events::ImagePart{"image/png", std::string(40000, 'A'), w, h};
  };
  EXPECT_EQ(EstimateImageTokens(image(750, 1)), 1);
  EXPECT_EQ(EstimateImageTokens(image(200, 200)), 54);  // 40,000 / 750 rounded up
  EXPECT_EQ(EstimateImageTokens(image(1000, 1000)), 1334);
  // The long edge is scaled to 1,568 pixels, and no image counts more
  // than 1,600 tokens.
  EXPECT_EQ(EstimateImageTokens(image(3136, 100)), 105);  // 1568 x 50
  EXPECT_EQ(EstimateImageTokens(image(4000, 3000)), kImageTokensUnknownSize);
  EXPECT_EQ(EstimateImageTokens(image(0, 0)), kImageTokensUnknownSize);
  events::UserText text{"abcd"};
  text.images = {image(200, 200), image(0, 0)};
  EXPECT_EQ(EstimateItemTokens(text), kMessageOverheadTokens + 1 + 54 + kImageTokensUnknownSize);
}

TEST(TokenEstimateTest, AssistantTurnCountsTextEveryToolCallAndTheReasoningSentBack) {
  events::AssistantTurn turn;
  turn.text = std::string(8, 't');        // 2
  turn.reasoning = std::string(12, 'r');  // 3, when sent back
  turn.tool_calls.push_back({"c1", "read_file", R"({"path":"a.txt"})"});  // 3 + 4
  turn.tool_calls.push_back({"c2", "bash", std::string(40, 'x')});        // 1 + 10
  // Replayed provider state is not counted.
  turn.opaque.push_back({"anthropic", "thinking_signature", "12", std::string(4000, 'o')});
  const int64_t without = kMessageOverheadTokens + 2 + (kToolCallOverheadTokens + 3 + 4) +
                          (kToolCallOverheadTokens + 1 + 10);
  // Reasoning that no request sends back is not part of what the model
  // receives.
  EXPECT_EQ(EstimateItemTokens(turn), without);
  config::ModelConfig model;
  model.method = config::kMethodOpenAiResponses;
  EXPECT_EQ(EstimateItemTokens(turn, providers::ReasoningRuleFor(model)), without);
  model.method = config::kMethodOpenAiChat;
  EXPECT_EQ(EstimateItemTokens(turn, providers::ReasoningRuleFor(model)), without);
  model.send_reasoning_content = true;  // sent on messages that made calls
  EXPECT_EQ(EstimateItemTokens(turn, providers::ReasoningRuleFor(model)), without + 3);
  model.method = config::kMethodAnthropicMessages;  // with its signature
  EXPECT_EQ(EstimateItemTokens(turn, providers::ReasoningRuleFor(model)), without + 3);
  model.method = config::kMethodGoogleGenerateContent;  // no thought signature
  EXPECT_EQ(EstimateItemTokens(turn, providers::ReasoningRuleFor(model)), without);
}

TEST(TokenEstimateTest, ToolOutcomeCountsNameAndOutput) {
  events::ToolOutcome outcome{"c1", "bash", std::string(400, 'o'), false};
  EXPECT_EQ(EstimateItemTokens(outcome), kMessageOverheadTokens + 1 + 100);
}

TEST(TokenEstimateTest, ItemsSumTheirEstimates) {
  std::vector<events::ContextItem> items = {events::UserText("abcd"),
                                            events::ToolOutcome{"c", "x", "12345678", false}};
  EXPECT_EQ(EstimateItemsTokens(items), EstimateItemTokens(items[0]) + EstimateItemTokens(items[1]));
  EXPECT_EQ(EstimateItemsTokens({}), 0);
}

TEST(TokenEstimateTest, RuntimeCountsSystemPromptAndSerializedTools) {
  EXPECT_EQ(EstimateRuntimeTokens("", {}), 0);
  EXPECT_EQ(EstimateRuntimeTokens(std::string(400, 's'), {}), kMessageOverheadTokens + 100);
  providers::ToolDefinition tool{"read_file", std::string(40, 'd'),
                                 OrderedJson::parse(R"({"type":"object"})")};
  // name 9 bytes -> 3, description 10, {"type":"object"} 17 bytes -> 5.
  EXPECT_EQ(EstimateRuntimeTokens("", {tool}), kToolDefinitionOverheadTokens + 3 + 10 + 5);
  // A larger schema costs more.
  providers::ToolDefinition bigger = tool;
  bigger.parameters = OrderedJson::parse(
      R"({"type":"object","properties":{"path":{"type":"string","description":"File to read."}}})");
  EXPECT_GT(EstimateRuntimeTokens("", {bigger}), EstimateRuntimeTokens("", {tool}));
  EXPECT_EQ(EstimateRuntimeTokens("", {tool, tool}), 2 * EstimateRuntimeTokens("", {tool}));
}

}  // namespace
}  // namespace raw::context
