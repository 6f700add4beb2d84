// The dashboard gateway's JSON API end to end: raw-dashboard against a real
// rawd, driven with plain HTTP requests.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(DashboardTest, PrintsOneUrlWithALongToken) {
  EXPECT_THAT(dashboard_.line(), ::testing::StartsWith("Raw dashboard: http://127.0.0.1:"));
  EXPECT_GE(dashboard_.token().size(), 22u);  // >= 128 bits in base64url or hex
}

// The cookie carries a session secret of its own, never the token (a
// browser sends it to every server on 127.0.0.1), under a name with the
// gateway's port (two gateways' cookies never replace each other).
TEST_F(DashboardTest, LoginTradesTheTokenForAStrictCookieThatIsNotTheToken) {
  DashboardProcess::Call login;
  login.method = "POST";
  login.target = "/api/login";
  auto answer = dashboard_.Send(login);
  ASSERT_EQ(answer.status, 204) << answer.body;
  EXPECT_EQ(answer.headers.count("content-type"), 0u) << "no body, no type";
  const std::string cookie = answer.headers["set-cookie"];
  const std::string name = absl::StrCat("raw_dashboard_", dashboard_.port());
  ASSERT_THAT(cookie, ::testing::StartsWith(name + "="));
  EXPECT_THAT(cookie, Not(HasSubstr(dashboard_.token())));
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("SameSite=Strict"));
  const std::string secret = cookie.substr(name.size() + 1, cookie.find(';') - name.size() - 1);
  EXPECT_GE(secret.size(), 32u);

  DashboardProcess::Call with_cookie;
  with_cookie.target = "/api/sessions";
  with_cookie.with_token = false;
  with_cookie.headers = {absl::StrCat("Cookie: ", name, "=", secret)};
  EXPECT_EQ(dashboard_.Send(with_cookie).status, 200);
  // The token in a cookie, under either name, admits nothing.
  with_cookie.headers = {absl::StrCat("Cookie: ", name, "=", dashboard_.token())};
  EXPECT_EQ(dashboard_.Send(with_cookie).status, 401);
  with_cookie.headers = {"Cookie: raw_dashboard=" + dashboard_.token()};
  EXPECT_EQ(dashboard_.Send(with_cookie).status, 401);

  // A second gateway: its own cookie name and secret; the first one's
  // cookie does not admit there, and each still admits at its own.
  DashboardProcess second;
  ASSERT_TRUE(second.Start(daemon_->socket_path(), {}, GatewayEnv()).ok());
  auto second_login = second.Send(login);
  ASSERT_EQ(second_login.status, 204);
  EXPECT_THAT(second_login.headers["set-cookie"],
              ::testing::StartsWith(absl::StrCat("raw_dashboard_", second.port(), "=")));
  EXPECT_THAT(second_login.headers["set-cookie"], Not(HasSubstr(secret)));
  with_cookie.headers = {absl::StrCat("Cookie: ", name, "=", secret)};
  EXPECT_EQ(second.Send(with_cookie).status, 401);
  EXPECT_EQ(dashboard_.Send(with_cookie).status, 200);

  // The scheme's case does not matter.
  login.with_token = false;
  login.headers = {"Authorization: bearer " + dashboard_.token()};
  EXPECT_EQ(dashboard_.Send(login).status, 204);

  login.with_token = false;
  login.headers = {"Authorization: Bearer wrong-token-wrong-token-wrong"};
  EXPECT_EQ(dashboard_.Send(login).status, 401);
  login.headers.clear();
  EXPECT_EQ(dashboard_.Send(login).status, 401);
}

