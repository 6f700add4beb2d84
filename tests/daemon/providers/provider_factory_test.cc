#include "daemon/providers/provider_factory.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::providers {
namespace {

using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::Contains;

config::ModelConfig OpenAi() {
  config::ModelConfig model;
  model.name = "gpt";
  model.provider = "openai";
  model.method = config::kMethodOpenAiChat;
  model.model_id = "gpt-test";
  model.base_url = "http://127.0.0.1:9/v1";
  model.api_key_env = "OPENAI_API_KEY";
  return model;
}

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class DiscardingSink : public ProviderEventSink {
 public:
  void OnEvent(const ProviderEvent&) override {}
};

TEST(ProviderFactoryTest, MissingKeyVariableNamesIt) {
  FakeHttpClient http;
  auto provider = MakeProvider(OpenAi(), http, Env({}));
  EXPECT_EQ(provider.status(),
            absl::FailedPreconditionError("model gpt: environment variable OPENAI_API_KEY is not "
                                          "set (it holds the API key for openai)"));
  // Empty counts as unset.
  EXPECT_EQ(MakeProvider(OpenAi(), http, Env({{"OPENAI_API_KEY", ""}})).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ProviderFactoryTest, KeyFromTheEnvironmentIsSent) {
  FakeHttpClient http;
  FakeHttpResponse response;
  response.chunks = {"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},"
                     "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"};
  http.Enqueue(response);
  ProviderOptions options;
  options.prompt_cache_key = "key-1";
  auto provider =
      MakeProvider(OpenAi(), http, Env({{"OPENAI_API_KEY", "sk-live"}}), options);
  ASSERT_TRUE(provider.ok()) << provider.status();
  DiscardingSink sink;
  CancelToken cancel;
  ASSERT_TRUE((*provider)->Stream(ModelRequest{}, sink, cancel).ok());
  EXPECT_THAT(http.single_request().headers, Contains(Pair("Authorization", "Bearer sk-live")));
  EXPECT_THAT(http.single_request().body, HasSubstr(R"("prompt_cache_key":"key-1")"));
}

TEST(ProviderFactoryTest, KeylessModelNeedsNoVariable) {
  FakeHttpClient http;
  config::ModelConfig local = OpenAi();
  local.api_key_env.clear();
  local.provider = "ollama";
  EXPECT_TRUE(MakeProvider(local, http, Env({})).ok());
}

TEST(ProviderFactoryTest, EveryMethodHasAnAdapterAndUnknownOnesAreNamed) {
  FakeHttpClient http;
  config::ModelConfig model = OpenAi();
  for (const char* method : {config::kMethodOpenAiChat, config::kMethodOpenAiResponses,
                             config::kMethodAnthropicMessages,
                             config::kMethodGoogleGenerateContent}) {
    model.method = method;
    auto provider = MakeProvider(model, http, Env({{"OPENAI_API_KEY", "k"}}));
    EXPECT_TRUE(provider.ok()) << method << ": " << provider.status();
  }

  model.method = "openai-chat";
  auto unknown = MakeProvider(model, http, Env({{"OPENAI_API_KEY", "k"}}));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown method \"openai-chat\""));
  EXPECT_THAT(unknown.status().message(), HasSubstr("openai-chat-completions"));
}

TEST(ProviderFactoryTest, EmptyBaseUrl) {
  FakeHttpClient http;
  config::ModelConfig model = OpenAi();
  model.base_url.clear();
  auto provider = MakeProvider(model, http, Env({{"OPENAI_API_KEY", "k"}}));
  EXPECT_EQ(provider.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(provider.status().message(), HasSubstr("model gpt: base_url is empty"));
}

}  // namespace
}  // namespace raw::providers
