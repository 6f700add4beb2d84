// CheckSessionMcpServers: a session's own MCP servers as a client passes
// them, checked by the rules of mcp_servers entries; and the tools.use
// entries that select servers by a glob over their names.
#include <string>
#include <vector>

#include "daemon/config/session_mcp_servers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

SessionMcpServerSpec Stdio(const std::string& name, const std::string& command = "/usr/bin/node") {
  SessionMcpServerSpec spec;
  spec.name = name;
  spec.command = command;
  spec.args = {"server.js", "stdio"};
  return spec;
}

SessionMcpServerSpec Http(const std::string& name, const std::string& url) {
  SessionMcpServerSpec spec;
  spec.name = name;
  spec.url = url;
  return spec;
}

Config WithConfigured(const std::string& name) {
  Config config;
  config.mcp_servers[name].name = name;
  config.mcp_servers[name].command = {"python3"};
  return config;
}

std::string Error(const std::vector<SessionMcpServerSpec>& specs, const Config& config = {}) {
  auto servers = CheckSessionMcpServers(specs, config, "servers", "s1");
  EXPECT_FALSE(servers.ok());
  if (!servers.ok()) {
    EXPECT_TRUE(absl::IsInvalidArgument(servers.status()));
  }
  return std::string(servers.status().message());
}

TEST(SessionMcpServersTest, ValidEntriesBecomeServersOfTheSession) {
  SessionMcpServerSpec stdio = Stdio("fs");
  stdio.env = {{"TOKEN", "secret ${NOT_A_REFERENCE}"}};
  SessionMcpServerSpec http = Http("remote", "https://mcp.example.com/mcp");
  http.headers = {{"Authorization", "Bearer x"}};
  auto servers = CheckSessionMcpServers({stdio, http}, WithConfigured("other"), "servers", "s1");
  ASSERT_TRUE(servers.ok()) << servers.status();
  ASSERT_EQ(servers->size(), 2u);
  const McpServerConfig& fs = servers->at("fs");
  EXPECT_EQ(fs.name, "fs");
  EXPECT_EQ(fs.session_id, "s1");
  EXPECT_THAT(fs.command, ElementsAre("/usr/bin/node", "server.js", "stdio"));
  EXPECT_EQ(fs.env.at("TOKEN"), "secret ${NOT_A_REFERENCE}");
  EXPECT_EQ(fs.max_progress_bytes, McpServerConfig{}.max_progress_bytes);
  EXPECT_EQ(fs.call_timeout_ms, McpServerConfig{}.call_timeout_ms);
  const McpServerConfig& remote = servers->at("remote");
  EXPECT_EQ(remote.url, "https://mcp.example.com/mcp");
  EXPECT_EQ(remote.headers.at("Authorization"), "Bearer x");
  EXPECT_TRUE(remote.command.empty());
}

TEST(SessionMcpServersTest, NoServersIsAnEmptySet) {
  auto servers = CheckSessionMcpServers({}, {}, "servers", "s1");
  ASSERT_TRUE(servers.ok());
  EXPECT_THAT(*servers, IsEmpty());
}

TEST(SessionMcpServersTest, NamesFollowTheConfigsRules) {
  EXPECT_THAT(Error({Stdio("a b")}),
              HasSubstr("servers[0].name: \"a b\" is not a valid server name"));
  EXPECT_THAT(Error({Stdio("")}), HasSubstr("servers[0].name: \"\" is not a valid server name"));
  EXPECT_THAT(Error({Stdio("a__b")}), HasSubstr("servers[0].name: \"a__b\": a server name may not "
                                               "contain \"__\""));
  EXPECT_THAT(Error({Stdio("a_")}), HasSubstr("may not end with \"_\""));
  EXPECT_THAT(Error({Stdio(std::string(33, 'a'))}), HasSubstr("is not a valid server name"));
}

