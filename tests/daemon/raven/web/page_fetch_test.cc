// FetchPage's redirect rules: CheckRedirect on its own (pure), and the fetch
// loop over FakeHttpClient, which answers https:// URLs without TLS or the
// internet (the real client's TLS path is tested in tests/daemon/http).
#include "daemon/raven/web/page_fetch.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::raven::web {
namespace {

using ::testing::HasSubstr;

TEST(CheckRedirectTest, HttpsToHttpIsRefusedOnTheSameHostAndNamesBothUrls) {
  std::optional<RedirectRefusal> same =
      CheckRedirect("https://example.org/a", "https://example.org/a", "http://example.org/a");
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->result, FetchResult::kRefused);
  EXPECT_THAT(same->detail, HasSubstr("redirected from https://example.org/a to "
                                      "http://example.org/a"));
  EXPECT_THAT(same->detail, HasSubstr("from https to plain http"));

  // On another host too, and after an http -> https hop of the same fetch.
  std::optional<RedirectRefusal> other =
      CheckRedirect("http://example.org/", "https://example.org/x", "http://mirror.example.net/x");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->result, FetchResult::kRefused);
  EXPECT_THAT(other->detail, HasSubstr("redirected from https://example.org/x to "
                                       "http://mirror.example.net/x"));
}

TEST(CheckRedirectTest, OtherRedirectsAreJudgedAsBefore) {
  // Same host: http to https, https to https, http to http are followed.
  EXPECT_EQ(CheckRedirect("http://example.org/a", "http://example.org/a", "https://example.org/b"),
            std::nullopt);
  EXPECT_EQ(
      CheckRedirect("https://example.org/a", "https://example.org/a", "https://EXAMPLE.org:443/b"),
      std::nullopt);
  EXPECT_EQ(CheckRedirect("http://example.org/a", "http://example.org/a", "http://example.org/b"),
            std::nullopt);

  std::optional<RedirectRefusal> cross =
      CheckRedirect("https://example.org/a", "https://example.org/a", "https://example.net/a");
  ASSERT_TRUE(cross.has_value());
  EXPECT_EQ(cross->result, FetchResult::kCrossHost);
  EXPECT_THAT(cross->detail, HasSubstr("another host or port (example.net)"));

  std::optional<RedirectRefusal> port =
      CheckRedirect("https://example.org/a", "https://example.org/a", "https://example.org:8443/a");
  ASSERT_TRUE(port.has_value());
  EXPECT_EQ(port->result, FetchResult::kCrossHost);

  std::optional<RedirectRefusal> scheme =
      CheckRedirect("https://example.org/a", "https://example.org/a", "ftp://example.org/a");
  ASSERT_TRUE(scheme.has_value());
  EXPECT_EQ(scheme->result, FetchResult::kRefused);
  EXPECT_THAT(scheme->detail, HasSubstr("redirected to a ftp URL"));
}

::raw::testing::FakeHttpResponse MovedTo(const std::string& location, int status = 301) {
  ::raw::testing::FakeHttpResponse r;
  r.status = status;
  r.headers = {{"Location", location}};
  return r;
}

::raw::testing::FakeHttpResponse PlainPage(const std::string& text) {
  ::raw::testing::FakeHttpResponse r;
  r.headers = {{"Content-Type", "text/plain"}};
  r.chunks = {text};
  return r;
}

class PageFetchRedirectTest : public ::testing::Test {
 protected:
  FetchedPage Fetch(const std::string& url) {
    return FetchPage(client_, url, settings_, /*deadline_ms=*/10000, cancel_);
  }

  ::raw::testing::FakeHttpClient client_;
  VerifierSettings settings_;
  CancelToken cancel_;
};

// A page fetched over https that redirects to http on its own host is not
// fetched over http: the downgraded URL is never requested.
TEST_F(PageFetchRedirectTest, ADowngradeToHttpIsNeverRequested) {
  client_.Enqueue(MovedTo("http://example.org/article"));
  client_.Enqueue(PlainPage("tampered"));
  FetchedPage page = Fetch("https://example.org/article");
  EXPECT_EQ(page.result, FetchResult::kRefused);
  EXPECT_EQ(page.url, "https://example.org/article");
  EXPECT_THAT(page.detail, HasSubstr("redirected from https://example.org/article to "
                                     "http://example.org/article"));
  EXPECT_TRUE(page.body.empty());
  ASSERT_EQ(client_.requests().size(), 1u);
  EXPECT_EQ(client_.requests()[0].url, "https://example.org/article");
}

// http -> https is an upgrade and is followed; a later hop back to http is
// refused.
TEST_F(PageFetchRedirectTest, AnUpgradeIsFollowedAndALaterDowngradeRefused) {
  client_.Enqueue(MovedTo("https://example.org/a"));
  client_.Enqueue(PlainPage("the page"));
  FetchedPage upgraded = Fetch("http://example.org/a");
  EXPECT_EQ(upgraded.result, FetchResult::kOk) << upgraded.detail;
  EXPECT_EQ(upgraded.url, "https://example.org/a");
  EXPECT_EQ(upgraded.body, "the page");

  client_.Enqueue(MovedTo("https://example.org/b", 302));
  client_.Enqueue(MovedTo("/c", 302));
  client_.Enqueue(MovedTo("http://example.org/d", 307));
  client_.Enqueue(PlainPage("tampered"));
  FetchedPage back = Fetch("http://example.org/a");
  EXPECT_EQ(back.result, FetchResult::kRefused);
  EXPECT_THAT(back.detail,
              HasSubstr("redirected from https://example.org/c to http://example.org/d"));
  EXPECT_EQ(client_.requests().size(), 5u);  // 2 + 3: http://example.org/d was never asked
}

}  // namespace
}  // namespace raw::raven::web
