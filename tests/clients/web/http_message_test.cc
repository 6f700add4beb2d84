#include "clients/web/http_message.h"

#include "gtest/gtest.h"

namespace raw::web {
namespace {

TEST(HttpMessage, ParsesPathAndDecodedQuery) {
  Request r;
  ParseTarget("/api/x?token=ab%2Fc&q=a+b&token=second&flag&bad=%zz", &r);
  EXPECT_EQ(r.path, "/api/x");
  EXPECT_EQ(r.query["token"], "ab/c");  // the first wins
  EXPECT_EQ(r.query["q"], "a b");
  EXPECT_EQ(r.query["flag"], "");
  EXPECT_EQ(r.query["bad"], "%zz");
  ParseTarget("/plain", &r);
  EXPECT_EQ(r.path, "/plain");
  EXPECT_TRUE(r.query.empty());
}

TEST(HttpMessage, FindsHeadersAndCookies) {
  Request r;
  r.headers = {{"cookie", "a=1; raw_token=xyz"}, {"host", "h"}, {"cookie", "b=2"}, {"host", "h2"}};
  EXPECT_EQ(r.Header("host").value_or(""), "h");
  EXPECT_EQ(r.HeaderCount("host"), 2u);
  EXPECT_FALSE(r.Header("origin").has_value());
  EXPECT_EQ(r.Cookies("raw_token"), std::vector<std::string>{"xyz"});
  EXPECT_EQ(r.Cookies("b"), std::vector<std::string>{"2"});
  EXPECT_TRUE(r.Cookies("raw").empty());
}

TEST(HttpMessage, ARepeatedCookieNameYieldsEveryValueInOrder) {
  Request r;
  r.headers = {{"cookie", "t=junk; a=1;t=real"}, {"cookie", "t=third; t"}};
  EXPECT_EQ(r.Cookies("t"), (std::vector<std::string>{"junk", "real", "third"}));
}

}  // namespace
}  // namespace raw::web
