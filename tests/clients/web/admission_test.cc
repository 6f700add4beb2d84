#include "clients/web/admission.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::web {
namespace {

constexpr char kToken[] = "0123456789abcdef0123456789abcdef";
constexpr char kSecret[] = "fedcba9876543210fedcba9876543210";

AdmissionPolicy Policy() {
  AdmissionPolicy p;
  p.port = 8123;
  p.own_hosts = {"127.0.0.1", "[::1]", "localhost"};
  p.token = kToken;
  p.session_cookie = "raw_token_8123";
  p.session_secret = kSecret;
  p.allowed_origins = {"https://client.example"};
  return p;
}

Request Make(std::string method, std::vector<std::pair<std::string, std::string>> headers,
             std::string target = "/x") {
  Request r;
  r.method = std::move(method);
  r.target = target;
  ParseTarget(target, &r);
  r.headers = std::move(headers);
  return r;
}

TEST(Admission, HostMustBeThisServer) {
  for (const char* ok : {"127.0.0.1:8123", "localhost:8123", "LOCALHOST:8123", "[::1]:8123"}) {
    EXPECT_FALSE(CheckHost(Make("GET", {{"host", ok}}), Policy())) << ok;
  }
  for (const char* bad :
       {"127.0.0.1", "127.0.0.1:8124", "evil.example:8123", "localhost.evil:8123", ""}) {
    auto r = CheckHost(Make("GET", {{"host", bad}}), Policy());
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 421);
  }
  EXPECT_TRUE(CheckHost(Make("GET", {}), Policy()));
  EXPECT_TRUE(
      CheckHost(Make("GET", {{"host", "127.0.0.1:8123"}, {"host", "evil:8123"}}), Policy()));
}

// A server that does not hold [::1] at its port (another program does)
// owns neither that address nor `localhost`, which may lead there.
TEST(Admission, OnlyTheHostsTheServerHoldsAreItsOwn) {
  AdmissionPolicy policy = Policy();
  policy.own_hosts = {"127.0.0.1"};
  EXPECT_FALSE(CheckHost(Make("GET", {{"host", "127.0.0.1:8123"}}), policy));
  for (const char* foreign : {"localhost:8123", "[::1]:8123"}) {
    auto r = CheckHost(Make("GET", {{"host", foreign}}), policy);
    ASSERT_TRUE(r) << foreign;
    EXPECT_EQ(r->status, 421);
    auto o =
        CheckOrigin(Make("POST", {{"origin", absl::StrCat("http://", foreign)}}), policy, false);
    ASSERT_TRUE(o) << foreign;
    EXPECT_EQ(o->status, 403);
    EXPECT_TRUE(
        CheckOrigin(Make("GET", {{"origin", absl::StrCat("http://", foreign)}}), policy, true));
  }
  EXPECT_FALSE(CheckOrigin(Make("POST", {{"origin", "http://127.0.0.1:8123"}}), policy, false));
}

TEST(Admission, OriginIsCheckedOnStateChangesAndUpgrades) {
  const auto evil =
      std::vector<std::pair<std::string, std::string>>{{"origin", "https://evil.example"}};
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    auto r = CheckOrigin(Make(method, evil), Policy(), false);
    ASSERT_TRUE(r) << method;
    EXPECT_EQ(r->status, 403);
  }
  EXPECT_TRUE(CheckOrigin(Make("GET", evil), Policy(), true));
  EXPECT_FALSE(CheckOrigin(Make("GET", evil), Policy(),
                           false));  // a plain GET: the browser hides the answer
  EXPECT_FALSE(CheckOrigin(Make("POST", {}), Policy(), false));  // no Origin: not a browser page
  EXPECT_FALSE(CheckOrigin(Make("POST", {{"origin", "http://127.0.0.1:8123"}}), Policy(), false));
  EXPECT_FALSE(CheckOrigin(Make("POST", {{"origin", "http://localhost:8123"}}), Policy(), false));
  EXPECT_FALSE(CheckOrigin(Make("POST", {{"origin", "https://client.example"}}), Policy(), false));
  EXPECT_TRUE(CheckOrigin(Make("POST", {{"origin", "http://127.0.0.1:8124"}}), Policy(), false));
  EXPECT_TRUE(CheckOrigin(Make("POST", {{"origin", "https://127.0.0.1:8123"}}), Policy(), false));
  EXPECT_TRUE(CheckOrigin(Make("POST", {{"origin", "null"}}), Policy(), false));
  EXPECT_TRUE(CheckOrigin(
      Make("POST", {{"origin", "http://127.0.0.1:8123"}, {"origin", "https://evil.example"}}),
      Policy(), false));
}

