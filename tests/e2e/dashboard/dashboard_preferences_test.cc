// The page's preferences as the gateway keeps them: GET and PUT
// /api/preferences end to end, the file they live in
// ($XDG_STATE_HOME/raw/dashboard-preferences.json), what a later gateway
// on another port reads back, and what is refused (nothing written).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class DashboardPreferencesTest : public DashboardTest {
 protected:
  std::string StateDir() const { return daemon_->root() + "/state/raw"; }
  std::string PreferencesFile() const { return StateDir() + "/dashboard-preferences.json"; }

  static std::string ReadText(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  static mode_t Mode(const std::string& path) {
    struct stat st;
    EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 0777;
  }

  DashboardProcess::Call Put(const std::string& body) const {
    DashboardProcess::Call call;
    call.method = "PUT";
    call.target = "/api/preferences";
    call.body = body;
    return call;
  }

  // The gateway's files in the state directory: none of the preferences,
  // and no temporary one beside it.
  void ExpectNoPreferencesFile() {
    EXPECT_FALSE(std::filesystem::exists(PreferencesFile()));
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(StateDir(), ec)) {
      EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr("dashboard-preferences")));
    }
  }

  static constexpr char kPrefs[] =
      R"({"collapsed":{"details":false},"fontSize":19,"theme":"dark"})";
};

TEST_F(DashboardPreferencesTest, StoredThenReadBackByTheNextGatewayOnAnotherPort) {
  auto none = dashboard_.Get("/api/preferences");
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(BodyJson(none), Json::object());

  // As the page sends it: with its own Origin.
  DashboardProcess::Call put = Put(kPrefs);
  put.headers = {absl::StrCat("Origin: http://", dashboard_.host())};
  auto stored = dashboard_.Send(put);
  ASSERT_EQ(stored.status, 200) << stored.body;
  EXPECT_EQ(BodyJson(stored), *ParseJson(kPrefs));
  auto read = dashboard_.Get("/api/preferences");
  ASSERT_EQ(read.status, 200);
  EXPECT_EQ(BodyJson(read), *ParseJson(kPrefs));

  // The file holds the object and nothing else, privately.
  EXPECT_EQ(*ParseJson(ReadText(PreferencesFile())), *ParseJson(kPrefs));
  EXPECT_EQ(Mode(PreferencesFile()), 0600u);
  EXPECT_EQ(Mode(StateDir()), 0700u);

  // A later change replaces the whole object.
  ASSERT_EQ(dashboard_.Send(Put(R"({"theme":"light","fontSize":12})")).status, 200);
  EXPECT_EQ(BodyJson(dashboard_.Get("/api/preferences")),
            *ParseJson(R"({"theme":"light","fontSize":12})"));
  ASSERT_EQ(dashboard_.Send(Put(kPrefs)).status, 200);

  // The next run listens on another port (another origin for the browser)
  // and serves the same preferences.
  const uint16_t first = dashboard_.port();
  dashboard_.Stop();
  ASSERT_TRUE(dashboard_.Start(daemon_->socket_path(), {}, GatewayEnv()).ok());
  EXPECT_NE(dashboard_.port(), first);
  auto next = dashboard_.Get("/api/preferences");
  ASSERT_EQ(next.status, 200) << next.body;
  EXPECT_EQ(BodyJson(next), *ParseJson(kPrefs));
}

