// builtin/web_search: argument checks, the unconfigured answer, the result
// rendering and errors in the backend's words (through a fake HttpClient).
#include <string>

#include "daemon/config/raven_settings.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::tools {
namespace {

using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::testing::HasSubstr;
using ::testing::Not;

FakeHttpResponse Answer(int status, std::string body) {
  FakeHttpResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json"}};
  r.chunks = {std::move(body)};
  return r;
}

class WebSearchToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    raven_.search.backend = config::SearchBackendKind::kSearxng;
    raven_.search.url = "http://127.0.0.1:8888";
    raven_.search.max_results = 2;
  }
  ToolOutput Search(const Json& args, bool configured = true) {
    config::FixedRavenSettings source(raven_);
    CancelToken cancel;
    ToolContext ctx{"/", settings_, cancel, &http_};
    if (configured) ctx.raven_settings = &source;
    ctx.resolve_variable = [](const std::string& name) -> absl::StatusOr<std::string> {
      if (name == "BRAVE_KEY") return std::string("BSA-key-1");
      return absl::NotFoundError("undefined");
    };
    return spec_.handler(args, ctx);
  }

  FakeHttpClient http_;
  config::ToolSettings settings_;
  config::RavenSettings raven_;
  ToolSpec spec_ = builtin::MakeWebSearchTool();
};

TEST_F(WebSearchToolTest, SpecBoundsItsArguments) {
  ToolRegistry registry;
  absl::Status registered = registry.Register(builtin::MakeWebSearchTool());
  ASSERT_TRUE(registered.ok()) << registered;
  EXPECT_EQ(spec_.model_name, "web_search");
  EXPECT_EQ(spec_.qualified_name, "builtin/web_search");
  EXPECT_FALSE(spec_.read_only);
  EXPECT_EQ(spec_.input_schema["required"], OrderedJson({"query"}));
  EXPECT_EQ(spec_.input_schema["properties"]["max_results"]["maximum"], 20);
  EXPECT_EQ(spec_.input_schema["additionalProperties"], false);
}

TEST_F(WebSearchToolTest, ReturnsTitleUrlDateAndSnippet) {
  http_.Enqueue(Answer(200, R"({"results": [
      {"title": "Tides", "url": "https://ocean.test/tides", "content": "Long waves.",
       "publishedDate": "2024-05-01"},
      {"title": "Moon", "url": "https://moon.test/", "content": "Pulls."},
      {"title": "Third", "url": "https://third.test/"}]})"));
  ToolOutput out = Search({{"query", "tides"}});
  ASSERT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  EXPECT_EQ(out.content,
            "2 result(s) for \"tides\" (searxng)\n\n"
            "1. Tides\n   https://ocean.test/tides\n   date: 2024-05-01\n   Long waves.\n\n"
            "2. Moon\n   https://moon.test/\n   Pulls.");
  // The backend's URL is written as a loopback address: reached as written.
  EXPECT_FALSE(http_.single_request().public_addresses_only);
}

TEST_F(WebSearchToolTest, MaxResultsOverridesTheDefaultWithinBounds) {
  http_.Enqueue(Answer(200, R"({"results": [{"title": "A", "url": "https://a.test/"},
      {"title": "B", "url": "https://b.test/"}, {"title": "C", "url": "https://c.test/"}]})"));
  raven_.search.url = "http://searx.lan:8888";  // a host name: the switch decides
  raven_.allow_private_addresses = true;
  ToolOutput out = Search({{"query", "x"}, {"max_results", 3}});
  EXPECT_THAT(out.content, HasSubstr("3 result(s)"));
  EXPECT_FALSE(http_.single_request().public_addresses_only);
  EXPECT_EQ(Search({{"query", "x"}, {"max_results", 21}}).content, "max_results must be at most 20");
  EXPECT_EQ(Search({{"query", "  "}}).content, "query must not be empty");
  EXPECT_EQ(Search({{"query", "x"}, {"page", 2}}).status, events::ToolStatus::kError);
}

TEST_F(WebSearchToolTest, LongSnippetsAreCut) {
  http_.Enqueue(Answer(200, R"({"results": [{"title": "A", "url": "https://a.test/", "content": ")" +
                                std::string(3000, 's') + R"("}]})"));
  ToolOutput out = Search({{"query", "x"}});
  EXPECT_THAT(out.content, HasSubstr("\n   " + std::string(1000, 's') + "…"));
  EXPECT_THAT(out.content, Not(HasSubstr(std::string(1001, 's'))));
}

TEST_F(WebSearchToolTest, UnconfiguredSaysSo) {
  ToolOutput out = Search({{"query", "tides"}}, /*configured=*/false);
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("no search backend is configured"));
  EXPECT_TRUE(http_.requests().empty());
}

TEST_F(WebSearchToolTest, BackendErrorsInTheirOwnWordsWithoutTheKey) {
  raven_.search.backend = config::SearchBackendKind::kBrave;
  raven_.search.url = config::kBraveSearchUrl;
  raven_.search.api_key_variable = "BRAVE_KEY";
  http_.Enqueue(Answer(429, R"({"error": {"detail": "Request rate limit exceeded for BSA-key-1"}})"));
  ToolOutput out = Search({{"query", "tides"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content,
            "the brave search backend answered HTTP 429: Request rate limit exceeded for [redacted]");
  EXPECT_THAT(out.content, Not(HasSubstr("BSA-key-1")));
  raven_.search.api_key_variable = "MISSING";
  EXPECT_THAT(Search({{"query", "tides"}}).content,
              HasSubstr("key variable MISSING could not be read"));
}

}  // namespace
}  // namespace raw::tools
