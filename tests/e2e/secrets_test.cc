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
  // A user_prompt_submit hook that would add the API key to the context if
  // it could read it: the key is withheld from hooks' environment.
  const std::string adder = Script(
      "add.sh", R"(printf '{"additional_context": "key %s"}' "${RAW_TEST_KEY:-withheld}")");
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
  // printenv finds no key (withheld from bash); the token file's contents
  // are redacted.
  EXPECT_EQ(results[0].content(), "[redacted]\n[exit code 0]") << results[0].content();
  std::string hook_saw = ReadFile(hook_input);
  EXPECT_THAT(hook_saw, HasSubstr("[redacted]"));
  for (const std::string& secret : {std::string(kEnvKey), std::string(kToken)}) {
    EXPECT_THAT(hook_saw, Not(HasSubstr(secret)));
    for (const auto& request : fake_.requests()) EXPECT_THAT(request.body, Not(HasSubstr(secret)));
  }
  // The hook's added context reached the model; the hook never had the key.
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr("key withheld"));
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

// The bytes of the database and its WAL (while the daemon runs, so the WAL
// holds the latest commits) and, after it stopped, of all three files.
void ExpectNoTrace(const std::string& state_dir, const std::string& secret,
                   const std::string& when) {
  const std::string db = state_dir + "/sessions-v1.sqlite3";
  for (const std::string& path : {db, db + "-wal", state_dir + "/rawd.log"}) {
    EXPECT_EQ(FileBytes(path).find(secret), std::string::npos) << path << " " << when;
  }
}

TEST_F(ContractTest, AKeyTheModelEchoesIsHiddenFromStorageTheLogAndEveryEvent) {
  config_ = Config(R"("approval_mode": "ask_all")", "", R"(["builtin/bash"])", "");
  daemon_ = std::make_unique<TestDaemon>(config_);
  daemon_->SetEnv("RAW_TEST_KEY", kEnvKey);
  ASSERT_TRUE(daemon_->Start().ok());
  std::string session = daemon_->CreateSession();

  // The model echoes the key in its reasoning, its text and a tool call's
  // arguments; the call itself asks whether bash has the key.
  const std::string args = absl::StrCat(
      R"({"command":"printenv RAW_TEST_KEY; echo exit=$? # )", kEnvKey, R"("})");
  // Text and reasoning spell it out over two deltas each, as a model
  // streaming tokens does.
  const std::string key(kEnvKey);
  std::vector<std::string> chunks = {
      chat::RoleChunk(),
      chat::ReasoningChunk(absl::StrCat("think ", key.substr(0, 9))),
      chat::ReasoningChunk(key.substr(9)),
      chat::TextChunk(absl::StrCat("the key is ", key.substr(0, 7))),
      chat::TextChunk(absl::StrCat(key.substr(7), " ok"))};
  for (std::string& c : chat::ToolCallChunks(0, "c1", "bash", args, 3)) chunks.push_back(c);
  chunks.push_back(chat::FinishChunk("tool_calls"));
  chunks.push_back(chat::Done());
  fake_.Enqueue(chat::Stream(chunks));
  fake_.Enqueue(chat::TextAnswer(absl::StrCat("done with ", kEnvKey)));

  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "use the key");
  auto request = stream.WaitFor([](const raw::v1::Event& e) { return e.has_approval_requested(); });
  ASSERT_TRUE(request.has_value()) << [&] {
    std::string all;
    for (const auto& e : stream.events()) all += e.ShortDebugString() + "\n";
    return all;
  }();
  ASSERT_EQ(request->approval_requested().calls_size(), 1);
  EXPECT_THAT(request->approval_requested().calls(0).arguments(), HasSubstr("# [redacted]"));
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_ALLOW_ONCE)
                  .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  // bash ran without the key in its environment (printenv exits 1).
  std::vector<raw::v1::ToolResult> results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].content(), "exit=1\n[exit code 0]");
  // The tool really got the arguments the model wrote: only what is stored
  // and shown is redacted.
  ASSERT_EQ(fake_.requests().size(), 2u);
  // The next request carries the model's message as it is stored, so that
  // a request after the session is reloaded starts with the same bytes, and
  // the key is not sent back.
  const std::string next = fake_.requests()[1].body;
  EXPECT_EQ(next.find(kEnvKey), std::string::npos) << next;
  EXPECT_THAT(next, HasSubstr("the key is [redacted] ok"));
  EXPECT_THAT(next, HasSubstr("# [redacted]"));

  // No event any subscriber received carries the key, nor any piece of it
  // that the deltas would put together.
  std::string streamed_text, streamed_reasoning;
  for (const raw::v1::Event& e : stream.events()) {
    if (e.has_text_delta()) streamed_text += e.text_delta().text();
    if (e.has_reasoning_delta()) streamed_reasoning += e.reasoning_delta().text();
    EXPECT_EQ(e.SerializeAsString().find(kEnvKey), std::string::npos) << e.DebugString();
  }
  EXPECT_EQ(streamed_text, "the key is [redacted] okdone with [redacted]");
  EXPECT_EQ(streamed_reasoning, "think [redacted]");
  // Nor does the history a client reads back.
  raw::v1::GetHistoryRequest history_request;
  history_request.set_session_id(session);
  history_request.set_limit(100);
  raw::v1::GetHistoryResponse history;
  grpc::ClientContext history_context;
  ASSERT_TRUE(stub().GetHistory(&history_context, history_request, &history).ok());
  EXPECT_THAT(history.DebugString(), HasSubstr("the key is [redacted]"));
  EXPECT_EQ(history.SerializeAsString().find(kEnvKey), std::string::npos);

  ExpectNoTrace(daemon_->state_dir(), kEnvKey, "while running");
  ASSERT_EQ(daemon_->Stop(), 0);
  ExpectNoTrace(daemon_->state_dir(), kEnvKey, "after stopping");
}