// Without --port each run listens on a free port the kernel picks, never
// on one kept from an earlier run: the port the last run had (still free)
// is not taken again, even beside the file earlier versions kept it in.
TEST_F(DashboardTest, ListensOnANewPortOnEveryRun) {
  const uint16_t first = dashboard_.port();
  dashboard_.Stop();
  const std::string old_file = daemon_->root() + "/state/raw/dashboard-port";
  std::ofstream(old_file) << first << "\n";
  ASSERT_TRUE(dashboard_.Start(daemon_->socket_path(), {}, GatewayEnv()).ok());
  EXPECT_NE(dashboard_.port(), first);
  EXPECT_EQ(dashboard_.Get("/api/info").status, 200);
  std::ifstream in(old_file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()),
            absl::StrCat(first, "\n"));  // neither read nor written

  dashboard_.Stop();
  std::filesystem::remove(old_file);
  ASSERT_TRUE(dashboard_.Start(daemon_->socket_path(), {}, GatewayEnv()).ok());
  EXPECT_FALSE(std::filesystem::exists(old_file));
  EXPECT_EQ(dashboard_.Get("/api/info").status, 200);
}

TEST_F(DashboardTest, TheStaticPageIsPublicWithStrictHeaders) {
  DashboardProcess::Call page;
  page.target = "/";
  page.with_token = false;
  auto answer = dashboard_.Send(page);
  ASSERT_EQ(answer.status, 200);
  EXPECT_THAT(answer.headers["content-type"], HasSubstr("text/html"));
  EXPECT_THAT(answer.headers["content-security-policy"], HasSubstr("script-src 'self'"));
  EXPECT_THAT(answer.headers["content-security-policy"], HasSubstr("frame-ancestors 'none'"));
  EXPECT_EQ(answer.headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(answer.headers["x-frame-options"], "DENY");
  EXPECT_EQ(answer.headers["referrer-policy"], "no-referrer");
  page.target = "/assets/../../../etc/passwd";
  EXPECT_EQ(dashboard_.Send(page).status, 404);
}

TEST_F(DashboardTest, InfoAgentsModelsMcpAndConfigCheck) {
  auto info = dashboard_.Get("/api/info");
  ASSERT_EQ(info.status, 200) << info.body;
  EXPECT_EQ(BodyJson(info)["session_cookie"], absl::StrCat("raw_dashboard_", dashboard_.port()));
  EXPECT_FALSE(BodyJson(info)["daemon"]["version"].get<std::string>().empty());
  auto agents = dashboard_.Get("/api/agents");
  ASSERT_EQ(agents.status, 200);
  EXPECT_THAT(agents.body, HasSubstr("\"coder\""));
  auto models = dashboard_.Get("/api/models");
  ASSERT_EQ(models.status, 200);
  EXPECT_THAT(models.body, HasSubstr("gpt-test"));
  EXPECT_EQ(dashboard_.Get("/api/mcp").status, 200);
  auto check = dashboard_.Get("/api/config/check");
  ASSERT_EQ(check.status, 200);
  EXPECT_EQ(BodyJson(check)["errors"].size(), 0u);
}

// The packages of the daemon's config, read-only: the example package
// installed with `raw package install` is listed with its exports.
TEST_F(DashboardTest, PackagesOfTheConfigAreListed) {
  auto none = dashboard_.Get("/api/packages");
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(BodyJson(none).value("packages", Json::array()).size(), 0u) << none.body;
  EXPECT_THAT(BodyJson(none)["indexPath"].get<std::string>(), HasSubstr("packages.json"));
  CommandResult installed =
      daemon_->RunRaw({"package", "install", absl::StrCat(RAW_SOURCE_DIR, "/docs/examples/review-kit"),
                       "--as", "rk", "--config", daemon_->config_path()});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  auto listed = dashboard_.Get("/api/packages");
  ASSERT_EQ(listed.status, 200) << listed.body;
  Json packages = BodyJson(listed)["packages"];
  ASSERT_EQ(packages.size(), 1u) << listed.body;
  EXPECT_EQ(packages[0]["alias"], "rk");
  EXPECT_EQ(packages[0]["name"], "review-kit");
  EXPECT_EQ(packages[0]["hash"].get<std::string>().size(), 64u);
  EXPECT_THAT(packages[0]["exports"].dump(), HasSubstr("agent/reviewer"));
}

TEST_F(DashboardTest, SessionsAreCreatedListedSearchedAndDeleted) {
  const std::string id = CreateSessionOverHttp();
  auto listed = dashboard_.Get("/api/sessions?page_size=10");
  ASSERT_EQ(listed.status, 200);
  ASSERT_EQ(BodyJson(listed)["sessions"].size(), 1u);
  EXPECT_EQ(BodyJson(listed)["sessions"][0]["id"], id);

  const std::string dir_name = daemon_->workdir().substr(daemon_->workdir().rfind('/') + 1);
  auto found = dashboard_.Get("/api/sessions?query=" + dir_name);
  EXPECT_EQ(BodyJson(found)["sessions"].size(), 1u);
  auto none = dashboard_.Get("/api/sessions?query=nothing-matches-this");
  EXPECT_EQ(BodyJson(none)["sessions"].size(), 0u);

  // A first screen asks without the estimate, which may need the whole
  // model context read (rawd adds it anyway once the context is in memory).
  auto row_only = dashboard_.Get("/api/sessions/" + id + "?without_context=true");
  ASSERT_EQ(row_only.status, 200);
  EXPECT_EQ(BodyJson(row_only)["session"]["id"], id);
  EXPECT_FALSE(BodyJson(row_only)["session"].contains("context"));
  auto got = dashboard_.Get("/api/sessions/" + id);
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(BodyJson(got)["session"]["agent"], "coder");
  EXPECT_TRUE(BodyJson(got)["session"].contains("context"));
  auto bad_flag = dashboard_.Get("/api/sessions/" + id + "?without_context=yes");
  EXPECT_EQ(bad_flag.status, 400);
  EXPECT_EQ(BodyJson(bad_flag)["error"]["message"],
            "query parameter without_context must be true or false, not 'yes'");
  EXPECT_EQ(dashboard_.Get("/api/sessions/" + id + "/stats").status, 200);

  DashboardProcess::Call remove;
  remove.method = "DELETE";
  remove.target = "/api/sessions/" + id;
  EXPECT_EQ(dashboard_.Send(remove).status, 204);
  auto gone = dashboard_.Get("/api/sessions/" + id);
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(BodyJson(gone)["error"]["code"], "NOT_FOUND");
  EXPECT_EQ(dashboard_.Send(remove).status, 404);
}

TEST_F(DashboardTest, BadRequestsGetTheMappedError) {
  DashboardProcess::Call create;
  create.method = "POST";
  create.target = "/api/sessions";
  create.body = R"({"cwd":"relative/dir"})";
  auto bad = dashboard_.Send(create);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(BodyJson(bad)["error"]["code"], "INVALID_ARGUMENT");
  create.body = R"({"no_such_field":1})";
  EXPECT_EQ(dashboard_.Send(create).status, 400);
  create.body = "not json";
  EXPECT_EQ(dashboard_.Send(create).status, 400);
  EXPECT_EQ(dashboard_.Get("/api/sessions?page_size=ten").status, 400);
  EXPECT_EQ(dashboard_.Get("/api/sessions/s_missing").status, 404);
  EXPECT_EQ(dashboard_.Get("/api/sessions/x/unknown").status, 404);
  EXPECT_EQ(dashboard_.Get("/api/nothing").status, 404);
}

TEST_F(DashboardTest, DeletingASessionAnotherClientWritesIsRefused) {
  const std::string id = CreateSessionOverHttp();
  ASSERT_FALSE(LeaseFor(stub(), id).empty());
  DashboardProcess::Call remove;
  remove.method = "DELETE";
  remove.target = "/api/sessions/" + id;
  auto refused = dashboard_.Send(remove);
  EXPECT_EQ(refused.status, 409) << refused.body;
  EXPECT_EQ(BodyJson(refused)["error"]["code"], "FAILED_PRECONDITION");
  EXPECT_EQ(dashboard_.Get("/api/sessions/" + id).status, 200);
  ReleaseLease(stub(), id);
  EXPECT_EQ(dashboard_.Send(remove).status, 204);
}

TEST_F(DashboardTest, HistoryPagesGoUpwardWithCursors) {
  const std::string id = daemon_->CreateSession();
  for (const char* text : {"one", "two", "three"}) {
    fake_.Enqueue(chat::TextAnswer(std::string("answer ") + text));
    EventStream stream(stub(), id);
    ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), id, text)).has_value());
  }
  std::vector<std::string> seqs;
  std::string cursor;
  int pages = 0;
  do {
    auto page = dashboard_.Get("/api/sessions/" + id + "/history?limit=4&cursor=" + cursor);
    ASSERT_EQ(page.status, 200) << page.body;
    Json body = BodyJson(page);
    EXPECT_LE(body["events"].size(), 4u);
    for (const Json& event : body["events"]) seqs.push_back(event["seq"].get<std::string>());
    cursor = body["nextCursor"].get<std::string>();
    ++pages;
  } while (!cursor.empty() && pages < 100);
  ASSERT_GE(seqs.size(), 6u);
  EXPECT_GE(pages, 2);
  // Newest first, every stored event once.
  for (size_t i = 1; i < seqs.size(); ++i) {
    EXPECT_GT(std::stoull(seqs[i - 1]), std::stoull(seqs[i]));
  }
  EXPECT_EQ(seqs.back(), "1");
}

