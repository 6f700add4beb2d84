// The gateway's refusals with plain HTTP and WebSocket clients: every API
// route and the WebSocket without the token, with a wrong token, with a
// foreign Host, with a cross-site Origin, and with an oversized body; each
// is refused with its status and changes nothing in rawd.
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
    };
  }

  // Nothing changed: one session (not deleted, none created), no plugin
  // settings written.
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
  }

  DashboardProcess::Call CallFor(const Endpoint& endpoint) {
    DashboardProcess::Call call;
    call.method = endpoint.method;
    call.target = endpoint.target;
    call.body = endpoint.body;
    return call;
  }

  int UpgradeStatus(std::vector<std::pair<std::string, std::string>> headers,
                    const std::string& host = "") {
    web::testing::WsConnectOptions options;
    options.port = dashboard_.port();
    options.target = "/api/sessions/" + session_ + "/live";
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
  }
  ExpectNoSideEffect();
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
  for (const char* target : {"/api/sessions", "/api/plugins/raven-research"}) {
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
