// ListMcpServers through a real rawd for a server whose stderr is not
// UTF-8: the last error quotes it with the ill-formed bytes replaced, so
// the response stays valid for every client.
#include <string>

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

}  // namespace
}  // namespace raw::e2e
