// MakeProvider with ProviderOptions::api_key and ::headers: the key and the
// configured headers reach the HTTP request of every API, and a model whose
// variable fields were not resolved is refused.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "daemon/providers/provider_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::providers {
namespace {

using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

config::ModelConfig Model(const char* method) {
  config::ModelConfig model;
  model.name = "m";
  model.provider = "example";
  model.method = method;
  model.model_id = "model-1";
  model.base_url = "http://127.0.0.1:9/v1";
  model.max_output_tokens = 100;
  return model;
}

// An environment that fails the test when it is consulted.
EnvLookup UnusedEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    ADD_FAILURE() << "environment read for " << name;
    return std::nullopt;
  };
}

class IgnoringSink : public ProviderEventSink {
 public:
  void OnEvent(const ProviderEvent&) override {}
};

// Makes the provider, streams one request (answered with a 500) and returns
// what was sent.
http::HttpRequest SentRequest(const config::ModelConfig& model, const ProviderOptions& options,
                              const EnvLookup& env) {
  FakeHttpClient http;
  FakeHttpResponse response;
  response.status = 500;
  response.headers = {{"Content-Type", "application/json"}};
  response.chunks = {R"({"error": {"message": "boom"}})"};
  http.Enqueue(response);
  auto provider = MakeProvider(model, http, env, options);
  EXPECT_TRUE(provider.ok()) << provider.status();
  if (!provider.ok()) return {};
  IgnoringSink sink;
  CancelToken cancel;
  (void)(*provider)->Stream(ModelRequest{}, sink, cancel);
  return http.single_request();
}

// The header names of `request`, in order.
std::vector<std::string> Names(const http::HttpRequest& request) {
  std::vector<std::string> names;
  for (const auto& [name, value] : request.headers) names.push_back(name);
  return names;
}

struct KeyHeader {
  const char* method;
  const char* name;
  const char* value;
};

TEST(ProviderKeyHeadersTest, KeyAndHeadersReachTheRequestOfEveryApi) {
  for (const KeyHeader& k :
       {KeyHeader{config::kMethodOpenAiChat, "Authorization", "Bearer sk-opt"},
        KeyHeader{config::kMethodOpenAiResponses, "Authorization", "Bearer sk-opt"},
        KeyHeader{config::kMethodAnthropicMessages, "x-api-key", "sk-opt"},
        KeyHeader{config::kMethodGoogleGenerateContent, "x-goog-api-key", "sk-opt"}}) {
    SCOPED_TRACE(k.method);
    config::ModelConfig model = Model(k.method);
    // Neither is read when the options carry the resolved values.
    model.api_key = "${KEY}";
    model.headers = {{"X-Team", "${TEAM}"}};
    ProviderOptions options;
    options.api_key = "sk-opt";
    options.headers = {{"X-Team", "team-7"}, {"OpenAI-Project", "proj_1"}};
    http::HttpRequest request = SentRequest(model, options, UnusedEnv());
    EXPECT_THAT(request.headers, Contains(Pair(k.name, k.value)));
    // After the API's own headers, in the order given.
    std::vector<std::string> names = Names(request);
    ASSERT_GE(names.size(), 3u);
    EXPECT_THAT(std::vector<std::string>(names.end() - 2, names.end()),
                ElementsAre("X-Team", "OpenAI-Project"));
    EXPECT_THAT(request.headers, Contains(Pair("X-Team", "team-7")));
    EXPECT_THAT(request.headers, Contains(Pair("OpenAI-Project", "proj_1")));
  }
}

TEST(ProviderKeyHeadersTest, OptionKeyReplacesTheEnvironmentVariable) {
  config::ModelConfig model = Model(config::kMethodOpenAiChat);
  model.api_key_env = "OPENAI_API_KEY";
  ProviderOptions options;
  options.api_key = "sk-resolved";
  http::HttpRequest request = SentRequest(model, options, UnusedEnv());
  EXPECT_THAT(request.headers, Contains(Pair("Authorization", "Bearer sk-resolved")));
}

TEST(ProviderKeyHeadersTest, EmptyOptionKeySendsNoKey) {
  ProviderOptions options;
  options.api_key = "";
  http::HttpRequest request = SentRequest(Model(config::kMethodOpenAiChat), options, UnusedEnv());
  EXPECT_THAT(Names(request), Not(Contains("Authorization")));
}

TEST(ProviderKeyHeadersTest, WithoutOptionsNothingIsAdded) {
  http::HttpRequest request = SentRequest(Model(config::kMethodOpenAiChat), {}, UnusedEnv());
  EXPECT_THAT(Names(request), ElementsAre("Content-Type", "Accept"));
}

TEST(ProviderKeyHeadersTest, UnresolvedVariableFieldsAreRefused) {
  FakeHttpClient http;
  config::ModelConfig model = Model(config::kMethodOpenAiChat);
  model.api_key = "${KEY}";
  auto provider = MakeProvider(model, http, UnusedEnv());
  EXPECT_EQ(provider.status(),
            absl::FailedPreconditionError("model m: its api_key was not resolved (its variables "
                                          "are expanded before the provider is made)"));

  model.api_key.clear();
  model.headers = {{"X-Team", "${TEAM}"}};
  provider = MakeProvider(model, http, UnusedEnv());
  EXPECT_EQ(provider.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(provider.status().message(), HasSubstr("model m: its headers were not resolved"));
  EXPECT_TRUE(http.requests().empty());
}

}  // namespace
}  // namespace raw::providers
