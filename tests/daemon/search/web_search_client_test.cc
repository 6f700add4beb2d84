// The web search client: the SearXNG and Brave answer parsers, error
// messages in the backend's own words without the key, and the requests it
// sends (through a fake HttpClient).
#include "daemon/search/web_search_client.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::search {
namespace {

using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSearxng[] = R"({"query": "tides", "results": [
  {"title": "Tides", "url": "https://ocean.test/tides", "content": "Tides are long waves.",
   "publishedDate": "2024-05-01T00:00:00"},
  {"title": "No link", "content": "skipped"},
  {"title": "FTP", "url": "ftp://files.test/x"},
  "not an object",
  {"title": "Moon", "url": "http://moon.test/", "content": "The Moon pulls."},
  {"title": "Third", "url": "https://third.test/"}]})";

constexpr char kBrave[] = R"({"type": "search", "web": {"type": "search", "results": [
  {"title": "Tides", "url": "https://ocean.test/tides", "description": "Long <strong>waves</strong>.",
   "age": "May 1, 2024"},
  {"title": "Aged", "url": "https://aged.test/", "description": "d", "page_age": "2023-01-02"}]}})";

TEST(ParseSearxngResultsTest, ReadsTitleUrlContentAndDateInOrder) {
  absl::StatusOr<std::vector<SearchResult>> r = ParseSearxngResults(kSearxng, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(*r, ElementsAre(SearchResult{"Tides", "https://ocean.test/tides",
                                           "Tides are long waves.", "2024-05-01T00:00:00"},
                              SearchResult{"Moon", "http://moon.test/", "The Moon pulls.", ""},
                              SearchResult{"Third", "https://third.test/", "", ""}));
  absl::StatusOr<std::vector<SearchResult>> two = ParseSearxngResults(kSearxng, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->size(), 2u);
  EXPECT_EQ(two->back().title, "Moon");
}

TEST(ParseSearxngResultsTest, MalformedAnswersSayWhatIsWrong) {
  EXPECT_THAT(ParseSearxngResults("<html>rate limited</html>", 5).status().message(),
              HasSubstr("the answer is not JSON"));
  EXPECT_EQ(ParseSearxngResults("[]", 5).status().message(), "the answer is not a JSON object");
  EXPECT_EQ(ParseSearxngResults(R"({"query": "x"})", 5).status().message(),
            "the answer has no \"results\" array");
  EXPECT_EQ(ParseSearxngResults(R"({"results": {}})", 5).status().message(),
            "\"results\" is not an array");
  absl::StatusOr<std::vector<SearchResult>> none = ParseSearxngResults(R"({"results": []})", 5);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(ParseBraveResultsTest, ReadsWebResultsWithAgeOrPageAge) {
  absl::StatusOr<std::vector<SearchResult>> r = ParseBraveResults(kBrave, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(*r, ElementsAre(SearchResult{"Tides", "https://ocean.test/tides",
                                           "Long <strong>waves</strong>.", "May 1, 2024"},
                              SearchResult{"Aged", "https://aged.test/", "d", "2023-01-02"}));
  // No "web" section: nothing found.
  absl::StatusOr<std::vector<SearchResult>> none = ParseBraveResults(R"({"type": "search"})", 5);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(ParseBraveResults(R"({"web": []})", 5).status().message(), "\"web\" is not an object");
  EXPECT_EQ(ParseBraveResults(R"({"web": {}})", 5).status().message(),
            "the answer has no \"web.results\" array");
}

TEST(ErrorBodyMessageTest, QuotesTheBackendsOwnWords) {
  EXPECT_EQ(ErrorBodyMessage(R"({"error": "searx.exceptions.SearxEngineAccessDenied"})"),
            "searx.exceptions.SearxEngineAccessDenied");
  EXPECT_EQ(ErrorBodyMessage(
                R"({"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID",
                    "detail": "The provided subscription token is invalid.", "status": 422}})"),
            "The provided subscription token is invalid.");
  EXPECT_EQ(ErrorBodyMessage("<h1>Internal\n  Server   Error</h1>"),
            "<h1>Internal Server Error</h1>");
  EXPECT_EQ(ErrorBodyMessage(std::string(400, 'x')), std::string(300, 'x') + "...");
}

TEST(EncodeQueryValueTest, PercentEncodesAllButUnreserved) {
  EXPECT_EQ(EncodeQueryValue("tides & moon/sun?=é"), "tides%20%26%20moon%2Fsun%3F%3D%C3%A9");
  EXPECT_EQ(EncodeQueryValue("a-b_c.d~e"), "a-b_c.d~e");
}

FakeHttpResponse Answer(int status, std::string body) {
  FakeHttpResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json"}};
  r.chunks = {std::move(body)};
  return r;
}

config::RavenSearchSettings Searxng() {
  config::RavenSearchSettings s;
  s.backend = config::SearchBackendKind::kSearxng;
  s.url = "http://127.0.0.1:8888";
  s.timeout_ms = 2500;
  return s;
}

config::RavenSearchSettings Brave() {
  config::RavenSearchSettings s;
  s.backend = config::SearchBackendKind::kBrave;
  s.url = config::kBraveSearchUrl;
  s.api_key_variable = "BRAVE_KEY";
  return s;
}

TEST(WebSearchClientTest, SearxngRequestAndResults) {
  FakeHttpClient http;
  http.Enqueue(Answer(200, kSearxng));
  WebSearchClient client(http, Searxng(), "", /*allow_private_addresses=*/true);
  CancelToken cancel;
  absl::StatusOr<std::vector<SearchResult>> r = client.Search("tides & moon", 2, cancel);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->size(), 2u);
  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.method, "GET");
  EXPECT_EQ(sent.url, "http://127.0.0.1:8888/search?q=tides%20%26%20moon&format=json");
  EXPECT_EQ(sent.total_timeout_ms, 2500);
  EXPECT_FALSE(sent.public_addresses_only);
}

