#include "daemon/providers/provider_factory.h"

#include <map>
#include <string>
#include <vector>

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

// Prepare (the session's warm-up) serializes the history as the request
// would, sends nothing, and the request that follows reuses it: its body is
// byte for byte the body built from nothing kept.
TEST(ProviderFactoryTest, PrepareKeepsTheHistoryAndSendsNothing) {
  const std::vector<events::ContextItem> items = {
      events::UserText{"first question"},
      events::AssistantTurn{"first answer", "", {}, {}},
      events::UserText{"second question"},
  };
  for (const char* method :
       {config::kMethodOpenAiChat, config::kMethodOpenAiResponses, config::kMethodAnthropicMessages,
        config::kMethodGoogleGenerateContent}) {
    SCOPED_TRACE(method);
    config::ModelConfig model = OpenAi();
    model.method = method;
    ProviderOptions keyless;
    keyless.api_key = "";
    FakeHttpClient http;
    auto provider = MakeProvider(model, http, Env({}), keyless);
    ASSERT_TRUE(provider.ok()) << provider.status();

    SerializedHistory history;
    ModelRequest request;
    request.system_prompt = "sys";
    request.messages = items;
    request.history = &history;
    request.history_generation = NewHistoryGeneration();
    (*provider)->Prepare(request);
    EXPECT_TRUE(http.requests().empty());
    EXPECT_EQ(history.generation(), request.history_generation);
    // Every item up to the adapter's last closed point (all of them for
    // the OpenAI formats, up to the last assistant turn for Anthropic).
    EXPECT_GE(history.items(), 2u);

    DiscardingSink sink;
    CancelToken cancel;
    (void)(*provider)->Stream(request, sink, cancel);
    ModelRequest fresh = request;
    fresh.history = nullptr;
    fresh.history_generation = 0;
    (void)(*provider)->Stream(fresh, sink, cancel);
    std::vector<http::HttpRequest> sent = http.requests();
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[0].body, sent[1].body);  // the fake records bodies joined
    EXPECT_THAT(sent[0].body, HasSubstr("first answer"));
  }
}

// The warm-up's provider resolves nothing secret: a model whose key and
// headers name variables, and whose key variable is not set, still gets
// one, and preparing with it sends nothing.
TEST(ProviderFactoryTest, ASerializingProviderNeedsNoKeyAndSendsNothing) {
  config::ModelConfig model = OpenAi();
  model.api_key = "${TOKEN}";
  model.headers["X-Secret"] = "${HEADER}";
  FakeHttpClient http;
  EXPECT_EQ(MakeProvider(model, http, Env({})).status().code(),
            absl::StatusCode::kFailedPrecondition);
  auto provider = MakeSerializingProvider(model, http);
  ASSERT_TRUE(provider.ok()) << provider.status();
  SerializedHistory history;
  ModelRequest request;
  request.messages = {events::UserText{"question"}};
  request.history = &history;
  request.history_generation = NewHistoryGeneration();
  (*provider)->Prepare(request);
  EXPECT_EQ(history.items(), 1u);
  EXPECT_TRUE(http.requests().empty());

  model.base_url.clear();
  EXPECT_EQ(MakeSerializingProvider(model, http).status().code(),
            absl::StatusCode::kInvalidArgument);
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