TEST_F(DashboardTest, PluginSettingsRoundTripAndAStaleRevisionIsRefused) {
  auto empty = dashboard_.Get("/api/plugins/example-plugin");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(BodyJson(empty)["revision"], "0");
  EXPECT_EQ(BodyJson(empty)["namespace"], "example-plugin");

  DashboardProcess::Call put;
  put.method = "PUT";
  put.target = "/api/plugins/example-plugin";
  put.body = R"({"settings":{"depth":2,"sources":["web"]},"revision":"0"})";
  auto stored = dashboard_.Send(put);
  ASSERT_EQ(stored.status, 200) << stored.body;
  EXPECT_EQ(BodyJson(stored)["revision"], "1");

  auto stale = dashboard_.Send(put);  // still based on revision 0
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(BodyJson(stale)["error"]["code"], "FAILED_PRECONDITION");

  auto read = dashboard_.Get("/api/plugins/example-plugin");
  EXPECT_EQ(BodyJson(read)["revision"], "1");
  EXPECT_EQ(BodyJson(read)["settings"]["depth"], 2);
  EXPECT_EQ(BodyJson(read)["settings"]["sources"][0], "web");
  // Kept in rawd's database, never in the config file.
  std::ifstream config(daemon_->config_path());
  std::string text((std::istreambuf_iterator<char>(config)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, ::testing::Not(HasSubstr("sources")));

  put.target = "/api/plugins/Bad.Name";
  EXPECT_EQ(dashboard_.Send(put).status, 400);
}

// Raven's card through the gateway while the config file configures no
// search backend: the reading says why Search is not in effect, and a save
// setting a search limit is refused (400) naming the field, nothing stored.
TEST_F(DashboardTest, RavenSearchLimitsWithoutABackendAreRefusedWithTheReason) {
  auto read = dashboard_.Get("/api/plugins/raven-research");
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(BodyJson(read)["inactiveSections"]["search"],
            "no search backend is configured (raven.search.backend in the config file)");

  DashboardProcess::Call put;
  put.method = "PUT";
  put.target = "/api/plugins/raven-research";
  put.body = R"({"settings":{"search":{"max_results":3}},"revision":"0"})";
  auto refused = dashboard_.Send(put);
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(BodyJson(refused)["error"]["message"].get<std::string>(),
              HasSubstr("raven.search.max_results: would not be in effect: no search backend is "
                        "configured"));
  EXPECT_EQ(BodyJson(dashboard_.Get("/api/plugins/raven-research"))["revision"], "0");
}

}  // namespace
}  // namespace raw::e2e
