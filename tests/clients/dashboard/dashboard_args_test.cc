#include "clients/dashboard/dashboard_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

using ::testing::HasSubstr;

TEST(DashboardArgsTest, DefaultsAreARandomPortAndNoBrowser) {
  auto args = ParseDashboardArgs({});
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->port, 0);
  EXPECT_FALSE(args->open);
  EXPECT_TRUE(args->socket.empty());
}

TEST(DashboardArgsTest, ReadsEveryOption) {
  auto args = ParseDashboardArgs({"--port", "8123", "--open", "--socket=/run/x.sock"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->port, 8123);
  EXPECT_TRUE(args->open);
  EXPECT_EQ(args->socket, "/run/x.sock");
  EXPECT_TRUE(ParseDashboardArgs({"--help"})->help);
  EXPECT_TRUE(ParseDashboardArgs({"--version"})->version);
  EXPECT_EQ(ParseDashboardArgs({"--port=9"})->port, 9);
}

TEST(DashboardArgsTest, BadInputIsNamed) {
  const struct {
    std::vector<std::string> args;
    const char* says;
  } kCases[] = {
      {{"--port"}, "--port needs a value"},
      {{"--port", "0"}, "1 to 65535"},
      {{"--port", "65536"}, "1 to 65535"},
      {{"--port", "http"}, "not 'http'"},
      {{"--socket", ""}, "--socket needs a path"},
      {{"--listen", "x"}, "unknown argument '--listen'"},
      {{"stray"}, "unknown argument 'stray'"},
  };
  for (const auto& c : kCases) {
    auto args = ParseDashboardArgs(c.args);
    EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument) << c.says;
    EXPECT_THAT(args.status().message(), HasSubstr(c.says));
  }
}

}  // namespace
}  // namespace raw::dashboard
