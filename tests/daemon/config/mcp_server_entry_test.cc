// mcp_servers.<name> and the mcp/ entries of agents.<name>.tools.use.
#include "daemon/config/mcp_server_entry.h"

#include <string>
#include <vector>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const ParseContext kEntryContext{"/etc/raw-test", "/home/me"};

// A document with one keyless model, agent "a" using it with `tools_use`,
// and `servers` as mcp_servers.
std::string Doc(const std::string& servers, const std::string& tools_use = "[]") {
  return R"({"variables": {"TOKEN": {"env": "T"}},
    "models": {"m": {"method": "openai-chat-completions", "model_id": "x",
                     "base_url": "http://127.0.0.1:8080/v1"}},
    "agents": {"a": {"model": "m", "tools": {"use": )" +
         tools_use + R"(}}},
    "mcp_servers": )" +
         servers + "}";
}

std::vector<std::string> Problems(const std::string& text) {
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = ParseConfig(text, kEntryContext, &problems);
  std::vector<std::string> lines;
  for (const ConfigProblem& p : problems) lines.push_back(p.ToString());
  if (config.ok() != lines.empty()) lines.push_back("<status and problem list disagree>");
  return lines;
}

TEST(McpServerEntryTest, ReadsStdioAndHttpServers) {
  absl::StatusOr<Config> config =
      ParseConfig(Doc(R"({
        "fs": {"command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."],
               "env": {"GITHUB_TOKEN": "${TOKEN}", "DEBUG": "1"}, "cwd": "work",
               "startup_timeout_seconds": 5, "call_timeout_seconds": 60,
               "idle_timeout_seconds": 3600, "roots": true},
        "gh": {"url": "https://mcp.example.com/mcp",
               "headers": {"Authorization": "Bearer ${TOKEN}"}}
      })",
                      R"(["builtin/*", "mcp/fs/*", "mcp/gh/search_code"])"),
                  kEntryContext);
  ASSERT_TRUE(config.ok()) << config.status();
  const McpServerConfig& fs = config->mcp_servers.at("fs");
  EXPECT_EQ(fs.name, "fs");
  EXPECT_THAT(fs.command, ElementsAre("npx", "-y", "@modelcontextprotocol/server-filesystem", "."));
  EXPECT_EQ(fs.env.at("GITHUB_TOKEN"), "${TOKEN}");
  EXPECT_EQ(fs.env.at("DEBUG"), "1");
  EXPECT_EQ(fs.cwd, "/etc/raw-test/work");
  EXPECT_EQ(fs.url, "");
  EXPECT_EQ(fs.startup_timeout_ms, 5000);
  EXPECT_EQ(fs.call_timeout_ms, 60000);
  EXPECT_EQ(fs.idle_timeout_ms, 3600000);
  EXPECT_TRUE(fs.roots);

  const McpServerConfig& gh = config->mcp_servers.at("gh");
  EXPECT_THAT(gh.command, IsEmpty());
  EXPECT_EQ(gh.url, "https://mcp.example.com/mcp");
  EXPECT_EQ(gh.headers.at("Authorization"), "Bearer ${TOKEN}");
  EXPECT_EQ(gh.startup_timeout_ms, McpServerConfig().startup_timeout_ms);
  EXPECT_EQ(gh.call_timeout_ms, 120000);
  EXPECT_EQ(gh.idle_timeout_ms, 600000);
  EXPECT_FALSE(gh.roots);
}

TEST(McpServerEntryTest, ExactlyOneTransport) {
  EXPECT_THAT(
      Problems(Doc(R"({"a": {}, "b": {"command": ["x"], "url": "http://127.0.0.1:1/mcp"}})")),
      ElementsAre("mcp_servers.a: expected \"command\" (a stdio server's argv) or \"url\" "
                  "(a Streamable HTTP endpoint)",
                  "mcp_servers.b: set either \"command\" (stdio) or \"url\" (HTTP), not "
                  "both"));
}

TEST(McpServerEntryTest, TransportSpecificKeys) {
  EXPECT_THAT(
      Problems(Doc(R"({
        "h": {"url": "http://127.0.0.1:1/mcp", "env": {"A": "1"}, "cwd": "x"},
        "s": {"command": ["x"], "headers": {"X-A": "1"}}
      })")),
      ElementsAre("mcp_servers.h.env: only a server with a \"command\" (stdio) takes env; this "
                  "one has a \"url\"",
                  "mcp_servers.h.cwd: only a server with a \"command\" (stdio) takes cwd; this "
                  "one has a \"url\"",
                  "mcp_servers.s.headers: only a server with a \"url\" (HTTP) takes headers; this "
                  "one has a \"command\""));
}

TEST(McpServerEntryTest, BadValuesNameTheirPath) {
  EXPECT_THAT(
      Problems(Doc(R"({
        "bad name": {"command": ["x"]},
        "c1": {"command": []},
        "c2": {"command": ["", "a"]},
        "e": {"command": ["x"], "env": {"1A": "v", "B": 2}},
        "k": {"command": ["x"], "cwd": "~x"},
        "t": {"command": ["x"], "startup_timeout_seconds": 0, "call_timeout_seconds": 1.5},
        "u1": {"url": "ftp://h/mcp"},
        "u2": {"url": "https://user:pw@h/mcp"},
        "r": {"command": ["x"], "roots": "yes"},
        "x": {"command": ["x"], "tools": []},
        "way-too-long-name-for-a-server-xyz": {"command": ["x"]}
      })")),
      ElementsAre(
          R"(mcp_servers["bad name"]: invalid server name (1 to 32 letters, digits, '_' and '-'))",
          HasSubstr("mcp_servers.c1.command: expected the server's command as an array"),
          "mcp_servers.c2.command[0]: expected a program name or path, got \"\"",
          "mcp_servers.e.env.1A: invalid environment variable name (letters, digits and '_', "
          "not starting with a digit)",
          "mcp_servers.e.env.B: expected a string, got 2",
          HasSubstr("mcp_servers.k.cwd: only \"~/\" (the home directory) is expanded"),
          "mcp_servers.r.roots: expected true or false, got \"yes\"",
          "mcp_servers.t.startup_timeout_seconds: expected a positive integer, got 0",
          "mcp_servers.t.call_timeout_seconds: expected a positive integer, got 1.5",
          "mcp_servers.u1.url: \"ftp://h/mcp\" has scheme \"ftp\" (expected an http(s) URL such "
          "as \"https://mcp.example.com/mcp\")",
          "mcp_servers.u2.url: the URL must not contain credentials (user@ or user:password@); "
          "send them in \"headers\", with a variable reference",
          "mcp_servers.way-too-long-name-for-a-server-xyz: invalid server name (1 to 32 letters, "
          "digits, '_' and '-')",
          "mcp_servers.x.tools: unknown key (expected one of: command, url, env, cwd, headers, "
          "startup_timeout_seconds, call_timeout_seconds, idle_timeout_seconds, roots, max_progress_bytes, from)"));
}

TEST(McpServerEntryTest, TransportHeadersAreRefused) {
  EXPECT_THAT(Problems(Doc(R"({"h": {"url": "http://127.0.0.1:1/mcp",
                               "headers": {"Mcp-Session-Id": "s", "Content-Type": "x",
                                           "X-Custom": "ok"}}})")),
              ElementsAre("mcp_servers.h.headers.Content-Type: the MCP client sends this header "
                          "on every request; a second one is refused",
                          "mcp_servers.h.headers.Mcp-Session-Id: the MCP client sends this "
                          "header on every request; a second one is refused"));
}

TEST(McpServerEntryTest, ServerNameRule) {
  EXPECT_TRUE(IsMcpServerName("github"));
  EXPECT_TRUE(IsMcpServerName("my_server-2"));
  EXPECT_TRUE(IsMcpServerName(std::string(32, 'a')));
  EXPECT_FALSE(IsMcpServerName(std::string(33, 'a')));
  EXPECT_FALSE(IsMcpServerName(""));
  EXPECT_FALSE(IsMcpServerName("a.b"));
  EXPECT_FALSE(IsMcpServerName("*"));
}

TEST(McpServerEntryTest, NamesThatWouldMakeModelFacingNamesAmbiguousAreRefused) {
  // "mcp__a__b__c" would be server "a__b" with tool "c" and server "a" with
  // tool "b__c"; "mcp__a____b" server "a_" with "_b" and "a" with "__b".
  EXPECT_THAT(
      Problems(Doc(R"({"a__b": {"command": ["x"]}, "a_": {"command": ["x"]},
                       "__": {"command": ["x"]}, "a": {"command": ["x"]},
                       "_a-b_c": {"command": ["x"]}})")),
      ElementsAre("mcp_servers.__: a server name may not contain \"__\" (it separates the "
                  "server from the tool in model-facing names, mcp__<server>__<tool>)",
                  "mcp_servers.a_: a server name may not end with \"_\" (the \"__\" after it "
                  "in model-facing names, mcp__<server>__<tool>, would become ambiguous)",
                  "mcp_servers.a__b: a server name may not contain \"__\" (it separates the "
                  "server from the tool in model-facing names, mcp__<server>__<tool>)"));
  EXPECT_EQ(AmbiguousServerName("github"), std::nullopt);
  EXPECT_EQ(AmbiguousServerName("my_server-2"), std::nullopt);
  EXPECT_NE(AmbiguousServerName("my__server"), std::nullopt);
  EXPECT_NE(AmbiguousServerName("server_"), std::nullopt);
}

// A glob over server names ("mcp/*", "mcp/g*/x") may match servers the
// config does not define (a session's own), so it names none to check.
TEST(McpServerEntryTest, ToolsUseMustNameADefinedServerOrAGlobOverServers) {
  EXPECT_THAT(
      Problems(Doc(R"({"gh": {"url": "https://mcp.example.com/mcp"}})",
                   R"(["mcp/gh/*", "mcp/gitlab/*", "mcp/*", "mcp/g*/x", "mcp/gh", "builtin/*"])")),
      ElementsAre("agents.a.tools.use[1]: \"mcp/gitlab/*\" names MCP server \"gitlab\", which "
                  "is not defined under \"mcp_servers\" (defined: gh)",
                  "agents.a.tools.use[4]: \"mcp/gh\" must name one server: mcp/<server>/<tool>, "
                  "or a glob such as mcp/<server>/* or mcp/*/* (every server) (defined "
                  "servers: gh)"));
  EXPECT_THAT(Problems(Doc("{}", R"(["mcp/gh/x"])")),
              ElementsAre("agents.a.tools.use[0]: \"mcp/gh/x\" names MCP server \"gh\", which is "
                          "not defined under \"mcp_servers\" (defined: none)"));
}

TEST(McpServerEntryTest, NoServersByDefault) {
  absl::StatusOr<Config> config = ParseConfig("{}", kEntryContext);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->mcp_servers, IsEmpty());
  EXPECT_THAT(config->variables, IsEmpty());
}

}  // namespace
}  // namespace raw::config