TEST(SessionMcpServersTest, ANameMayNotBeTakenByTheConfigOrAnotherEntry) {
  EXPECT_THAT(Error({Stdio("fs"), Stdio("gh")}, WithConfigured("gh")),
              HasSubstr("servers[1].name: \"gh\" is the name of a configured server "
                        "(mcp_servers.gh); choose another"));
  EXPECT_THAT(Error({Stdio("fs"), Stdio("x"), Http("fs", "https://a.example/mcp")}),
              HasSubstr("servers[2].name: \"fs\" is also the name of servers[0]"));
}

TEST(SessionMcpServersTest, ExactlyOneTransportAndAnAbsoluteCommand) {
  SessionMcpServerSpec both = Stdio("both");
  both.url = "https://mcp.example.com/mcp";
  EXPECT_THAT(Error({both}),
              HasSubstr("servers[0]: set either \"command\" (stdio) or \"url\" (HTTP), not both"));
  SessionMcpServerSpec neither;
  neither.name = "none";
  EXPECT_THAT(Error({neither}), HasSubstr("servers[0]: expected \"command\""));
  EXPECT_THAT(Error({Stdio("rel", "node")}),
              HasSubstr("servers[0].command: must be an absolute program path (got \"node\")"));
  SessionMcpServerSpec args = Http("h", "https://mcp.example.com/mcp");
  args.args = {"x"};
  EXPECT_THAT(Error({args}), HasSubstr("servers[0].args: only a server with a \"command\""));
  SessionMcpServerSpec env = Http("h", "https://mcp.example.com/mcp");
  env.env = {{"A", "b"}};
  EXPECT_THAT(Error({env}), HasSubstr("servers[0].env: only a server with a \"command\""));
  SessionMcpServerSpec headers = Stdio("s");
  headers.headers = {{"A", "b"}};
  EXPECT_THAT(Error({headers}), HasSubstr("servers[0].headers: only a server with a \"url\""));
}

TEST(SessionMcpServersTest, UrlsHeadersAndEnvironmentFollowTheConfigsRules) {
  EXPECT_THAT(Error({Http("h", "ftp://mcp.example.com/mcp")}), HasSubstr("servers[0].url:"));
  EXPECT_THAT(Error({Http("h", "https://user:pw@mcp.example.com/mcp")}),
              HasSubstr("servers[0].url: the URL"));
  EXPECT_THAT(Error({Http("h", "https://mcp.example.com/mcp?a=b")}), HasSubstr("servers[0].url:"));
  SessionMcpServerSpec header = Http("h", "https://mcp.example.com/mcp");
  header.headers = {{"Content-Type", "x"}};
  EXPECT_THAT(Error({header}), HasSubstr("servers[0].headers"));
  SessionMcpServerSpec env = Stdio("s");
  env.env = {{"1BAD", "x"}};
  EXPECT_THAT(Error({env}), HasSubstr("servers[0].env"));
}

TEST(SessionMcpServersTest, EveryProblemIsListed) {
  std::string error = Error({Stdio("rel", "node"), Stdio("a b")});
  EXPECT_THAT(error, HasSubstr("servers[0].command"));
  EXPECT_THAT(error, HasSubstr("servers[1].name"));
}

// Session servers' names are not known to the config: an agent selects them
// with a glob over server names, which the config accepts.
TEST(SessionMcpServersTest, ToolsUseMaySelectServersByAGlob) {
  EXPECT_THAT(testing::ProblemLines(testing::DocWith("", R"("tools": {"use": ["mcp/*"]})")),
              IsEmpty());
  EXPECT_THAT(testing::ProblemLines(
                  testing::DocWith("", R"("tools": {"use": ["mcp/*/read_*", "mcp/ed*/*"]})")),
              IsEmpty());
  EXPECT_THAT(testing::ProblemLines(testing::DocWith("", R"("tools": {"use": ["mcp/fs/*"]})")),
              ElementsAre(HasSubstr("names MCP server \"fs\", which is not defined")));
}

}  // namespace
}  // namespace raw::config
