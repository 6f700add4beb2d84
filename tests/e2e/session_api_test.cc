// The session API through a real rawd: a session's own MCP servers
// (CreateSession.mcp_servers, SetSessionMcpServers), ConfigureSession and
// ListModels. A session server is the official server-everything over
// stdio; the fake provider scripts the model's calls and records requests.
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "clients/lib/raw_client.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "sqlite3.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string EverythingScript() {
  return absl::StrCat(RAW_SOURCE_DIR,
                      "/tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/"
                      "dist/index.js");
}

std::string FakeServerScript() {
  return absl::StrCat(RAW_SOURCE_DIR, "/tests/daemon/mcp/fake_mcp_server.py");
}

// The absolute path of `program` on PATH ("" when absent): a session
// server's command must be absolute.
std::string OnPath(const std::string& program) {
  const char* path = getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path == nullptr ? "" : path, ':')) {
    std::filesystem::path candidate = std::filesystem::path(std::string(dir)) / program;
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

raw::v1::SessionMcpServer EverythingServer(const std::string& name) {
  raw::v1::SessionMcpServer server;
  server.set_name(name);
  server.set_command(OnPath("node"));
  server.add_args(EverythingScript());
  server.add_args("stdio");
  return server;
}

class SessionApiTest : public ContractTest {
 protected:
  void SetUp() override {
    ContractTest::SetUp();
    if (!std::filesystem::exists(EverythingScript()) || OnPath("node").empty()) {
      GTEST_SKIP() << "server-everything is not installed: run `npm ci` in tests/mcp-servers";
    }
    daemon_ = std::make_unique<TestDaemon>(TwoModelConfig());
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }

  // Models "fake" and "big" (another model id, a known window); agent
  // "coder" selects every server's echo tool (configured or the session's),
  // agent "reviewer" only read_file; one configured server, "configured".
  std::string TwoModelConfig() const {
    const std::string model = absl::StrCat(
        R"("provider": "openai", "method": "openai-chat-completions", "base_url": ")",
        fake_.base_url(), R"(", "api_key_env": "RAW_TEST_KEY")");
    return absl::StrCat(R"({
      "default_agent": "coder",
      "models": {
        "fake": { "model_id": "gpt-test", )", model, R"( },
        "big": { "model_id": "gpt-big", "context_window_tokens": 500000, )", model, R"( }
      },
      "agents": {
        "coder": { "model": "fake", "system_prompt": "You are a test agent.", "max_steps": 6,
                   "tools": { "use": ["builtin/read_file", "mcp/*/echo"] },
                   "approval_mode": "allow_all" },
        "reviewer": { "model": "fake", "tools": { "use": ["builtin/read_file"] } }
      },
      "mcp_servers": { "configured": { "command": ["python3", ")",
                        FakeServerScript(), R"("], "startup_timeout_seconds": 20 } }
    })");
  }

  grpc::Status Create(raw::v1::CreateSessionRequest req, raw::v1::Session* session) {
    req.set_cwd(daemon_->workdir());
    raw::v1::CreateSessionResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().CreateSession(&ctx, req, &resp);
    *session = resp.session();
    return s;
  }

  grpc::Status SetServers(const std::string& session, const std::string& lease,
                          const std::vector<raw::v1::SessionMcpServer>& servers) {
    raw::v1::SetSessionMcpServersRequest req;
    req.set_session_id(session);
    req.set_lease_id(lease);
    for (const auto& server : servers) *req.add_servers() = server;
    raw::v1::SetSessionMcpServersResponse resp;
    grpc::ClientContext ctx;
    return stub().SetSessionMcpServers(&ctx, req, &resp);
  }

  grpc::Status Configure(const std::string& session, const std::optional<std::string>& agent,
                         const std::optional<std::string>& model, raw::v1::Session* out,
                         bool with_lease = true) {
    raw::v1::ConfigureSessionRequest req;
    req.set_session_id(session);
    if (with_lease) req.set_lease_id(LeaseFor(stub(), session));
    if (agent) req.set_agent(*agent);
    if (model) req.set_model(*model);
    raw::v1::ConfigureSessionResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().ConfigureSession(&ctx, req, &resp);
    if (out != nullptr) *out = resp.session();
    return s;
  }

  raw::v1::Session Get(const std::string& session) {
    raw::v1::GetSessionRequest req;
    req.set_session_id(session);
    raw::v1::GetSessionResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().GetSession(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.session();
  }

  // The servers ListMcpServers reports for `session` ("" = configured).
  std::vector<raw::v1::McpServerInfo> ServersOf(const std::string& session) {
    raw::v1::ListMcpServersResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().ListMcpServers(&ctx, raw::v1::ListMcpServersRequest(), &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    std::vector<raw::v1::McpServerInfo> out;
    for (const auto& server : resp.servers()) {
      if (server.session_id() == session) out.push_back(server);
    }
    return out;
  }

  // Runs a turn whose model first makes `calls` (none: answers at once).
  std::vector<raw::v1::Event> Turn(const std::string& session,
                                   const std::vector<chat::ToolCall>& calls) {
    if (!calls.empty()) fake_.Enqueue(chat::ToolCallsAnswer(calls));
    fake_.Enqueue(chat::TextAnswer("done"));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "go");
    EXPECT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    return stream.TurnEvents(turn);
  }

  static std::vector<std::string> ToolNames(const Json& body) {
    std::vector<std::string> names;
    for (const auto& tool : body["tools"]) names.push_back(tool["function"]["name"]);
    return names;
  }
};

