// WebSourceSearcher: one discovery batch through the search backend, each
// query on its own, a failing query reported as that query's error, the
// reasons discovery is unavailable, and the settings read at every call.
#include "daemon/raven/web/web_source_searcher.h"

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "common/thread_start.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

using ::testing::HasSubstr;

// Answers by the query in the URL, whatever order the threads call in.
class RoutingHttpClient : public http::HttpClient {
 public:
  struct Reply {
    int status = 200;
    std::string body;
  };
  void Route(const std::string& url_part, Reply reply) { routes_[url_part] = std::move(reply); }

  absl::Status Send(const http::HttpRequest& request, http::HttpResponseHandler& handler,
                    const CancelToken&) override {
    {
      absl::MutexLock lock(&mu_);
      requests_.push_back(request);
    }
    for (const auto& [part, reply] : routes_) {
      if (!absl::StrContains(request.url, part)) continue;
      handler.OnStatus(reply.status, {{"Content-Type", "application/json"}});
      handler.OnBody(reply.body);
      return absl::OkStatus();
    }
    return absl::UnavailableError("no route");
  }
  std::vector<http::HttpRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  std::map<std::string, Reply> routes_;
  mutable absl::Mutex mu_;
  std::vector<http::HttpRequest> requests_ ABSL_GUARDED_BY(mu_);
};

class MutableSettings : public config::RavenSettingsSource {
 public:
  config::RavenSettings Current() const override { return settings; }
  config::RavenSettings settings;
};

std::string Results(const std::string& prefix, int n) {
  std::string items;
  for (int i = 1; i <= n; ++i) {
    if (i > 1) items += ",";
    items += R"({"title": ")" + prefix + std::to_string(i) + R"(", "url": "https://)" + prefix +
             ".test/" + std::to_string(i) + R"(", "content": "c", "publishedDate": "2024"})";
  }
  return R"({"results": [)" + items + "]}";
}

class WebSourceSearcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings_.settings.search.backend = config::SearchBackendKind::kSearxng;
    settings_.settings.search.url = "http://search.test";
  }
  RoutingHttpClient http_;
  MutableSettings settings_;
};

TEST_F(WebSourceSearcherTest, EachQueryAnswersOnItsOwnAndAFailureStaysWithItsQuery) {
  http_.Route("q=alpha", {200, Results("a", 3)});
  http_.Route("q=beta", {500, R"({"error": "engine crashed"})"});
  http_.Route("q=gamma", {200, Results("g", 1)});
  WebSourceSearcher searcher(&http_, settings_, nullptr);
  EXPECT_EQ(searcher.Unavailable(), std::nullopt);
  CancelToken cancel;
  std::vector<SearchAnswer> answers = searcher.Search({"alpha", "beta", "gamma"}, 2, cancel);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0].query, "alpha");
  ASSERT_EQ(answers[0].leads.size(), 2u) << "at most max_results per query";
  EXPECT_EQ(answers[0].leads[0].url, "https://a.test/1");
  EXPECT_EQ(answers[0].leads[0].title, "a1");
  EXPECT_EQ(answers[0].leads[0].snippet, "c");
  EXPECT_EQ(answers[0].leads[0].published, "2024");
  EXPECT_FALSE(answers[0].error);
  EXPECT_EQ(answers[1].query, "beta");
  ASSERT_TRUE(answers[1].error);
  EXPECT_EQ(*answers[1].error, "the searxng search backend answered HTTP 500: engine crashed");
  EXPECT_EQ(answers[2].leads.size(), 1u);
  EXPECT_EQ(http_.requests().size(), 3u);
}

