// The `raven` section of config.json: defaults, every field, and the exact
// path and message of each problem.
#include "daemon/config/raven_entry.h"

#include <string>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::raw::config::testing::ProblemLines;
using ::testing::ElementsAre;

// A document with model "flash" (provider "deepseek", model_id
// "deepseek-chat"), variable BRAVE_KEY and `raven` as given.
std::string WithRaven(const std::string& raven) {
  return R"({"models": {"flash": )" + testing::ModelJson() +
         R"(}, "variables": {"BRAVE_KEY": {"env": "BRAVE_KEY"}}, "raven": )" + raven + "}";
}

TEST(RavenEntryTest, DefaultsWhenAbsent) {
  absl::StatusOr<Config> config = ParseConfig("{}");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->raven, RavenSettings());
  EXPECT_EQ(config->raven.search.backend, SearchBackendKind::kNone);
  EXPECT_TRUE(config->raven.discovery_enabled);
  EXPECT_FALSE(config->raven.allow_private_addresses);
  EXPECT_TRUE(config->raven.draft.routes.empty());
}

TEST(RavenEntryTest, ReadsEveryField) {
  absl::StatusOr<Config> config = ParseConfig(WithRaven(R"({
    "verify": {"fetch_timeout_seconds": 2.5, "total_timeout_seconds": 20, "max_bytes": 1000,
               "max_parallel_fetches": 7},
    "discovery": {"enabled": false},
    "search": {"backend": "searxng", "url": "http://127.0.0.1:8888/", "timeout_seconds": 4,
               "max_results": 5},
    "draft": {"routes": ["deepseek/deepseek-chat"], "timeout_seconds": 9, "max_output_tokens": 300},
    "network": {"allow_private_addresses": true}})"));
  ASSERT_TRUE(config.ok()) << config.status();
  const RavenSettings& r = config->raven;
  EXPECT_EQ(r.verify.fetch_timeout_ms, 2500);
  EXPECT_EQ(r.verify.total_timeout_ms, 20000);
  EXPECT_EQ(r.verify.max_bytes, 1000);
  EXPECT_EQ(r.verify.max_parallel_fetches, 7);
  EXPECT_FALSE(r.discovery_enabled);
  EXPECT_EQ(r.search.backend, SearchBackendKind::kSearxng);
  EXPECT_EQ(r.search.url, "http://127.0.0.1:8888");
  EXPECT_EQ(r.search.timeout_ms, 4000);
  EXPECT_EQ(r.search.max_results, 5);
  EXPECT_THAT(r.draft.routes, ElementsAre("deepseek/deepseek-chat"));
  EXPECT_EQ(r.draft.timeout_ms, 9000);
  EXPECT_EQ(r.draft.max_output_tokens, 300);
  EXPECT_TRUE(r.allow_private_addresses);
  EXPECT_EQ(ModelForRoute(*config, "deepseek/deepseek-chat"), "flash");
  EXPECT_EQ(ModelForRoute(*config, "deepseek"), std::nullopt);
}

TEST(RavenEntryTest, BraveTakesAVariableAndDefaultsItsEndpoint) {
  absl::StatusOr<Config> config =
      ParseConfig(WithRaven(R"({"search": {"backend": "brave", "api_key_variable": "BRAVE_KEY"}})"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->raven.search.backend, SearchBackendKind::kBrave);
  EXPECT_EQ(config->raven.search.api_key_variable, "BRAVE_KEY");
  EXPECT_EQ(config->raven.search.url, kBraveSearchUrl);
}

TEST(RavenEntryTest, ProblemsNameTheirPaths) {
  EXPECT_THAT(ProblemLines(WithRaven(R"({"verbose": true})")),
              ElementsAre("raven.verbose: unknown key (expected one of: verify, discovery, "
                          "search, draft, network)"));
  EXPECT_THAT(ProblemLines(WithRaven("[]")), ElementsAre("raven: expected an object, got an array"));
  EXPECT_THAT(
      ProblemLines(WithRaven(R"({"verify": {"fetch_timeout_seconds": 0, "max_bytes": -1}})")),
      ElementsAre("raven.verify.fetch_timeout_seconds: expected a positive number of seconds, got 0",
                  "raven.verify.max_bytes: expected a positive integer, got -1"));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"verify": {"max_parallel_fetches": 0}})")),
              ElementsAre("raven.verify.max_parallel_fetches: expected a positive integer, got 0"));
  EXPECT_THAT(
      ProblemLines(WithRaven(R"({"verify": {"max_parallel_fetches": 17}})")),
      ElementsAre("raven.verify.max_parallel_fetches: expected an integer from 1 to 16, got 17"));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"discovery": {"enabled": "yes"}})")),
              ElementsAre("raven.discovery.enabled: expected true or false, got \"yes\""));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"network": {"allow_private_addresses": 1}})")),
              ElementsAre("raven.network.allow_private_addresses: expected true or false, got 1"));
}

