// Each API's shape for a prompt with images: the text first, then every
// image in order, in the form its documentation gives.
#include <string>
#include <vector>

#include "common/json.h"
#include "daemon/providers/anthropic/request_builder.h"
#include "daemon/providers/google/request_builder.h"
#include "daemon/providers/openai_chat/request_builder.h"
#include "daemon/providers/openai_responses/request_builder.h"
#include "gtest/gtest.h"

namespace raw::providers {
namespace {

events::UserText ImagePrompt(std::string text) {
  events::UserText prompt{std::move(text)};
  prompt.images = {{"image/png", "iVBORw0K", 1, 1}, {"image/jpeg", "/9j/4AAQ", 2, 2}};
  return prompt;
}

ModelRequest ImageRequest(std::string text) {
  ModelRequest request;
  request.messages = {ImagePrompt(std::move(text))};
  return request;
}

config::ModelConfig ImageModel(const char* method) {
  config::ModelConfig model;
  model.name = "m";
  model.method = method;
  model.model_id = "model-1";
  model.base_url = "https://example.test/v1";
  return model;
}

Json ParsedBody(const std::string& body) {
  absl::StatusOr<Json> json = ParseJson(body);
  EXPECT_TRUE(json.ok()) << body;
  return json.ok() ? *json : Json();
}

TEST(ImagePartsTest, ChatCompletionsSendsContentPartsWithDataUrls) {
  Json body = ParsedBody(openai_chat::BuildRequestBody(
      ImageRequest("what is this?"), ImageModel(config::kMethodOpenAiChat), std::nullopt));
  EXPECT_EQ(body["messages"][0], Json::parse(R"({"role":"user","content":[
      {"type":"text","text":"what is this?"},
      {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0K"}},
      {"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQ"}}]})"));
  // Without images the content stays a plain string.
  ModelRequest plain;
  plain.messages = {events::UserText{"hi"}};
  EXPECT_EQ(ParsedBody(openai_chat::BuildRequestBody(plain, ImageModel(config::kMethodOpenAiChat),
                                                     std::nullopt))["messages"][0]["content"],
            "hi");
}

TEST(ImagePartsTest, ResponsesSendsInputImages) {
  Json body = ParsedBody(openai_responses::BuildRequestBody(
      ImageRequest("what is this?"), ImageModel(config::kMethodOpenAiResponses), std::nullopt));
  EXPECT_EQ(body["input"][0], Json::parse(R"({"type":"message","role":"user","content":[
      {"type":"input_text","text":"what is this?"},
      {"type":"input_image","image_url":"data:image/png;base64,iVBORw0K"},
      {"type":"input_image","image_url":"data:image/jpeg;base64,/9j/4AAQ"}]})"));
}

TEST(ImagePartsTest, MessagesSendsBase64ImageBlocks) {
  Json body = ParsedBody(anthropic::BuildRequestBody(ImageRequest("what is this?"),
                                                     ImageModel(config::kMethodAnthropicMessages),
                                                     anthropic::CacheRetention::k5m));
  EXPECT_EQ(body["messages"][0], Json::parse(R"({"role":"user","content":[
      {"type":"text","text":"what is this?"},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0K"}},
      {"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}}]})"));
  // Images alone still make a message (empty text is left out).
  Json alone = ParsedBody(anthropic::BuildRequestBody(ImageRequest(""),
                                                      ImageModel(config::kMethodAnthropicMessages),
                                                      anthropic::CacheRetention::k5m));
  ASSERT_EQ(alone["messages"].size(), 1u);
  EXPECT_EQ(alone["messages"][0]["content"].size(), 2u);
  EXPECT_EQ(alone["messages"][0]["content"][0]["type"], "image");
}

TEST(ImagePartsTest, GenerateContentSendsInlineData) {
  Json body = ParsedBody(google::BuildRequestBody(
      ImageRequest("what is this?"), ImageModel(config::kMethodGoogleGenerateContent)));
  EXPECT_EQ(body["contents"][0], Json::parse(R"({"role":"user","parts":[
      {"text":"what is this?"},
      {"inlineData":{"mimeType":"image/png","data":"iVBORw0K"}},
      {"inlineData":{"mimeType":"image/jpeg","data":"/9j/4AAQ"}}]})"));
  Json alone = ParsedBody(
      google::BuildRequestBody(ImageRequest(""), ImageModel(config::kMethodGoogleGenerateContent)));
  EXPECT_EQ(alone["contents"][0]["parts"].size(), 2u);
}

}  // namespace
}  // namespace raw::providers
