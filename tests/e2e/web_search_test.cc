// builtin/web_search through a real rawd against a fake SearXNG on
// 127.0.0.1: the tool is offered once raven.search is configured, the model
// gets title, URL, date and snippet of each result, and a failing backend's
// own words come back as the tool's error; the brave backend gets its
// token from a config variable, as a header only. Search requests reach a
// private address only because raven.network.allow_private_addresses says
// so.
#include <string>

#include "gmock/gmock.h"
#include "common/json.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

testing::ScriptedResponse JsonAnswer(int status, const std::string& body) {
  testing::ScriptedResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json"}};
  r.chunks = {body};
  return r;
}

class WebSearchTest : public ContractTest {
 protected:
  void SetUp() override {
    ContractTest::SetUp();
    ASSERT_TRUE(searx_.status().ok()) << searx_.status();
  }
  // `host`: how the backend's URL names this machine.
  std::string RavenConfig(bool allow_private, const std::string& host = "127.0.0.1") const {
    return absl::StrCat(R"("raven": {"search": {"backend": "searxng", "url": "http://)", host, ":",
                        searx_.port(),
                        R"(", "max_results": 5}, "network": {"allow_private_addresses": )",
                        allow_private ? "true" : "false", "}}");
  }

  testing::FakeProviderServer searx_;
};

TEST_F(WebSearchTest, TheModelSearchesAndGetsResults) {
  StartDaemon(R"("approval_mode": "allow_all")", RavenConfig(true));
  searx_.EnqueueFor("q=spring%20tides&", JsonAnswer(200, R"({"query": "spring tides", "results": [
      {"title": "Spring tides explained", "url": "https://ocean.test/spring",
       "content": "Spring tides happen at new and full moon.", "publishedDate": "2024-04-08"},
      {"title": "Neap tides", "url": "https://ocean.test/neap", "content": "Weaker tides."}]})"));
  searx_.EnqueueFor("q=broken&",
                    JsonAnswer(500, R"({"error": "searx.exceptions.SearxEngineAccessDenied"})"));
  auto results = RunBatch({{"s1", "web_search", R"({"query": "spring tides"})"},
                           {"s2", "web_search", R"({"query": "broken"})"}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[0].content();
  EXPECT_EQ(results[0].content(),
            "2 result(s) for \"spring tides\" (searxng)\n\n"
            "1. Spring tides explained\n   https://ocean.test/spring\n   date: 2024-04-08\n"
            "   Spring tides happen at new and full moon.\n\n"
            "2. Neap tides\n   https://ocean.test/neap\n   Weaker tides.");
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_EQ(results[1].content(),
            "the searxng search backend answered HTTP 500: "
            "searx.exceptions.SearxEngineAccessDenied");
  ASSERT_EQ(searx_.requests().size(), 2u);
  EXPECT_EQ(searx_.requests()[0].path, "/search?q=spring%20tides&format=json");
  // The model was offered the tool with its schema.
  absl::StatusOr<Json> body = fake_.requests().at(0).BodyJson();
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_THAT(body->dump(), HasSubstr("\"web_search\""));
}

// A backend URL written as a loopback address is the user's choice and is
// reached without the switch (which would also open Source checks); one
// named otherwise (here 0x7f000001, which libcurl resolves to 127.0.0.1)
// must lead to a public address unless the config allows private ones.
TEST_F(WebSearchTest, ABackendWrittenAsALocalAddressIsReachedWithoutTheSwitch) {
  StartDaemon(R"("approval_mode": "allow_all")", RavenConfig(false));
  searx_.EnqueueFor("q=tides&", JsonAnswer(200, R"({"query": "tides", "results": [
      {"title": "Tides", "url": "https://ocean.test/tides", "content": "Long waves."}]})"));
  auto results = RunBatch({{"s1", "web_search", R"({"query": "tides"})"}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[0].content();
  EXPECT_EQ(searx_.requests().size(), 1u);
}

TEST_F(WebSearchTest, ABackendNamedOtherwiseIsRefusedAtAPrivateAddressUnlessTheConfigAllowsIt) {
  StartDaemon(R"("approval_mode": "allow_all")", RavenConfig(false, "0x7f000001"));
  auto results = RunBatch({{"s1", "web_search", R"({"query": "tides"})"}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[0].content(), HasSubstr("was not contacted"));
  EXPECT_THAT(results[0].content(), HasSubstr("raven.network.allow_private_addresses"));
  EXPECT_TRUE(searx_.requests().empty());
}

// The brave backend: the token comes from the variable the config names,
// goes only into the X-Subscription-Token header, and is kept out of what
// the model reads even when the backend's error repeats it.
TEST_F(WebSearchTest, BraveSendsTheVariablesTokenAsAHeaderOnly) {
  const std::string token = "BSA-e2e-token-4711";
  daemon_ = std::make_unique<TestDaemon>(Config(
      R"("approval_mode": "allow_all")",
      absl::StrCat(R"("variables": {"BRAVE_KEY": {"env": "RAW_TEST_BRAVE_TOKEN"}},)",
                   R"( "raven": {"search": {"backend": "brave", "api_key_variable": "BRAVE_KEY",)",
                   R"( "url": "http://127.0.0.1:)", searx_.port(),
                   R"(/res/v1/web/search"}, "network": {"allow_private_addresses": true}})"),
      R"(["builtin/*"])", ""));
  daemon_->SetEnv("RAW_TEST_BRAVE_TOKEN", token);
  ASSERT_TRUE(daemon_->Start().ok());
  searx_.EnqueueFor("q=tides&", JsonAnswer(200, R"({"type": "search", "web": {"results": [
      {"title": "Tides", "url": "https://ocean.test/tides", "description": "Long waves.",
       "age": "2 days ago"}]}})"));
  searx_.EnqueueFor("q=quota&", JsonAnswer(429, absl::StrCat(
      R"({"type": "ErrorResponse", "error": {"code": "RATE_LIMITED", "detail": "Rate limit for )",
      token, R"( exceeded"}})")));
  auto results = RunBatch({{"s1", "web_search", R"({"query": "tides", "max_results": 3})"},
                           {"s2", "web_search", R"({"query": "quota"})"}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].content(),
            "1 result(s) for \"tides\" (brave)\n\n"
            "1. Tides\n   https://ocean.test/tides\n   date: 2 days ago\n   Long waves.");
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[1].content(), HasSubstr("answered HTTP 429: Rate limit for"));
  EXPECT_THAT(results[1].content(), ::testing::Not(HasSubstr(token)));
  ASSERT_EQ(searx_.requests().size(), 2u);
  EXPECT_EQ(searx_.requests()[0].path, "/res/v1/web/search?q=tides&count=3");
  EXPECT_EQ(searx_.requests()[0].Header("X-Subscription-Token"), token);
  for (const auto& request : fake_.requests()) {
    EXPECT_THAT(request.body, ::testing::Not(HasSubstr(token))) << "the model never sees it";
  }
}

}  // namespace
}  // namespace raw::e2e