TEST(WebSearchClientTest, BraveSendsTheTokenAsAHeaderOnlyAndOnlyPublicAddresses) {
  FakeHttpClient http;
  http.Enqueue(Answer(200, kBrave));
  WebSearchClient client(http, Brave(), "BSA-secret-token", /*allow_private_addresses=*/false);
  CancelToken cancel;
  absl::StatusOr<std::vector<SearchResult>> r = client.Search("tides", 5, cancel);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->size(), 2u);
  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.url, "https://api.search.brave.com/res/v1/web/search?q=tides&count=5");
  EXPECT_EQ(http::FindHeader(sent.headers, "X-Subscription-Token"), "BSA-secret-token");
  EXPECT_TRUE(sent.public_addresses_only);
}

TEST(WebSearchClientTest, HttpErrorsQuoteTheBackendWithoutTheKey) {
  FakeHttpClient http;
  http.Enqueue(Answer(422, R"({"error": {"detail": "token BSA-secret-token is invalid"}})"));
  WebSearchClient client(http, Brave(), "BSA-secret-token", false);
  CancelToken cancel;
  absl::Status s = client.Search("tides", 5, cancel).status();
  EXPECT_EQ(s.message(), "the brave search backend answered HTTP 422: token [redacted] is invalid");
  EXPECT_THAT(s.message(), Not(HasSubstr("BSA-secret")));
}

TEST(WebSearchClientTest, MalformedAnswersAndUnreachableBackends) {
  FakeHttpClient http;
  http.Enqueue(Answer(200, "<html>captcha</html>"));
  FakeHttpResponse refused;
  refused.status = 0;
  refused.end_status = absl::UnavailableError("connection refused");
  http.Enqueue(refused);
  FakeHttpResponse slow;
  slow.status = 0;
  slow.end_status = absl::DeadlineExceededError("timed out");
  http.Enqueue(slow);
  WebSearchClient client(http, Searxng(), "", true);
  CancelToken cancel;
  EXPECT_THAT(client.Search("a", 5, cancel).status().message(),
              HasSubstr("the searxng search backend's answer is malformed: the answer is not JSON"));
  absl::Status unreachable = client.Search("b", 5, cancel).status();
  EXPECT_TRUE(absl::IsUnavailable(unreachable)) << unreachable;
  EXPECT_EQ(unreachable.message(),
            "the searxng search backend could not be reached: connection refused");
  absl::Status late = client.Search("c", 5, cancel).status();
  EXPECT_TRUE(absl::IsDeadlineExceeded(late)) << late;
  EXPECT_THAT(late.message(), HasSubstr("did not answer within 2500 ms"));
}

// A backend's address written in raven.search.url is the user's choice and
// is reached as written; a host name must resolve to a public address unless
// private ones are allowed.
TEST(WebSearchClientTest, ABackendWrittenAsALocalAddressIsReachedWithoutTheNetworkSwitch) {
  // Whether a search at a backend of `url`, without the switch, may reach
  // only public addresses.
  auto public_only = [](const char* url) {
    FakeHttpClient http;
    http.Enqueue(Answer(200, kSearxng));
    config::RavenSearchSettings settings = Searxng();
    settings.url = url;
    WebSearchClient client(http, settings, "", /*allow_private_addresses=*/false);
    CancelToken cancel;
    (void)client.Search("tides", 2, cancel);
    return http.single_request().public_addresses_only;
  };
  for (const char* url : {"http://127.0.0.1:8888", "http://localhost:8888/", "http://[::1]:8888",
                          "http://10.1.2.3", "http://192.168.1.9:80/searx"}) {
    EXPECT_FALSE(public_only(url)) << url;
  }
  for (const char* url : {"http://searx.example", "http://127.0.0.1.nip.io:8888",
                          "http://user@127.0.0.1:8888", "http://8.8.8.8", "not a url"}) {
    EXPECT_TRUE(public_only(url)) << url;
  }
}

TEST(WebSearchClientTest, NoBackendIsAFailedPrecondition) {
  FakeHttpClient http;
  WebSearchClient client(http, config::RavenSearchSettings(), "", false);
  CancelToken cancel;
  absl::Status s = client.Search("a", 5, cancel).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_TRUE(http.requests().empty());
}

}  // namespace
}  // namespace raw::search
