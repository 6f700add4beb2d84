// Known secret values end to end: an API key read from the environment and
// a secret variable given to an MCP server never reach the session database,
// the daemon's log, a hook or the model, whichever way they leak out (a
// tool's output, a hook's output, an MCP server's stderr).
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kEnvKey[] = "sk-env-5f3a9c1e77d04b2a";
constexpr char kToken[] = "tok-var-8e2b6d4f1a9c3e5b";

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(ContractTest, KeysAndSecretVariablesNeverReachTheDatabaseTheLogHooksOrTheModel) {
  const std::string token_file = scratch_ + "/token.txt";
  WriteFile(token_file, std::string(kToken) + "\n");
  const std::string hook_input = scratch_ + "/post_tool_use.json";
  const std::string recorder = Script("record.sh", absl::StrCat("cat > ", hook_input));
  // A user_prompt_submit hook whose added context carries the API key (the
  // hook inherits the daemon's environment). The token is not known yet at
  // that point: a variable is read only when first needed.
  const std::string adder =
      Script("add.sh", R"(printf '{"additional_context": "key %s"}' "$RAW_TEST_KEY")");
  // An MCP server that prints its token on stderr and exits at once.
  const std::string leaky = absl::StrCat(
      R"("leaky": {"command": ["/bin/sh", "-c", "echo \"token is $TOKEN\" >&2; exit 3"],)",
      R"( "env": {"TOKEN": "${T}"}})");
  config_ = Config(R"("approval_mode": "allow_all", "hooks": ["post", "add"])",
                   absl::StrCat(R"("variables": {"T": {"file": ")", token_file, R"("}},)",
                                R"("mcp_servers": {)", leaky, "},",
                                R"("hooks": {"post": {"event": "post_tool_use", "command": [")",
                                recorder, R"("]}, "add": {"event": "user_prompt_submit", )",
                                R"("command": [")", adder, R"("]}})"),
                   R"(["builtin/bash", "mcp/leaky/*"])", "");
  daemon_ = std::make_unique<TestDaemon>(config_);
  daemon_->SetEnv("RAW_TEST_KEY", kEnvKey);
  ASSERT_TRUE(daemon_->Start().ok());

  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash",
        absl::StrCat(R"({"command":"printenv RAW_TEST_KEY; cat )", token_file, R"("})")}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "show me the secrets");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());

  // The key was used where it belongs.
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_EQ(fake_.requests()[0].Header("Authorization"), absl::StrCat("Bearer ", kEnvKey));
  // The tool printed both; what clients, hooks and the model get is redacted.
  std::vector<raw::v1::ToolResult> results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].content(), "[redacted]\n[redacted]\n[exit code 0]") << results[0].content();
  std::string hook_saw = ReadFile(hook_input);
  EXPECT_THAT(hook_saw, HasSubstr("[redacted]"));
  for (const std::string& secret : {std::string(kEnvKey), std::string(kToken)}) {
    EXPECT_THAT(hook_saw, Not(HasSubstr(secret)));
    for (const auto& request : fake_.requests()) EXPECT_THAT(request.body, Not(HasSubstr(secret)));
  }
  // The hook's added context reached the model, without the key.
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr("key [redacted]"));
  // The MCP server's failure was reported, its stderr with the token hidden.
  bool noticed = false;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_notice() && e.notice().text().find("leaky") != std::string::npos) {
      noticed = true;
      EXPECT_THAT(e.notice().text(), Not(HasSubstr(kToken)));
    }
  }
  EXPECT_TRUE(noticed);
  // And so is the server's last error that ListMcpServers reports.
  raw::v1::ListMcpServersResponse servers;
  grpc::ClientContext list_context;
  ASSERT_TRUE(
      stub().ListMcpServers(&list_context, raw::v1::ListMcpServersRequest(), &servers).ok());
  ASSERT_EQ(servers.servers_size(), 1);
  EXPECT_THAT(servers.servers(0).last_error(), HasSubstr("token is [redacted]"));
  EXPECT_THAT(servers.servers(0).last_error(), Not(HasSubstr(kToken)));

  ASSERT_EQ(daemon_->Stop(), 0);
  const std::string log = daemon_->ReadLog();
  EXPECT_THAT(log, HasSubstr("token is [redacted]"));
  const std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
  for (const std::string& path : {db, db + "-wal", daemon_->state_dir() + "/rawd.log"}) {
    std::string bytes = FileBytes(path);
    EXPECT_EQ(bytes.find(kEnvKey), std::string::npos) << path;
    EXPECT_EQ(bytes.find(kToken), std::string::npos) << path;
  }
}

}  // namespace
}  // namespace raw::e2e
