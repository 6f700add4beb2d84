// The dashboard in Debian's chromium (browser_fixture.h): a link in a model
// answer opens in a new tab and never replaces the dashboard, and a bad
// token in the address does not sign out a browser whose cookie is good.
#include "gmock/gmock.h"
#include "tests/e2e/dashboard_browser/browser_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

// DOMPurify drops `target` (not on its allow-list), so the page's hook puts
// it back after sanitizing: the rendered link has target=_blank and
// rel="noopener noreferrer", a click opens a tab without an opener, and
// the dashboard's own tab keeps its address and its lease.
TEST_F(DashboardBrowserTest, LinksInAnswersOpenInANewTab) {
  StartAll();
  if (IsSkipped()) return;
  fake_.Enqueue(chat::TextAnswer("To go on: [Continue](https://evil.example/raw)"));
  Json r = Drive("links");
  const Json link = r.value("link", Json::object());
  EXPECT_EQ(link.value("href", ""), "https://evil.example/raw");
  EXPECT_EQ(link.value("text", ""), "Continue");
  EXPECT_EQ(link.value("target", ""), "_blank") << r.dump();
  EXPECT_EQ(link.value("rel", ""), "noopener noreferrer") << r.dump();
  EXPECT_EQ(r.value("popupUrl", ""), "https://evil.example/raw");
  EXPECT_EQ(r.value("popupOpener", ""), "none");
  EXPECT_EQ(r.value("popupReferrer", "x"), "");
  EXPECT_THAT(r.value("dashboardUrl", ""), HasSubstr("#/s/"));
  EXPECT_EQ(r.value("urlAfterClick", ""), r.value("dashboardUrl", "-"));
  EXPECT_EQ(r.value("leaseAfterClick", ""), "holding");
}

// After a normal login, the page loaded again with a wrong #token=: the
// login is refused, but the cookie still admits, so the sessions show
// (and the token is gone from the address).
TEST_F(DashboardBrowserTest, ABadTokenInTheAddressKeepsAValidCookieSignedIn) {
  StartAll();
  if (IsSkipped()) return;
  daemon_->CreateSession();
  Json r = Drive("relogin");
  EXPECT_EQ(r.value("fatal", "?"), "");
  EXPECT_EQ(r.value("listed", 0), 1);
  EXPECT_EQ(r.value("hash", ""), "#/");
}

}  // namespace
}  // namespace raw::e2e