TEST_F(DashboardPreferencesTest, RefusedRequestsWriteNothing) {
  struct Refusal {
    std::string what;
    DashboardProcess::Call call;
    int status;
    std::string message;  // in the answer's body, when not empty
  };
  std::vector<Refusal> refusals;
  auto add = [&](std::string what, DashboardProcess::Call call, int status,
                 std::string message = "") {
    refusals.push_back({std::move(what), std::move(call), status, std::move(message)});
  };
  DashboardProcess::Call call = Put(kPrefs);
  call.with_token = false;
  add("no token", call, 401);
  call.headers = {"Authorization: Bearer " + std::string(dashboard_.token().size(), 'A')};
  add("a wrong token", call, 401);
  call = Put(kPrefs);
  call.headers = {"Origin: http://evil.example"};
  add("a foreign Origin", call, 403);
  call.headers = {"Origin: http://127.0.0.1:1"};
  add("another port's Origin", call, 403);
  call = Put(kPrefs);
  call.host = absl::StrCat("evil.example:", dashboard_.port());
  add("a foreign Host", call, 421);
  add("an oversized body",
      Put(absl::StrCat(R"({"theme":"dark","x":")", std::string(5000, 'x'), "\"}")), 413,
      "larger than 4096 bytes");
  call = Put("");
  call.declared_length = 2 * 1024 * 1024;
  add("a body over the server's limit", call, 413);
  add("not JSON", Put("{theme"), 400, "not JSON");
  add("not an object", Put(R"(["dark"])"), 400, "must be a JSON object");
  add("an unknown key", Put(R"({"theme":"dark","history":["a prompt"]})"), 400,
      "unknown preference \\\"history\\\"");
  add("a bad theme", Put(R"({"theme":"blue"})"), 400, "\\\"theme\\\" must be");
  add("a font too small", Put(R"({"fontSize":9})"), 400, "integer from 10 to 28");
  add("a font too large", Put(R"({"fontSize":29})"), 400, "integer from 10 to 28");
  add("a fractional font", Put(R"({"fontSize":15.5})"), 400, "integer from 10 to 28");
  add("an unknown panel", Put(R"({"collapsed":{"sidebar":true}})"), 400,
      "unknown panel \\\"sidebar\\\"");
  add("a panel state not a boolean", Put(R"({"collapsed":{"details":1}})"), 400, "true or false");

  for (const Refusal& refusal : refusals) {
    auto answer = dashboard_.Send(refusal.call);
    EXPECT_EQ(answer.status, refusal.status) << refusal.what << ": " << answer.body;
    if (!refusal.message.empty()) {
      EXPECT_THAT(answer.body, HasSubstr(refusal.message)) << refusal.what;
    }
    ExpectNoPreferencesFile();
  }
  // Reads want the token as well.
  DashboardProcess::Call get;
  get.target = "/api/preferences";
  get.with_token = false;
  EXPECT_EQ(dashboard_.Send(get).status, 401);

  // A refused change leaves the stored object as it was.
  ASSERT_EQ(dashboard_.Send(Put(kPrefs)).status, 200);
  const std::string before = ReadText(PreferencesFile());
  for (const Refusal& refusal : refusals) dashboard_.Send(refusal.call);
  EXPECT_EQ(ReadText(PreferencesFile()), before);
  EXPECT_EQ(BodyJson(dashboard_.Get("/api/preferences")), *ParseJson(kPrefs));
}

// A file that is not valid preferences (not JSON, a value the gateway would
// refuse) reads as {}, said on stderr; the gateway keeps working and the
// next change replaces the file.
TEST_F(DashboardPreferencesTest, ACorruptFileReadsAsEmptyAndIsReported) {
  dashboard_.Stop();
  const std::string log = daemon_->root() + "/gateway.err";
  dashboard_.set_stderr_path(log);
  ASSERT_TRUE(dashboard_.Start(daemon_->socket_path(), {}, GatewayEnv()).ok());
  for (const char* corrupt : {"{\"theme\":\"da", R"({"theme":"dark","token":"t"})"}) {
    std::ofstream(PreferencesFile(), std::ios::trunc) << corrupt;
    auto read = dashboard_.Get("/api/preferences");
    ASSERT_EQ(read.status, 200) << read.body;
    EXPECT_EQ(BodyJson(read), Json::object());
    EXPECT_EQ(dashboard_.Get("/api/info").status, 200);
  }
  const std::string reported = ReadText(log);
  EXPECT_THAT(reported,
              HasSubstr("ignoring the stored preferences: " + PreferencesFile() + " is not JSON"));
  EXPECT_THAT(reported, HasSubstr("unknown preference \"token\""));

  ASSERT_EQ(dashboard_.Send(Put(kPrefs)).status, 200);
  EXPECT_EQ(BodyJson(dashboard_.Get("/api/preferences")), *ParseJson(kPrefs));
}

}  // namespace
}  // namespace raw::e2e