TEST_F(SessionApiTest, ASessionsOwnServerIsOfferedToItsAgentAndToNoOtherSession) {
  raw::v1::CreateSessionRequest req;
  *req.add_mcp_servers() = EverythingServer("editor");
  raw::v1::Session session;
  grpc::Status created = Create(req, &session);
  ASSERT_TRUE(created.ok()) << created.error_message();

  std::vector<raw::v1::Event> events =
      Turn(session.id(), {{"c1", "mcp__editor__echo", R"({"message":"hello"})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].tool(), "mcp/editor/echo");
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(results[0].content(), HasSubstr("hello"));
  auto requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(ToolNames(*requests[0].BodyJson()),
              ElementsAre("read_file", "mcp__configured__echo", "mcp__editor__echo"));
  EXPECT_THAT((*requests[1].BodyJson())["messages"].dump(), HasSubstr("hello"));

  std::vector<raw::v1::McpServerInfo> own = ServersOf(session.id());
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].name(), "editor");
  EXPECT_EQ(own[0].state(), raw::v1::MCP_SERVER_STATE_READY);
  EXPECT_EQ(own[0].transport(), "stdio");

  // Another session of the same agent has the configured server only.
  std::string other = daemon_->CreateSession();
  Turn(other, {});
  requests = fake_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_THAT(ToolNames(*requests[2].BodyJson()),
              ElementsAre("read_file", "mcp__configured__echo"));
  EXPECT_TRUE(ServersOf(other).empty());

  // The same name in another session is another process.
  ASSERT_TRUE(SetServers(other, LeaseFor(stub(), other), {EverythingServer("editor")}).ok());
  Turn(other, {{"c2", "mcp__editor__echo", R"({"message":"again"})"}});
  std::vector<raw::v1::McpServerInfo> others = ServersOf(other);
  ASSERT_EQ(others.size(), 1u);
  EXPECT_EQ(others[0].state(), raw::v1::MCP_SERVER_STATE_READY);
  EXPECT_EQ(ServersOf(session.id()).size(), 1u);

  // Replaced by an empty set: the session's server is gone.
  ASSERT_TRUE(SetServers(other, LeaseFor(stub(), other), {}).ok());
  EXPECT_TRUE(ServersOf(other).empty());
  Turn(other, {});
  EXPECT_THAT(ToolNames(*fake_.requests().back().BodyJson()), Not(Contains("mcp__editor__echo")));
}

TEST_F(SessionApiTest, SetSessionMcpServersNeedsTheLeaseAndValidEntries) {
  std::string session = daemon_->CreateSession();
  grpc::Status no_lease = SetServers(session, "", {EverythingServer("editor")});
  EXPECT_EQ(no_lease.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << no_lease.error_message();
  EXPECT_TRUE(ServersOf(session).empty());

  const std::string lease = LeaseFor(stub(), session);
  raw::v1::SessionMcpServer relative = EverythingServer("rel");
  relative.set_command("node");
  grpc::Status s = SetServers(session, lease, {EverythingServer("ok"), relative});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("servers[1].command: must be an absolute program path"));

  raw::v1::SessionMcpServer both = EverythingServer("both");
  both.set_url("https://mcp.example.com/mcp");
  s = SetServers(session, lease, {both});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(),
              HasSubstr("servers[0]: set either \"command\" (stdio) or \"url\""));

  s = SetServers(session, lease, {EverythingServer("configured")});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(),
              HasSubstr("servers[0].name: \"configured\" is the name of a configured server"));

  raw::v1::SessionMcpServer ftp;
  ftp.set_name("remote");
  ftp.set_url("ftp://mcp.example.com/mcp");
  s = SetServers(session, lease, {ftp});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("servers[0].url:"));
  EXPECT_TRUE(ServersOf(session).empty());

  // CreateSession names its field; no session is made.
  raw::v1::CreateSessionRequest req;
  *req.add_mcp_servers() = relative;
  raw::v1::Session none;
  s = Create(req, &none);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("mcp_servers[0].command: must be an absolute"));

  // A valid set is listed (not started before a turn needs it).
  ASSERT_TRUE(SetServers(session, lease, {EverythingServer("editor")}).ok());
  std::vector<raw::v1::McpServerInfo> own = ServersOf(session);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].name(), "editor");
  EXPECT_EQ(own[0].state(), raw::v1::MCP_SERVER_STATE_STOPPED);
}

