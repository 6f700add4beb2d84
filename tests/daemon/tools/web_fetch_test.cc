#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "daemon/http/curl_http_client.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/web_content.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"
#include "tests/fakes/fake_provider_server.h"

namespace raw::tools {
namespace {

using ::raw::testing::FakeProviderServer;
using ::raw::testing::ScriptedResponse;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::Call;

ScriptedResponse Respond(int status, std::string content_type, std::vector<std::string> chunks) {
  ScriptedResponse response;
  response.status = status;
  response.headers = {{"Content-Type", std::move(content_type)}};
  response.chunks = std::move(chunks);
  return response;
}

class WebFetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.status().ok()) << server_.status();
    // The fake site is on 127.0.0.1.
    settings_.web_fetch.allow_private_addresses = true;
  }

  ToolOutput Fetch(const Json& args) {
    CancelToken cancel;
    return Call(spec_, args, "/", settings_, cancel, &client_);
  }
  // The server's root, e.g. "http://127.0.0.1:1234".
  std::string Origin() const { return absl::StrCat("http://127.0.0.1:", server_.port()); }

  FakeProviderServer server_;
  http::CurlHttpClient client_;
  config::ToolSettings settings_;
  ToolSpec spec_ = builtin::MakeWebFetchTool();
};

TEST_F(WebFetchTest, SpecAsksByDefaultAndRulesSeeTheUrl) {
  EXPECT_EQ(spec_.model_name, "web_fetch");
  EXPECT_FALSE(spec_.read_only);
  EXPECT_EQ(spec_.rule_subject, RuleSubject::kUrl);
  EXPECT_EQ(spec_.rule_argument, "url");
  EXPECT_EQ(spec_.input_schema["required"], OrderedJson({"url"}));
}