// Without a thread for a query, that query fails with a clear error and
// the others are searched.
TEST_F(WebSourceSearcherTest, AQueryWithoutAThreadFailsAndTheOthersAreSearched) {
  http_.Route("q=alpha", {200, Results("a", 1)});
  http_.Route("q=gamma", {200, Results("g", 1)});
  WebSourceSearcher searcher(&http_, settings_, nullptr);
  CancelToken cancel;
  RefuseThreadStartsForTesting refuse("the web search for \"beta\"");
  std::vector<SearchAnswer> answers = searcher.Search({"alpha", "beta", "gamma"}, 2, cancel);
  EXPECT_EQ(refuse.refused(), 1);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0].leads.size(), 1u);
  EXPECT_FALSE(answers[0].error);
  ASSERT_TRUE(answers[1].error);
  EXPECT_THAT(*answers[1].error,
              ::testing::StartsWith("could not start a thread for the web search for \"beta\": "));
  EXPECT_TRUE(answers[1].leads.empty());
  EXPECT_EQ(answers[2].leads.size(), 1u);
  EXPECT_EQ(http_.requests().size(), 2u);
}

TEST_F(WebSourceSearcherTest, TheConfiguredResultCountBoundsEachQuery) {
  settings_.settings.search.max_results = 1;
  http_.Route("q=alpha", {200, Results("a", 3)});
  WebSourceSearcher searcher(&http_, settings_, nullptr);
  CancelToken cancel;
  EXPECT_EQ(searcher.Search({"alpha"}, 8, cancel).at(0).leads.size(), 1u);
}

TEST_F(WebSourceSearcherTest, UnavailableNamesWhy) {
  WebSourceSearcher no_http(nullptr, settings_, nullptr);
  EXPECT_THAT(no_http.Unavailable().value_or(""), HasSubstr("no HTTP client"));
  WebSourceSearcher searcher(&http_, settings_, nullptr);
  settings_.settings.discovery_enabled = false;
  EXPECT_THAT(searcher.Unavailable().value_or(""), HasSubstr("raven.discovery.enabled is false"));
  settings_.settings.discovery_enabled = true;
  settings_.settings.search.backend = config::SearchBackendKind::kNone;
  EXPECT_THAT(searcher.Unavailable().value_or(""), HasSubstr("no search backend is configured"));
  // Read at every call: configuring a backend makes it available at once.
  settings_.settings.search.backend = config::SearchBackendKind::kSearxng;
  EXPECT_EQ(searcher.Unavailable(), std::nullopt);
}

TEST_F(WebSourceSearcherTest, BraveKeyComesFromItsVariableAndAnUnreadableOneFailsEveryQuery) {
  settings_.settings.search.backend = config::SearchBackendKind::kBrave;
  settings_.settings.search.url = "https://brave.test/search";
  settings_.settings.search.api_key_variable = "BRAVE_KEY";
  http_.Route("q=alpha", {200, R"({"web": {"results": [{"title": "T", "url": "https://t.test/",
                                   "description": "d", "age": "1 day ago"}]}})"});
  WebSourceSearcher searcher(&http_, settings_, [](const std::string& name) {
    return name == "BRAVE_KEY" ? absl::StatusOr<std::string>("tok-123")
                               : absl::NotFoundError("no such variable");
  });
  CancelToken cancel;
  std::vector<SearchAnswer> ok = searcher.Search({"alpha"}, 8, cancel);
  ASSERT_EQ(ok.at(0).leads.size(), 1u) << ok[0].error.value_or("");
  EXPECT_EQ(ok[0].leads[0].published, "1 day ago");
  EXPECT_EQ(http::FindHeader(http_.requests().at(0).headers, "X-Subscription-Token"), "tok-123");

  WebSourceSearcher unreadable(&http_, settings_, [](const std::string&) {
    return absl::StatusOr<std::string>(absl::UnavailableError("the command exited 1"));
  });
  std::vector<SearchAnswer> failed = unreadable.Search({"alpha", "beta"}, 8, cancel);
  for (const SearchAnswer& a : failed) {
    ASSERT_TRUE(a.error);
    EXPECT_THAT(*a.error, HasSubstr("key variable BRAVE_KEY could not be read"));
  }
  EXPECT_EQ(http_.requests().size(), 1u) << "nothing is sent without the key";
}

}  // namespace
}  // namespace raw::raven::web