TEST_F(SessionApiTest, ConfigureSessionChangesTheModelForTheNextRequest) {
  std::string session = daemon_->CreateSession();
  EXPECT_EQ(Get(session).model_id(), "gpt-test");
  raw::v1::Session configured;
  grpc::Status s = Configure(session, std::nullopt, "big", &configured, /*with_lease=*/false);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();

  s = Configure(session, std::nullopt, "big", &configured);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(configured.model(), "big");
  EXPECT_EQ(configured.model_id(), "gpt-big");
  EXPECT_EQ(configured.context().window_tokens(), 500000);
  Turn(session, {});
  EXPECT_EQ((*fake_.requests().back().BodyJson())["model"], "gpt-big");
  raw::v1::Session got = Get(session);
  EXPECT_EQ(got.model(), "big");
  EXPECT_EQ(got.model_id(), "gpt-big");

  s = Configure(session, std::nullopt, "nope", nullptr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("model \"nope\" is not a defined model"));

  // The agent is fixed once the session has a conversation.
  s = Configure(session, "reviewer", std::nullopt, nullptr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(s.error_message(), HasSubstr("already has a conversation"));
  EXPECT_EQ(Get(session).agent(), "coder");

  // Back to the agent's own model.
  ASSERT_TRUE(Configure(session, std::nullopt, "", &configured).ok());
  EXPECT_EQ(configured.model(), "fake");
  Turn(session, {});
  EXPECT_EQ((*fake_.requests().back().BodyJson())["model"], "gpt-test");
}

TEST_F(SessionApiTest, ANewSessionTakesAnotherAgentAndItsModelAtCreation) {
  std::string session = daemon_->CreateSession();
  raw::v1::Session configured;
  ASSERT_TRUE(Configure(session, "reviewer", std::nullopt, &configured).ok());
  EXPECT_EQ(configured.agent(), "reviewer");
  grpc::Status s = Configure(session, "ghost", std::nullopt, nullptr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();

  raw::v1::CreateSessionRequest req;
  req.set_model("big");
  raw::v1::Session created;
  ASSERT_TRUE(Create(req, &created).ok());
  EXPECT_EQ(created.model(), "big");
  EXPECT_EQ(created.model_id(), "gpt-big");
  req.set_model("ghost");
  s = Create(req, &created);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(SessionApiTest, ListModelsGivesTheConfiguredEntriesByName) {
  raw::v1::ListModelsResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().ListModels(&ctx, raw::v1::ListModelsRequest(), &resp).ok());
  ASSERT_EQ(resp.models_size(), 2);
  EXPECT_EQ(resp.models(0).name(), "big");
  EXPECT_EQ(resp.models(0).api(), "openai-chat-completions");
  EXPECT_EQ(resp.models(0).model_id(), "gpt-big");
  ASSERT_TRUE(resp.models(0).has_context_window_tokens());
  EXPECT_EQ(resp.models(0).context_window_tokens(), 500000);
  EXPECT_EQ(resp.models(1).name(), "fake");
  EXPECT_EQ(resp.models(1).model_id(), "gpt-test");
  EXPECT_FALSE(resp.models(1).has_context_window_tokens());
}

TEST_F(SessionApiTest, AfterARestartTheSessionsServersAreGoneAndItsModelStays) {
  raw::v1::CreateSessionRequest req;
  *req.add_mcp_servers() = EverythingServer("editor");
  req.set_model("big");
  raw::v1::Session session;
  ASSERT_TRUE(Create(req, &session).ok());
  ASSERT_EQ(ServersOf(session.id()).size(), 1u);

  ASSERT_EQ(daemon_->Stop(), 0);
  ASSERT_TRUE(daemon_->Start().ok());
  EXPECT_TRUE(ServersOf(session.id()).empty());
  raw::v1::Session got = Get(session.id());
  EXPECT_EQ(got.model(), "big");
  Turn(session.id(), {});
  Json body = *fake_.requests().back().BodyJson();
  EXPECT_EQ(body["model"], "gpt-big");
  EXPECT_THAT(ToolNames(body), Not(Contains("mcp__editor__echo")));
}

// While a turn runs, the model and agent stay (ConfigureSession is refused);
// new servers are taken and apply from the next turn.
TEST_F(SessionApiTest, WhileATurnRunsServersChangeForTheNextTurnAndTheModelCannot) {
  std::string session = daemon_->CreateSession();
  testing::ScriptedResponse held = chat::TextAnswer("first");
  held.gate_before_chunk = 0;
  fake_.Enqueue(held);
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  ASSERT_TRUE(fake_.WaitForGate());

  grpc::Status s = Configure(session, std::nullopt, "big", nullptr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(s.error_message(), HasSubstr("already has a running turn"));
  ASSERT_TRUE(SetServers(session, LeaseFor(stub(), session), {EverythingServer("editor")}).ok());
  fake_.ReleaseGate();
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  EXPECT_THAT(ToolNames(*fake_.requests().back().BodyJson()), Not(Contains("mcp__editor__echo")));
  EXPECT_EQ((*fake_.requests().back().BodyJson())["model"], "gpt-test");

  Turn(session, {});
  EXPECT_THAT(ToolNames(*fake_.requests().back().BodyJson()), Contains("mcp__editor__echo"));
}

// A stored model name the config no longer defines (or a damaged one) is
// shown as stored and refused, by name, when a turn needs it.
TEST_F(SessionApiTest, AStoredModelThatIsNotDefinedIsAClearError) {
  std::string session = daemon_->CreateSession();
  ASSERT_EQ(daemon_->Stop(), 0);
  sqlite3* db = nullptr;
  const std::string path = daemon_->state_dir() + "/sessions-v1.sqlite3";
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string sql =
      absl::StrCat("UPDATE sessions SET model = 'gone\x01' WHERE id = '", session, "'");
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_TRUE(daemon_->Start().ok());

  raw::v1::Session got = Get(session);
  EXPECT_EQ(got.model(), "gone\x01");
  EXPECT_EQ(got.model_id(), "");
  grpc::Status status;
  StartTurn(stub(), session, "go", &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              HasSubstr("the session's model \"gone\\u0001\" is not a defined model (defined: "
                        "big, fake)"));
  // Choosing a defined model makes the session usable again.
  ASSERT_TRUE(Configure(session, std::nullopt, "big", nullptr).ok());
  Turn(session, {});
  EXPECT_EQ((*fake_.requests().back().BodyJson())["model"], "gpt-big");
}

// The client library's calls, as a front end (the ACP bridge) makes them.
TEST_F(SessionApiTest, TheClientLibraryMakesTheThreeCalls) {
  client::ConnectOptions options;
  options.socket_path = daemon_->socket_path();
  options.autostart = client::Autostart::kNever;
  absl::StatusOr<client::RawClient> raw = client::Connect(options);
  ASSERT_TRUE(raw.ok()) << raw.status();

  absl::StatusOr<v1::ListModelsResponse> models = raw->ListModels(v1::ListModelsRequest());
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->models_size(), 2);
  EXPECT_EQ(models->models(0).name(), "big");

  v1::CreateSessionRequest create;
  create.set_cwd(daemon_->workdir());
  create.set_model("big");
  *create.add_mcp_servers() = EverythingServer("editor");
  absl::StatusOr<v1::CreateSessionResponse> created = raw->CreateSession(create);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string session = created->session().id();
  EXPECT_EQ(created->session().model(), "big");
  EXPECT_EQ(ServersOf(session).size(), 1u);

  v1::SetSessionMcpServersRequest set;
  set.set_session_id(session);
  set.set_lease_id(LeaseFor(stub(), session));
  absl::StatusOr<v1::SetSessionMcpServersResponse> replaced = raw->SetSessionMcpServers(set);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_TRUE(ServersOf(session).empty());

  v1::ConfigureSessionRequest configure;
  configure.set_session_id(session);
  configure.set_lease_id(LeaseFor(stub(), session));
  configure.set_model("");
  absl::StatusOr<v1::ConfigureSessionResponse> configured = raw->ConfigureSession(configure);
  ASSERT_TRUE(configured.ok()) << configured.status();
  EXPECT_EQ(configured->session().model(), "fake");
}

}  // namespace
}  // namespace raw::e2e