TEST_F(WebFetchTest, RefusesThisMachineUnlessPrivateAddressesAreAllowed) {
  settings_.web_fetch.allow_private_addresses = false;
  ToolOutput out = Fetch({{"url", Origin() + "/page"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content,
              StartsWith("fetching " + Origin() + "/page was refused: refused to connect to "
                         "127.0.0.1:" + std::to_string(server_.port()) +
                         " at 127.0.0.1 (a loopback address (127.0.0.0/8))"));
  EXPECT_THAT(out.content, HasSubstr("\"allow_private_addresses\": true"));
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(WebFetchTest, HtmlBecomesReadableText) {
  server_.Enqueue(Respond(200, "text/html; charset=utf-8",
                          {"<!doctype html><html><head><title>Docs</title>",
                           "<script>track()</script></head><body><h1>Intro</h1>",
                           "<p>Read <a href=\"/guide\">the guide</a>.</p>"
                           "<ul><li>one</li><li>two</li></ul></body></html>"}));
  ToolOutput out = Fetch({{"url", Origin() + "/docs/index.html#part"}});
  ASSERT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  EXPECT_EQ(out.content, "HTTP 200 " + Origin() +
                             "/docs/index.html (text/html)\n\n"
                             "Title: Docs\n\n# Intro\n\nRead the guide (" +
                             Origin() + "/guide).\n\n- one\n- two");
  EXPECT_EQ(server_.single_request().method, "GET");
  EXPECT_EQ(server_.single_request().path, "/docs/index.html");
  EXPECT_THAT(server_.single_request().Header("Accept"), HasSubstr("text/html"));
}

TEST_F(WebFetchTest, PlainTextAndJsonComeBackAsTheyAre) {
  server_.Enqueue(Respond(200, "text/plain", {"line one\n", "  line two\n"}));
  EXPECT_EQ(Fetch({{"url", Origin() + "/a.txt"}}).content,
            "HTTP 200 " + Origin() + "/a.txt (text/plain)\n\nline one\n  line two\n");
  server_.Enqueue(Respond(200, "application/json", {"{\"a\": [1, 2]}"}));
  EXPECT_EQ(Fetch({{"url", Origin() + "/a.json"}}).content,
            "HTTP 200 " + Origin() + "/a.json (application/json)\n\n{\"a\": [1, 2]}");
}

TEST_F(WebFetchTest, OtherCharsetsAreConvertedToUtf8) {
  server_.Enqueue(Respond(200, "text/plain; charset=ISO-8859-1", {"caf\xe9"}));
  EXPECT_THAT(Fetch({{"url", Origin() + "/latin1"}}).content, EndsWith("caf\xc3\xa9"));
}

TEST_F(WebFetchTest, BinaryContentIsRefusedByType) {
  server_.Enqueue(Respond(200, "image/png", {std::string("\x89PNG\r\n\x1a\n\0\0", 10)}));
  ToolOutput out = Fetch({{"url", Origin() + "/logo.png"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("the response is image/png, which is not text"));
}

TEST_F(WebFetchTest, HttpErrorsQuoteTheStartOfTheBody) {
  server_.Enqueue(Respond(404, "text/html", {"<html><body><h1>Not Found</h1>"
                                             "<p>No such page.</p></body></html>"}));
  ToolOutput out = Fetch({{"url", Origin() + "/missing"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "HTTP 404 from " + Origin() +
                             "/missing; the response says:\n# Not Found\n\nNo such page.");
  server_.Enqueue(Respond(500, "text/plain", {std::string(5000, 'e')}));
  ToolOutput long_error = Fetch({{"url", Origin() + "/boom"}});
  EXPECT_EQ(long_error.status, events::ToolStatus::kError);
  EXPECT_THAT(long_error.content, EndsWith(std::string(2000, 'e') + "\n[...]"));
}

TEST_F(WebFetchTest, RedirectsAreReportedNotFollowed) {
  ScriptedResponse moved = Respond(301, "text/html", {"<a href=/new>moved</a>"});
  moved.headers.push_back({"Location", "/new/place?x=1"});
  server_.Enqueue(moved);
  ToolOutput out = Fetch({{"url", Origin() + "/old"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "HTTP 301 redirect from " + Origin() + "/old to " + Origin() +
                             "/new/place?x=1. web_fetch does not follow redirects: call it "
                             "again with that URL to fetch the target.");
  EXPECT_EQ(server_.requests().size(), 1u);

  ScriptedResponse to_ftp = Respond(302, "text/plain", {});
  to_ftp.headers.push_back({"Location", "ftp://files.example/x"});
  server_.Enqueue(to_ftp);
  ToolOutput ftp = Fetch({{"url", Origin() + "/f"}});
  EXPECT_EQ(ftp.status, events::ToolStatus::kError);
  EXPECT_THAT(ftp.content, HasSubstr("ftp://files.example/x, which is not an http(s) URL"));
}

TEST_F(WebFetchTest, OversizedBodiesAreCutAndSaySo) {
  settings_.web_fetch.max_bytes = 100;
  server_.Enqueue(Respond(200, "text/plain", std::vector<std::string>(50, std::string(40, 'x'))));
  ToolOutput out = Fetch({{"url", Origin() + "/big"}});
  ASSERT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  EXPECT_EQ(out.content, "HTTP 200 " + Origin() + "/big (text/plain)\n\n" +
                             std::string(100, 'x') +
                             "\n\n[the response was longer than 100 bytes "
                             "(tools.web_fetch.max_bytes); the transfer was stopped there and "
                             "only its first part is shown]");
}

TEST_F(WebFetchTest, TextIsCappedAtTheOutputLimitAndAtMaxBytes) {
  settings_.web_fetch.max_output_bytes = 30;
  server_.Enqueue(Respond(200, "text/plain", {std::string(80, 'y')}));
  EXPECT_THAT(Fetch({{"url", Origin() + "/t"}}).content,
              EndsWith(std::string(30, 'y') +
                       "\n\n[text cut at 30 of 80 bytes (tools.web_fetch.max_output_bytes)]"));
  server_.Enqueue(Respond(200, "text/plain", {std::string(80, 'y')}));
  EXPECT_THAT(Fetch({{"url", Origin() + "/t"}, {"max_bytes", 10}}).content,
              EndsWith(std::string(10, 'y') + "\n\n[text cut at 10 of 80 bytes (max_bytes)]"));
}

TEST_F(WebFetchTest, RefusesCredentialsAndOtherSchemesWithoutARequest) {
  ToolOutput creds = Fetch({{"url", "http://alice:s3cret@127.0.0.1:" +
                                        std::to_string(server_.port()) + "/"}});
  EXPECT_EQ(creds.status, events::ToolStatus::kError);
  EXPECT_THAT(creds.content, HasSubstr("credentials"));
  EXPECT_THAT(creds.content, Not(HasSubstr("s3cret")));
  ToolOutput ftp = Fetch({{"url", "ftp://127.0.0.1/file"}});
  EXPECT_EQ(ftp.status, events::ToolStatus::kError);
  EXPECT_THAT(ftp.content, StartsWith("unsupported URL scheme \"ftp\""));
  ToolOutput relative = Fetch({{"url", "example.com/page"}});
  EXPECT_EQ(relative.status, events::ToolStatus::kError);
  EXPECT_THAT(relative.content, HasSubstr("not an absolute URL"));
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(WebFetchTest, WithoutAnHttpClientTheToolIsUnavailable) {
  CancelToken cancel;
  ToolOutput out = Call(spec_, {{"url", Origin() + "/"}}, "/", settings_, cancel, nullptr);
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, StartsWith("web_fetch is not available"));
}

TEST_F(WebFetchTest, TimesOutOnASilentServer) {
  settings_.web_fetch.timeout_ms = 300;
  ScriptedResponse stalled = Respond(200, "text/plain", {"late"});
  stalled.gate_before_chunk = 0;
  server_.Enqueue(stalled);
  ToolOutput out = Fetch({{"url", Origin() + "/slow"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("timed out"));
  server_.ReleaseGate();
}

TEST_F(WebFetchTest, CancellationStopsAParkedTransfer) {
  ScriptedResponse stalled = Respond(200, "text/plain", {"late"});
  stalled.gate_before_chunk = 0;
  server_.Enqueue(stalled);
  CancelToken cancel;
  ToolOutput out;
  std::thread fetcher([&] {
    out = Call(spec_, {{"url", Origin() + "/slow"}}, "/", settings_, cancel, &client_);
  });
  ASSERT_TRUE(server_.WaitForGate());
  cancel.Cancel();
  fetcher.join();
  EXPECT_EQ(out.status, events::ToolStatus::kCancelled);
  server_.ReleaseGate();
}

TEST_F(WebFetchTest, ConnectionFailuresAreErrors) {
  std::string url = Origin() + "/";
  server_.Stop();
  ToolOutput out = Fetch({{"url", url}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, StartsWith("fetching " + url + " failed: "));
}

TEST(WebContentTest, SniffsHtmlAndBinaryWithoutAContentType) {
  absl::StatusOr<builtin::WebText> html =
      builtin::BodyToText("", "  <!DOCTYPE html><p>hi</p>");
  ASSERT_TRUE(html.ok());
  EXPECT_TRUE(html->html);
  EXPECT_EQ(html->text, "hi");
  absl::StatusOr<builtin::WebText> text = builtin::BodyToText("", "just <b>text</b>");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->text, "just <b>text</b>");
  EXPECT_FALSE(builtin::BodyToText("", std::string("\0\1\2", 3)).ok());
  EXPECT_FALSE(builtin::BodyToText("application/octet-stream", "abc").ok());
}

TEST(WebContentTest, HonoursMetaCharsetAndReplacesInvalidUtf8) {
  absl::StatusOr<builtin::WebText> meta = builtin::BodyToText(
      "text/html", "<html><head><meta charset=\"windows-1252\"></head><p>\x93q\x94</p>");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->text, "\xe2\x80\x9cq\xe2\x80\x9d");
  absl::StatusOr<builtin::WebText> broken = builtin::BodyToText("text/plain", "a\xff" "b");
  ASSERT_TRUE(broken.ok());
  EXPECT_EQ(broken->text, "a\xef\xbf\xbd" "b");
  EXPECT_FALSE(builtin::BodyToText("text/plain; charset=no-such-charset", "x").ok());
}

}  // namespace
}  // namespace raw::tools
