// builtin/web_fetch redirects whose target carries credentials: the result
// names the target without them and says they were dropped; the URL helper
// behind it (WithoutCredentials) on its own.
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/http/curl_http_client.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/web_url.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"
#include "tests/fakes/fake_provider_server.h"

namespace raw::tools {
namespace {

using ::raw::testing::FakeProviderServer;
using ::raw::testing::ScriptedResponse;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Call;

class WebFetchRedirectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.status().ok()) << server_.status();
    settings_.web_fetch.allow_private_addresses = true;  // the fake site is on 127.0.0.1
  }

  // Fetches /from, which answers `status` with `location`.
  ToolOutput Redirected(int status, const std::string& location) {
    ScriptedResponse moved;
    moved.status = status;
    moved.headers = {{"Content-Type", "text/plain"}, {"Location", location}};
    server_.Enqueue(moved);
    CancelToken cancel;
    return Call(spec_, {{"url", Origin() + "/from"}}, "/", settings_, cancel, &client_);
  }
  std::string Origin() const { return absl::StrCat("http://127.0.0.1:", server_.port()); }

  FakeProviderServer server_;
  http::CurlHttpClient client_;
  config::ToolSettings settings_;
  ToolSpec spec_ = builtin::MakeWebFetchTool();
};

TEST_F(WebFetchRedirectTest, TargetIsNamedWithoutItsCredentials) {
  ToolOutput out = Redirected(302, "http://alice:s3cret-pw@127.0.0.1:9/next?page=2");
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content,
            "HTTP 302 redirect from " + Origin() +
                "/from to http://127.0.0.1:9/next?page=2 (the redirect carried credentials, "
                "user:password@ before the host; they were dropped and web_fetch never sends "
                "them). web_fetch does not follow redirects: call it again with that URL to "
                "fetch the target.");
  EXPECT_EQ(server_.requests().size(), 1u);  // nothing followed
}

TEST_F(WebFetchRedirectTest, NoFormOfTheUserinfoIsRepeated) {
  // Scheme-relative, user name only, and percent-encoded forms.
  for (const std::string location :
       {"//bob:hunter2-pw@other.example/x", "http://carol-name@other.example/y",
        "https://dave%40corp:p%40ss-word@other.example/z"}) {
    ToolOutput out = Redirected(301, location);
    EXPECT_EQ(out.status, events::ToolStatus::kError);
    EXPECT_THAT(out.content, HasSubstr(" to http")) << location;
    EXPECT_THAT(out.content, HasSubstr("://other.example/")) << out.content;
    EXPECT_THAT(out.content, HasSubstr("they were dropped")) << out.content;
    for (const char* secret : {"bob", "hunter2", "carol", "dave", "p%40ss", "@other"}) {
      EXPECT_THAT(out.content, Not(HasSubstr(secret))) << out.content;
    }
  }
}

TEST_F(WebFetchRedirectTest, OtherSchemesAndInvalidLocationsNeverShowCredentials) {
  ToolOutput ftp = Redirected(302, "ftp://erin:ftp-secret@files.example/x");
  EXPECT_EQ(ftp.status, events::ToolStatus::kError);
  EXPECT_THAT(ftp.content, HasSubstr("to ftp://files.example/x (the redirect carried credentials"));
  EXPECT_THAT(ftp.content, HasSubstr("which is not an http(s) URL"));
  EXPECT_THAT(ftp.content, Not(HasSubstr("ftp-secret")));
  EXPECT_THAT(ftp.content, Not(HasSubstr("erin")));

  ToolOutput invalid = Redirected(302, "http://frank:bad-secret@exa mple.com/");
  EXPECT_EQ(invalid.status, events::ToolStatus::kError);
  EXPECT_THAT(invalid.content,
              HasSubstr("to an invalid location (not shown: it may hold credentials)"));
  EXPECT_THAT(invalid.content, Not(HasSubstr("bad-secret")));
  EXPECT_THAT(invalid.content, Not(HasSubstr("frank")));
}

TEST_F(WebFetchRedirectTest, TargetsWithoutCredentialsAreShownAsTheyAre) {
  ToolOutput out = Redirected(307, "/users/@me?at=a@b");
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "HTTP 307 redirect from " + Origin() + "/from to " + Origin() +
                             "/users/@me?at=a@b. web_fetch does not follow redirects: call it "
                             "again with that URL to fetch the target.");
}

TEST(WithoutCredentialsTest, RemovesUserPasswordAndOptions) {
  builtin::ShownUrl plain = builtin::WithoutCredentials("https://example.com/a@b?c=d@e");
  EXPECT_EQ(plain.shown, "https://example.com/a@b?c=d@e");
  EXPECT_FALSE(plain.had_credentials);

  builtin::ShownUrl full = builtin::WithoutCredentials("https://u:p@example.com:8443/x#frag");
  EXPECT_EQ(full.shown, "https://example.com:8443/x#frag");
  EXPECT_TRUE(full.had_credentials);

  builtin::ShownUrl user = builtin::WithoutCredentials("http://u@example.com/");
  EXPECT_EQ(user.shown, "http://example.com/");
  EXPECT_TRUE(user.had_credentials);

  builtin::ShownUrl empty_password = builtin::WithoutCredentials("http://:pw@example.com/");
  EXPECT_EQ(empty_password.shown, "http://example.com/");
  EXPECT_TRUE(empty_password.had_credentials);

  builtin::ShownUrl unparsed = builtin::WithoutCredentials("http://u:p@bad host/");
  EXPECT_EQ(unparsed.shown, "");
  EXPECT_TRUE(unparsed.had_credentials);

  builtin::ShownUrl unparsed_plain = builtin::WithoutCredentials("not a url");
  EXPECT_EQ(unparsed_plain.shown, "not a url");
  EXPECT_FALSE(unparsed_plain.had_credentials);
}

}  // namespace
}  // namespace raw::tools
