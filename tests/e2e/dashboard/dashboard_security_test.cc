// The gateway's refusals with plain HTTP and WebSocket clients: every API
// route and the WebSocket without the token, with a wrong token, with the
// token in the query string (the dashboard takes it only as a header), with a
// foreign Host, with a cross-site Origin, and with an oversized body; each
// is refused with its status and changes nothing in rawd. A junk cookie of
// the gateway's name beside the real one, and many foreign cookies, still
// admit.
#include <filesystem>

#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"

namespace raw::e2e {
namespace {

struct Endpoint {
  const char* method;
  std::string target;
  std::string body;
};

class DashboardSecurityTest : public DashboardTest {
 protected:
  void SetUp() override {
    DashboardTest::SetUp();
    session_ = daemon_->CreateSession();
    endpoints_ = {
        {"GET", "/api/info", ""},
        {"GET", "/api/sessions", ""},
        {"POST", "/api/sessions", R"({"agent":"coder","directory":")" + daemon_->workdir() + "\"}"},
        {"GET", "/api/sessions/" + session_, ""},
        {"DELETE", "/api/sessions/" + session_, ""},
        {"GET", "/api/sessions/" + session_ + "/history", ""},
        {"GET", "/api/sessions/" + session_ + "/stats", ""},
        {"GET", "/api/agents", ""},
        {"GET", "/api/models", ""},
        {"GET", "/api/mcp", ""},
        {"GET", "/api/config/check", ""},
        {"GET", "/api/packages", ""},
        {"GET", "/api/plugins/raven-research", ""},
        {"PUT", "/api/plugins/raven-research", R"({"settings":{"x":1},"revision":"0"})"},
        {"GET", "/api/preferences", ""},
        {"PUT", "/api/preferences", R"({"theme":"dark"})"},
    };
  }

  // Nothing changed: one session (not deleted, none created), no plugin
  // settings and no preferences written.
  void ExpectNoSideEffect() {
    grpc::ClientContext ctx;
    raw::v1::ListSessionsResponse sessions;
    ASSERT_TRUE(stub().ListSessions(&ctx, {}, &sessions).ok());
    ASSERT_EQ(sessions.sessions_size(), 1);
    EXPECT_EQ(sessions.sessions(0).id(), session_);
    grpc::ClientContext pctx;
    raw::v1::GetPluginSettingsRequest get;
    get.set_namespace_("raven-research");
    raw::v1::PluginSettings settings;
    ASSERT_TRUE(stub().GetPluginSettings(&pctx, get, &settings).ok());
    EXPECT_EQ(settings.revision(), 0);
    EXPECT_FALSE(
        std::filesystem::exists(daemon_->root() + "/state/raw/dashboard-preferences.json"));
  }

  DashboardProcess::Call CallFor(const Endpoint& endpoint) {
    DashboardProcess::Call call;
    call.method = endpoint.method;
    call.target = endpoint.target;
    call.body = endpoint.body;
    return call;
  }

  int UpgradeStatus(std::vector<std::pair<std::string, std::string>> headers,
                    const std::string& host = "", const std::string& query = "") {
    web::testing::WsConnectOptions options;
    options.port = dashboard_.port();
    options.target = "/api/sessions/" + session_ + "/live" + query;
    options.headers = std::move(headers);
    options.host = host;
    web::testing::WsTestClient::Refused refused;
    auto client = web::testing::WsTestClient::Connect(options, &refused);
    EXPECT_FALSE(client.ok()) << "the upgrade was accepted";
    return refused.status;
  }