TEST_F(ContractTest, AnAgentCanPassAWithheldVariableBackToItsCommands) {
  config_ = Config(R"("approval_mode": "allow_all", "pass_secret_env": ["RAW_TEST_KEY"])", "",
                   R"(["builtin/bash"])", "");
  daemon_ = std::make_unique<TestDaemon>(config_);
  daemon_->SetEnv("RAW_TEST_KEY", kEnvKey);
  ASSERT_TRUE(daemon_->Start().ok());
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"printenv RAW_TEST_KEY | wc -c"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "count the key");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  std::vector<raw::v1::ToolResult> results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  // The key and its newline: bash had it.
  EXPECT_EQ(results[0].content(),
            absl::StrCat(std::string(kEnvKey).size() + 1, "\n[exit code 0]"));
}

// A secret "env" variable that only pass_secret_env uses (no reference reads
// it) is still redacted from what the commands it is passed to print.
TEST_F(ContractTest, AVariablePassedBackToCommandsIsRedactedFromWhatTheyPrint) {
  constexpr char kToken[] = "ghp_passed-back-token-0123456789";
  config_ =
      Config(R"("approval_mode": "allow_all", "pass_secret_env": ["RAW_TEST_GH_TOKEN"])",
             R"("variables": {"GH": {"env": "RAW_TEST_GH_TOKEN"}})", R"(["builtin/bash"])", "");
  daemon_ = std::make_unique<TestDaemon>(config_);
  daemon_->SetEnv("RAW_TEST_KEY", kEnvKey);
  daemon_->SetEnv("RAW_TEST_GH_TOKEN", kToken);
  ASSERT_TRUE(daemon_->Start().ok());
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"env | grep GH_TOKEN"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "show the token");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  std::vector<raw::v1::ToolResult> results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  // bash had it, and printed it; nobody else sees it.
  EXPECT_THAT(results[0].content(), HasSubstr("RAW_TEST_GH_TOKEN=[redacted]"));
  const std::string next = fake_.requests().back().body;
  EXPECT_EQ(next.find(kToken), std::string::npos) << next;
  EXPECT_THAT(next, HasSubstr("RAW_TEST_GH_TOKEN=[redacted]"));
  ASSERT_EQ(daemon_->Stop(), 0);
  ExpectNoTrace(daemon_->state_dir(), kToken, "after stopping");
}

}  // namespace
}  // namespace raw::e2e