TEST(Admission, TheSessionCookieAdmitsWithItsSecretNeverWithTheToken) {
  EXPECT_FALSE(
      CheckToken(Make("GET", {{"cookie", std::string("raw_token_8123=") + kSecret}}), Policy()));
  // A cookie holding the token is no credential: the token never travels in one.
  EXPECT_TRUE(
      CheckToken(Make("GET", {{"cookie", std::string("raw_token_8123=") + kToken}}), Policy()));
  // Another server's cookie (another port in its name) admits nothing.
  EXPECT_TRUE(
      CheckToken(Make("GET", {{"cookie", std::string("raw_token_8124=") + kSecret}}), Policy()));
  EXPECT_TRUE(CheckToken(Make("GET", {{"cookie", std::string("raw_token=") + kSecret}}), Policy()));
}

// A page on another port of the host can set a cookie of the same name
// that the browser sends first; any cookie of the name that matches admits.
TEST(Admission, AnyCookieOfTheNameThatMatchesAdmits) {
  const std::string real = std::string("raw_token_8123=") + kSecret;
  EXPECT_FALSE(CheckToken(Make("GET", {{"cookie", "raw_token_8123=junk; " + real}}), Policy()));
  EXPECT_FALSE(CheckToken(Make("GET", {{"cookie", real + "; raw_token_8123=junk"}}), Policy()));
  EXPECT_FALSE(CheckToken(
      Make("GET", {{"cookie", "raw_token_8123=junk"}, {"cookie", "a=b; " + real}}), Policy()));
  auto junk_only = CheckToken(
      Make("GET", {{"cookie", "raw_token_8123=junk; raw_token_8123=" + std::string(kToken)}}),
      Policy());
  ASSERT_TRUE(junk_only);
  EXPECT_EQ(junk_only->status, 401);
}

TEST(Admission, TokenFromAnyOfThreePlaces) {
  EXPECT_FALSE(
      CheckToken(Make("GET", {{"authorization", std::string("Bearer ") + kToken}}), Policy()));
  EXPECT_FALSE(
      CheckToken(Make("GET", {{"authorization", std::string("bearer ") + kToken}}), Policy()));
  EXPECT_FALSE(CheckToken(Make("GET", {}, std::string("/x?token=") + kToken), Policy()));
  EXPECT_FALSE(
      CheckToken(Make("GET", {{"cookie", std::string("raw_token_8123=") + kSecret}}), Policy()));
  auto missing = CheckToken(Make("GET", {}), Policy());
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  EXPECT_TRUE(CheckToken(Make("GET", {{"authorization", kToken}}), Policy()));  // no scheme
  EXPECT_TRUE(
      CheckToken(Make("GET", {{"authorization", std::string("Basic ") + kToken}}), Policy()));
  AdmissionPolicy no_cookie = Policy();
  no_cookie.session_cookie.clear();
  EXPECT_TRUE(
      CheckToken(Make("GET", {{"cookie", std::string("raw_token_8123=") + kSecret}}), no_cookie));
}

// A server that turns query tokens off (the dashboard) is not admitted by
// `?token=`, even the right one; the header and the cookie still admit.
TEST(Admission, AQueryTokenAdmitsOnlyWhereThePolicyAllowsIt) {
  AdmissionPolicy headers_only = Policy();
  headers_only.query_token = false;
  auto refused = CheckToken(Make("GET", {}, std::string("/x?token=") + kToken), headers_only);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_FALSE(
      CheckToken(Make("GET", {{"authorization", std::string("Bearer ") + kToken}}), headers_only));
  EXPECT_FALSE(CheckToken(Make("GET", {{"cookie", std::string("raw_token_8123=") + kSecret}}),
                          headers_only));
}

// What the refusal of an oversized Cookie header tells the user to clear.
TEST(Admission, CookieHostsNameLocalhostOnlyWhenItIsTheServers) {
  EXPECT_EQ(CookieHosts("127.0.0.1", {"127.0.0.1"}), "127.0.0.1");
  EXPECT_EQ(CookieHosts("127.0.0.1", {"127.0.0.1", "[::1]", "localhost"}),
            "127.0.0.1 and localhost");
  EXPECT_EQ(CookieHosts("::1", {"[::1]"}), "[::1]");
}

}  // namespace
}  // namespace raw::web