  std::string session_;
  std::vector<Endpoint> endpoints_;
};

TEST_F(DashboardSecurityTest, EveryRouteWantsTheToken) {
  for (const Endpoint& endpoint : endpoints_) {
    DashboardProcess::Call call = CallFor(endpoint);
    call.with_token = false;
    EXPECT_EQ(dashboard_.Send(call).status, 401) << endpoint.method << " " << endpoint.target;
    call.headers = {"Authorization: Bearer " + std::string(dashboard_.token().size(), 'A')};
    EXPECT_EQ(dashboard_.Send(call).status, 401) << endpoint.method << " " << endpoint.target;
    call.headers = {"Cookie: raw_dashboard=not-the-token"};
    EXPECT_EQ(dashboard_.Send(call).status, 401) << endpoint.method << " " << endpoint.target;
    // The right token, but in the query string (where it would land in
    // history and logs): the dashboard does not take it there.
    call.headers.clear();
    call.target = endpoint.target + "?token=" + dashboard_.token();
    EXPECT_EQ(dashboard_.Send(call).status, 401) << endpoint.method << " " << call.target;
  }
  ExpectNoSideEffect();
}

// A page on another port of 127.0.0.1 can set a cookie of the gateway's
// name (cookies ignore ports) with a longer path, which a browser then
// sends before the gateway's own: the real one still admits, to the API
// and to the WebSocket, while junk alone admits nothing.
TEST_F(DashboardSecurityTest, ATossedCookieOfTheSameNameDoesNotLockTheRealOneOut) {
  DashboardProcess::Call login;
  login.method = "POST";
  login.target = "/api/login";
  auto answer = dashboard_.Send(login);
  ASSERT_EQ(answer.status, 204) << answer.body;
  const std::string name = absl::StrCat("raw_dashboard_", dashboard_.port());
  const std::string set_cookie = answer.headers["set-cookie"];
  ASSERT_THAT(set_cookie, ::testing::StartsWith(name + "="));
  const std::string secret =
      set_cookie.substr(name.size() + 1, set_cookie.find(';') - name.size() - 1);
  const std::string tossed = absl::StrCat(name, "=junk; ", name, "=", secret);

  for (const Endpoint& endpoint : endpoints_) {
    if (std::string(endpoint.method) != "GET") continue;
    DashboardProcess::Call call = CallFor(endpoint);
    call.with_token = false;
    call.headers = {"Cookie: " + tossed};
    EXPECT_EQ(dashboard_.Send(call).status, 200) << endpoint.target;
    call.headers = {absl::StrCat("Cookie: ", name, "=junk")};
    EXPECT_EQ(dashboard_.Send(call).status, 401) << endpoint.target;
    call.headers = {absl::StrCat("Cookie: ", name, "=junk; ", name, "=", secret, "x")};
    EXPECT_EQ(dashboard_.Send(call).status, 401) << endpoint.target;
  }

  web::testing::WsConnectOptions options;
  options.port = dashboard_.port();
  options.target = "/api/sessions/" + session_ + "/live";
  options.headers = {{"Cookie", tossed}};
  auto ws = web::testing::WsTestClient::Connect(options);
  EXPECT_TRUE(ws.ok()) << ws.status();
  EXPECT_EQ(UpgradeStatus({{"Cookie", absl::StrCat(name, "=junk")}}), 401);
  ExpectNoSideEffect();
}

// Other local servers' cookies travel with every request: ~20 KB of them
// still fits; past the header limit the answer says what to clear.
TEST_F(DashboardSecurityTest, ManyForeignCookiesFitAndTooManyAreExplained) {
  DashboardProcess::Call call;
  call.target = "/api/sessions";
  std::string cookies = "Cookie: ";
  for (int i = 0; i < 20; ++i)
    absl::StrAppend(&cookies, "dev_server_", i, "=", std::string(1000, 'c'), "; ");
  call.headers = {cookies};
  EXPECT_EQ(dashboard_.Send(call).status, 200);

  for (int i = 20; i < 40; ++i)
    absl::StrAppend(&cookies, "dev_server_", i, "=", std::string(1000, 'c'), "; ");
  call.headers = {cookies};
  auto refused = dashboard_.Send(call);
  EXPECT_EQ(refused.status, 431);
  EXPECT_THAT(refused.body, ::testing::HasSubstr("clear the browser's cookies for 127.0.0.1"));
}

TEST_F(DashboardSecurityTest, AForeignHostIsRefused) {
  for (const Endpoint& endpoint : endpoints_) {
    for (const std::string& host :
         {std::string("evil.example:") + std::to_string(dashboard_.port()),
          std::string("127.0.0.1:1")}) {
      DashboardProcess::Call call = CallFor(endpoint);
      call.host = host;
      const int status = dashboard_.Send(call).status;
      EXPECT_TRUE(status == 421 || status == 400)
          << endpoint.method << " " << endpoint.target << " " << host << ": " << status;
    }
  }
  ExpectNoSideEffect();
}

TEST_F(DashboardSecurityTest, ACrossSiteOriginCannotChangeAnything) {
  for (const Endpoint& endpoint : endpoints_) {
    if (std::string(endpoint.method) == "GET") continue;  // reads: see docs/dashboard.md
    DashboardProcess::Call call = CallFor(endpoint);
    call.headers = {"Origin: http://evil.example"};
    EXPECT_EQ(dashboard_.Send(call).status, 403) << endpoint.method << " " << endpoint.target;
  }
  DashboardProcess::Call login;
  login.method = "POST";
  login.target = "/api/login";
  login.headers = {"Origin: http://evil.example"};
  EXPECT_EQ(dashboard_.Send(login).status, 403);
  ExpectNoSideEffect();
}

TEST_F(DashboardSecurityTest, AnOversizedBodyIsRefused) {
  for (const char* target : {"/api/sessions", "/api/plugins/raven-research", "/api/preferences"}) {
    DashboardProcess::Call call;
    call.method = std::string(target) == "/api/sessions" ? "POST" : "PUT";
    call.target = target;
    call.declared_length = 2 * 1024 * 1024;  // over the 1 MiB limit
    EXPECT_EQ(dashboard_.Send(call).status, 413) << target;
  }
  ExpectNoSideEffect();
}

TEST_F(DashboardSecurityTest, TheWebSocketWantsTheTokenTheHostAndTheOrigin) {
  const std::string bearer = "Bearer " + dashboard_.token();
  EXPECT_EQ(UpgradeStatus({}), 401);
  EXPECT_EQ(UpgradeStatus({{"Authorization", "Bearer wrong-wrong-wrong-wrong-wrong"}}), 401);
  EXPECT_EQ(UpgradeStatus({}, "", "?token=" + dashboard_.token()), 401);
  const int host = UpgradeStatus({{"Authorization", bearer}},
                                 "evil.example:" + std::to_string(dashboard_.port()));
  EXPECT_TRUE(host == 421 || host == 400) << host;
  EXPECT_EQ(UpgradeStatus({{"Authorization", bearer}, {"Origin", "http://evil.example"}}), 403);
  // With everything right it opens.
  auto ws = OpenLive(session_);
  ASSERT_NE(ws, nullptr);
  ExpectNoSideEffect();
}

}  // namespace
}  // namespace raw::e2e