TEST(RavenEntryTest, SearchProblems) {
  EXPECT_THAT(ProblemLines(WithRaven(R"({"search": {}})")),
              ElementsAre("raven.search.backend: required key is missing (expected \"searxng\" "
                          "or \"brave\")"));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"search": {"backend": "google"}})")),
              ElementsAre("raven.search.backend: expected one of \"searxng\", \"brave\", got "
                          "\"google\""));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"search": {"backend": "searxng"}})")),
              ElementsAre("raven.search.url: required key is missing (expected the SearXNG "
                          "instance's base URL, such as \"http://127.0.0.1:8888\")"));
  std::vector<std::string> bad_url =
      ProblemLines(WithRaven(R"({"search": {"backend": "searxng", "url": "ftp://x"}})"));
  ASSERT_EQ(bad_url.size(), 1u);
  EXPECT_EQ(bad_url[0].rfind("raven.search.url: ", 0), 0u) << bad_url[0];
  EXPECT_THAT(
      ProblemLines(WithRaven(
          R"({"search": {"backend": "searxng", "url": "http://s", "api_key_variable": "BRAVE_KEY"}})")),
      ElementsAre("raven.search.api_key_variable: only the \"brave\" backend takes an API key"));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"search": {"backend": "brave"}})")),
              ElementsAre("raven.search.api_key_variable: required key is missing (expected the "
                          "name of the variable holding the Brave Search subscription token)"));
  EXPECT_THAT(
      ProblemLines(WithRaven(R"({"search": {"backend": "brave", "api_key_variable": "NOPE"}})")),
      ElementsAre("raven.search.api_key_variable: \"NOPE\" is not a defined variable (defined: "
                  "BRAVE_KEY)"));
  EXPECT_THAT(ProblemLines(WithRaven(
                  R"({"search": {"backend": "brave", "api_key_variable": "BSA-123 secret"}})")),
              // A token pasted in place of its variable's name is not echoed.
              ElementsAre("raven.search.api_key_variable: expected the name of a variable "
                          "holding the key (letters, digits and '_', not starting with a digit); "
                          "the value is not shown, since it may be the key itself"));
  EXPECT_THAT(ProblemLines(WithRaven(
                  R"({"search": {"backend": "searxng", "url": "http://s", "max_results": 21}})")),
              ElementsAre("raven.search.max_results: expected an integer from 1 to 20, got 21"));
}

TEST(RavenEntryTest, DraftRouteProblems) {
  EXPECT_THAT(ProblemLines(WithRaven(R"({"draft": {"routes": "deepseek/deepseek-chat"}})")),
              ElementsAre("raven.draft.routes: expected an array of \"provider/model_id\" routes, "
                          "got \"deepseek/deepseek-chat\""));
  EXPECT_THAT(
      ProblemLines(WithRaven(R"({"draft": {"routes": ["deepseek/deepseek-chat", "openai/gpt-5", 3,
                                                       "deepseek/deepseek-chat"]}})")),
      ElementsAre("raven.draft.routes[1]: \"openai/gpt-5\" names no defined model (expected "
                  "\"provider/model_id\" of an entry under models: deepseek/deepseek-chat)",
                  "raven.draft.routes[2]: expected a \"provider/model_id\" string, got 3",
                  "raven.draft.routes[3]: \"deepseek/deepseek-chat\" is listed twice"));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"draft": {"routes": ["a/1", "a/2", "a/3", "a/4", "a/5"]}})")),
              ElementsAre("raven.draft.routes: at most 4 routes, got 5"));
  EXPECT_THAT(ProblemLines(WithRaven(R"({"draft": {"max_output_tokens": 0}})")),
              ElementsAre("raven.draft.max_output_tokens: expected a positive integer, got 0"));
}

}  // namespace
}  // namespace raw::config
