// The --open page: written private, removed once, and removed by the first
// login with the token (the browser has used it).
#include "clients/dashboard/open_page.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/dashboard/api_routes.h"
#include "clients/dashboard/gateway.h"
#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

constexpr char kOpenPageToken[] =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

class OpenPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/raw_open_page_XXXXXX";
    base_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(base_); }

  std::string WritePage() {
    absl::StatusOr<std::string> page = WriteOpenPage(
        base_ + "/raw", 40123, absl::StrCat("http://127.0.0.1:40123/#token=", kOpenPageToken));
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? *page : "";
  }

  // What POST /api/login answers with `authorization`.
  int Login(const web::Routes& routes, const std::string& authorization) {
    for (const web::HttpRoute& route : routes.http) {
      if (route.method != "POST" || route.path != "/api/login") continue;
      web::Request request;
      request.method = "POST";
      request.path = request.target = "/api/login";
      request.headers.emplace_back("authorization", authorization);
      request.local_port = 40123;
      int status = 0;
      route.handler(request, [&status](web::Response response) { status = response.status; });
      return status;
    }
    ADD_FAILURE() << "no POST /api/login";
    return 0;
  }

  std::string base_;
};

TEST_F(OpenPageTest, IsPrivateAndRemovedOnce) {
  const std::string path = WritePage();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  {
    OpenPage page;
    page.Set(path);
    page.Remove();
    EXPECT_FALSE(std::filesystem::exists(path));
    // A file of that name made later (the next run on the port) is not
    // this page's to remove.
    ASSERT_EQ(WritePage(), path);
    page.Remove();
    EXPECT_TRUE(std::filesystem::exists(path));
  }
  EXPECT_TRUE(std::filesystem::exists(path));
  {
    OpenPage page;
    page.Set(path);
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // at the latest when it goes
}

TEST_F(OpenPageTest, TheFirstLoginWithTheTokenRemovesIt) {
  auto gateway = std::make_shared<Gateway>();
  gateway->token = kOpenPageToken;
  gateway->session_secret = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
  gateway->open_page = std::make_shared<OpenPage>();
  const std::string path = WritePage();
  gateway->open_page->Set(path);
  const web::Routes routes = DashboardRoutes(gateway);

  EXPECT_EQ(Login(routes, "Bearer wrong"), 401);
  EXPECT_EQ(Login(routes, ""), 401);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(Login(routes, absl::StrCat("Bearer ", kOpenPageToken)), 204);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(Login(routes, absl::StrCat("Bearer ", kOpenPageToken)), 204);  // again: nothing left
}

TEST_F(OpenPageTest, TheRuntimeDirectoryIsTheDefaultSocketsWhateverRawSocketSays) {
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "XDG_RUNTIME_DIR") return "/run/user/1000";
    if (name == "RAW_SOCKET") return "/elsewhere/rawd.sock";
    return std::nullopt;
  };
  EXPECT_EQ(OpenPageDir(env), "/run/user/1000/raw");
  EXPECT_EQ(
      OpenPageDir([](const std::string&) -> std::optional<std::string> { return std::nullopt; }),
      absl::StrCat("/tmp/raw-", getuid()));
}

}  // namespace
}  // namespace raw::dashboard
