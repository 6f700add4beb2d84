// ListMcpServers through a real rawd for servers whose words are hostile:
// stderr that is not UTF-8, or that holds terminal escapes and bidi
// overrides, and an error message of 60 KB. The last error quotes them
// with the ill-formed bytes, control and bidi characters replaced and cut
// to its bound, so the response is valid and safe to show for every client.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

TEST_F(ContractTest, McpLastErrorIsValidUtf8WhateverTheServerPrinted) {
  // A server that prints bytes that are never UTF-8 on stderr and exits.
  const std::string noisy =
      R"("noisy": {"command": ["/bin/sh", "-c", "printf 'bad \\377\\376 bytes\\n' >&2; exit 3"]})";
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {)", noisy, "}"), R"(["builtin/*", "mcp/noisy/*"])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "hello");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  raw::v1::ListMcpServersResponse resp;
  grpc::ClientContext ctx;
  grpc::Status s = stub().ListMcpServers(&ctx, raw::v1::ListMcpServersRequest(), &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(resp.servers_size(), 1);
  const raw::v1::McpServerInfo& server = resp.servers(0);
  EXPECT_EQ(server.state(), raw::v1::MCP_SERVER_STATE_FAILED);
  EXPECT_EQ(ValidUtf8Prefix(server.last_error()), server.last_error().size())
      << server.last_error();
  EXPECT_THAT(server.last_error(), HasSubstr("exited with code 3"));
  EXPECT_THAT(server.last_error(), HasSubstr("bad \xef\xbf\xbd\xef\xbf\xbd bytes"));
}

// What a hostile server's words must never carry to a front end.
void ExpectSafeToShow(const std::string& text) {
  EXPECT_EQ(ValidUtf8Prefix(text), text.size()) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_EQ(text.find("\xE2\x80\xAE"), std::string::npos) << text;  // U+202E
  EXPECT_EQ(text.find("\xE2\x81\xA6"), std::string::npos) << text;  // U+2066
}

TEST_F(ContractTest, McpLastErrorHasNoEscapesOrBidiOverridesAndIsBounded) {
  // Clears the screen, retitles the window, turns text red and reverses it
  // on stderr, then exits.
  std::string ansi = Script(
      "ansi.sh",
      R"(read request; printf '\033[2J\033]0;pwned\007 \033[31malert \342\200\256exe.txt\n' >&2;)"
      " exit 3");
  // Answers initialize with an error whose message holds an escape, an
  // isolate and 60 KB, then waits for its stdin to close.
  std::string huge = Script(
      "huge.sh", R"sh(read request; printf '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,)sh"
                 R"sh("message":"\\u001b[31mdenied \\u2066%s"}}\n')sh"
                 R"sh( "$(head -c 60000 /dev/zero | tr '\0' z)";)sh"
                 " read rest");
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {"ansi": {"command": [")", ansi,
                           R"("]}, "huge": {"command": [")", huge, R"("]}})"),
              R"(["builtin/*", "mcp/ansi/*", "mcp/huge/*"])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "hello");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  // The notices that say why their tools are left out quote them too.
  int notices = 0;
  for (const raw::v1::Event& event : stream.TurnEvents(turn)) {
    if (!event.has_notice()) continue;
    ++notices;
    ExpectSafeToShow(event.notice().text());
    EXPECT_LE(event.notice().text().size(), 4096u + 200u);
  }
  EXPECT_EQ(notices, 2);

  raw::v1::ListMcpServersResponse resp;
  grpc::ClientContext ctx;
  grpc::Status s = stub().ListMcpServers(&ctx, raw::v1::ListMcpServersRequest(), &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(resp.servers_size(), 2);
  const raw::v1::McpServerInfo& first = resp.servers(0);
  const raw::v1::McpServerInfo& second = resp.servers(1);
  ASSERT_EQ(first.name(), "ansi");
  EXPECT_EQ(first.state(), raw::v1::MCP_SERVER_STATE_FAILED);
  ExpectSafeToShow(first.last_error());
  EXPECT_THAT(first.last_error(), HasSubstr("exited with code 3"));
  // Replaced, not dropped: the reader sees that something was there.
  EXPECT_THAT(first.last_error(), HasSubstr("\xEF\xBF\xBD[2J\xEF\xBF\xBD]0;pwned\xEF\xBF\xBD "
                                            "\xEF\xBF\xBD[31malert \xEF\xBF\xBD"
                                            "exe.txt"));
  ASSERT_EQ(second.name(), "huge");
  EXPECT_EQ(second.state(), raw::v1::MCP_SERVER_STATE_FAILED);
  ExpectSafeToShow(second.last_error());
  EXPECT_THAT(second.last_error(), HasSubstr("\xEF\xBF\xBD[31mdenied \xEF\xBF\xBDzzz"));
  EXPECT_LE(second.last_error().size(), 4096u);
  EXPECT_GT(second.last_error().size(), 4000u);
  EXPECT_TRUE(absl::EndsWith(second.last_error(), "zzz...")) << second.last_error();
}

}  // namespace
}  // namespace raw::e2e
