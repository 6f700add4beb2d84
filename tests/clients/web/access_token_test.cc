#include "clients/web/access_token.h"

#include "gtest/gtest.h"

namespace raw::web {
namespace {

TEST(AccessToken, IsFreshHexOf256Bits) {
  absl::StatusOr<std::string> a = NewAccessToken();
  absl::StatusOr<std::string> b = NewAccessToken();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(ValidateAccessToken(*a).ok());
}

TEST(AccessToken, ValidationNamesTheProblem) {
  absl::Status short_token = ValidateAccessToken("abc");
  EXPECT_EQ(short_token.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(short_token.message().find("at least 32"), std::string::npos);
  absl::Status bad_char = ValidateAccessToken(std::string(31, 'a') + ";x");
  EXPECT_EQ(bad_char.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_char.message().find("only A-Z"), std::string::npos);
  EXPECT_TRUE(ValidateAccessToken("abcdefghijklmnopqrstuvwxyzABCDEF-._~").ok());
}

TEST(AccessToken, EqualsOnlyTheSameString) {
  EXPECT_TRUE(TokenEquals("secret-token", "secret-token"));
  EXPECT_FALSE(TokenEquals("secret-tokem", "secret-token"));
  EXPECT_FALSE(TokenEquals("Secret-token", "secret-token"));
  EXPECT_FALSE(TokenEquals("secret-token0", "secret-token"));
  EXPECT_FALSE(TokenEquals("secret", "secret-token"));
  EXPECT_FALSE(TokenEquals("", "secret-token"));
  EXPECT_FALSE(TokenEquals(std::string("secret-token\0", 13), "secret-token"));
}

TEST(AccessToken, SessionCookieIsNamedForThePortHttpOnlyStrictAndSiteWide) {
  EXPECT_EQ(SessionCookieName("raw_dashboard", 40123), "raw_dashboard_40123");
  EXPECT_EQ(SessionCookie("raw_token_1", "abc"),
            "raw_token_1=abc; HttpOnly; SameSite=Strict; Path=/");
}

}  // namespace
}  // namespace raw::web
