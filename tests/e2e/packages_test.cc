// Packages through a real rawd and the real `raw` binary (docs/packages.md):
// the example package installed from its folder and an agent preset from it
// driving a turn (prompt section, skill, hook and the package's MCP server);
// a .tar.gz of a package whose every file would leave a trace if run,
// installed and inspected without running anything; hostile archives
// refused with nothing left in the store; `raw agents` naming the package;
// lazy resolution; tampering refused; an alias upgraded between turns
// counting as a runtime change, asserted on the recorded provider requests.
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/support/line_process.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

std::string ExampleKit() { return absl::StrCat(RAW_SOURCE_DIR, "/docs/examples/review-kit"); }

// agents: "coder" (plain, the default), "reviewer" (the example's preset),
// "kit" (the preset of the package written by WriteKit), "broken" (a
// package alias that is never installed), "big" (a prompt section of a
// package "bk" that also holds a large data file), "globber" (every MCP
// server, among them "review-notes", the example's server taken with
// "from") and "direct" (the example's server "notes" named directly, as
// pkg/rk/mcp/notes/*).
std::string PackagesConfig(const std::string& base_url) {
  return absl::StrCat(R"({
    "default_agent": "coder",
    "models": {"fake": {"provider": "openai", "method": "openai-chat-completions",
                        "model_id": "gpt-test", "base_url": ")",
                      base_url, R"(", "api_key_env": "RAW_TEST_KEY"}},
    "agents": {
      "coder": {"model": "fake", "system_prompt": "You are a test agent.",
                "tools": {"use": ["builtin/read_file"]}},
      "reviewer": {"extends": "pkg/rk/agent/reviewer", "model": "fake",
                   "approval_mode": "allow_all"},
      "kit": {"extends": "pkg/kit/agent/main", "model": "fake", "approval_mode": "allow_all"},
      "broken": {"model": "fake", "skills": ["pkg/nosuch/skill/x"]},
      "big": {"model": "fake", "system_prompt": "You are a test agent.",
              "prompts": ["pkg/bk/prompt/style"]},
      "globber": {"model": "fake", "system_prompt": "You are a test agent.",
                  "approval_mode": "allow_all", "tools": {"use": ["builtin/read_file", "mcp/*"]}},
      "direct": {"model": "fake", "system_prompt": "You are a test agent.",
                 "approval_mode": "allow_all",
                 "tools": {"use": ["builtin/read_file", "pkg/rk/mcp/notes/*"]}}
    },
    "mcp_servers": {"review-notes": {"from": "pkg/rk/mcp/notes"}}
  })");
}

class PackagesE2eTest : public ContractTest {
 protected:
  void SetUp() override {
    ContractTest::SetUp();
    daemon_ = std::make_unique<TestDaemon>(PackagesConfig(fake_.base_url()));
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }

  // `raw package ARGS... --config <the daemon's config>`.
  CommandResult Package(std::vector<std::string> args) {
    args.insert(args.begin(), "package");
    args.push_back("--config");
    args.push_back(daemon_->config_path());
    return daemon_->RunRaw(args);
  }

  std::string StoreDir() const { return daemon_->root() + "/data/raw/packages"; }

  // Entries under `dir` (none when it does not exist).
  static std::vector<std::string> Entries(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      out.push_back(e.path().filename().string());
    }
    return out;
  }

  // The hash `alias` has in the index (raw package list --json).
  std::string HashOf(const std::string& alias) {
    CommandResult list = Package({"list", "--json"});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    for (const auto& line : absl::StrSplit(list.out, '\n', absl::SkipEmpty())) {
      Json j = Json::parse(std::string(line));
      if (j.value("alias", "") == alias) return j.value("hash", "");
    }
    return "";
  }

  // A package "kit": a skill, a prompt section, a hook, an MCP server run
  // as ${package}/bin/server and a preset "main" using them all. Every
  // executable file leaves <scratch>/ran-<name> when run; the server also
  // answers MCP on stdio (its one tool's description is `tool_description`).
  void WriteKit(const std::string& dir, const std::string& skill_text,
                const std::string& tool_description) {
    WriteFile(dir + "/raw-package.json", R"({
      "name": "kit", "version": "1.0.0", "description": "an e2e test package",
      "exports": {
        "skills": {"review": {"path": "skills/review"}},
        "prompts": {"style": {"text": "PACKAGE PROMPT SECTION: answer briefly."}},
        "hooks": {"audit": {"event": "pre_tool_use", "command": ["${package}/bin/audit"],
                            "matcher": "mcp/*"}},
        "mcp": {"notes": {"command": ["${package}/bin/server"]}},
        "agents": {"main": {"system_prompt": "You are the kit agent.",
                            "tools": {"use": ["builtin/load_skill", "mcp/notes/*"]},
                            "skills": ["review"], "hooks": ["audit"], "prompts": ["style"]}}
      }
    })");
    WriteFile(dir + "/skills/review/SKILL.md",
              absl::StrCat("---\nname: review\ndescription: How to review\n---\n", skill_text,
                           "\n"));
    auto trace = [&](const std::string& name) {
      return absl::StrCat("open('", scratch_, "/ran-", name, "', 'w').close()\n");
    };
    WriteExecutable(dir + "/bin/server",
                    absl::StrCat("#!/usr/bin/env python3\nimport json, sys\n", trace("server"),
                                 "DESCRIPTION = ", Json(tool_description).dump(), "\n",
                                 kServerLoop));
    WriteExecutable(dir + "/bin/audit",
                    absl::StrCat("#!/usr/bin/env python3\nimport sys\nsys.stdin.read()\n",
                                 trace("audit")));
    WriteExecutable(dir + "/install.sh", absl::StrCat("#!/bin/sh\ntouch ", scratch_,
                                                      "/ran-install\n"));
    WriteExecutable(dir + "/postinstall", absl::StrCat("#!/bin/sh\ntouch ", scratch_,
                                                       "/ran-postinstall\n"));
  }

  void WriteExecutable(const std::string& path, const std::string& text) {
    WriteFile(path, text);
    chmod(path.c_str(), 0755);
  }

  std::vector<std::string> Traces() const {
    std::vector<std::string> out;
    for (const std::string& name : Entries(scratch_)) {
      if (name.rfind("ran-", 0) == 0) out.push_back(name);
    }
    return out;
  }

  // tar czf <archive> -C <dir> .
  void Tar(const std::string& dir, const std::string& archive) {
    CommandResult tar = RunCommand({"/usr/bin/tar", "czf", archive, "-C", dir, "."}, daemon_->env());
    ASSERT_EQ(tar.exit_code, 0) << tar.err;
  }

  // Runs one turn in `session`: the model makes `calls` (if any), then
  // answers "done". Returns the turn's events.
  std::vector<raw::v1::Event> Turn(const std::string& session, const std::string& text,
                                   const std::vector<chat::ToolCall>& calls = {}) {
    if (!calls.empty()) fake_.Enqueue(chat::ToolCallsAnswer(calls));
    fake_.Enqueue(chat::TextAnswer("done"));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, text);
    EXPECT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    return stream.TurnEvents(turn);
  }

  static std::vector<std::string> Notices(const std::vector<raw::v1::Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) {
      if (e.has_notice()) out.push_back(e.notice().text());
    }
    return out;
  }

  grpc::Status TryCreateSession(const std::string& agent) {
    raw::v1::CreateSessionRequest req;
    req.set_agent(agent);
    req.set_cwd(daemon_->workdir());
    raw::v1::CreateSessionResponse resp;
    grpc::ClientContext ctx;
    return stub().CreateSession(&ctx, req, &resp);
  }

  static constexpr char kServerLoop[] = R"(
for line in sys.stdin:
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "notes", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "note", "description": DESCRIPTION,
                             "inputSchema": {"type": "object",
                                             "properties": {"text": {"type": "string"}}}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text",
                               "text": "noted: " + msg["params"]["arguments"].get("text", "")}]}
    else:
        result = None
    if result is None:
        reply = {"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": "no"}}
    else:
        reply = {"jsonrpc": "2.0", "id": msg_id, "result": result}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
)";
};

TEST_F(PackagesE2eTest, TheExamplePackageFromItsFolderRunsAPresetsTurn) {
  CommandResult install = Package({"install", ExampleKit(), "--as", "rk"});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  std::string session = daemon_->CreateSession("reviewer");
  auto events = Turn(session, "review this", {{"c1", "mcp__notes__note", R"({"text":"hi"})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].tool(), "mcp/notes/note");
  EXPECT_EQ(results[0].content(), "noted: hi");

  Json first = *fake_.requests()[0].BodyJson();
  std::string system = first["messages"][0]["content"];
  EXPECT_THAT(system, HasSubstr("You review code changes."));  // the preset's prompt
  EXPECT_THAT(system, HasSubstr("Prefer short sentences."));   // its prompt section
  EXPECT_THAT(system, HasSubstr("correctness, tests, risks"));  // its skill, listed
  std::vector<std::string> tools;
  for (const auto& tool : first["tools"]) tools.push_back(tool["function"]["name"]);
  EXPECT_THAT(tools, ::testing::ElementsAre("load_skill", "read_file", "mcp__notes__note"));

  // raw agents names the preset and so the package (its alias).
  CommandResult agents = daemon_->RunRaw({"agents"});
  ASSERT_EQ(agents.exit_code, 0) << agents.err;
  EXPECT_THAT(agents.out, HasSubstr("extends: pkg/rk/agent/reviewer"));
  // It sets no tools itself: no tools line (they come from the preset), not
  // the default builtin/* it does not get.
  EXPECT_THAT(agents.out,
              HasSubstr("  reviewer  model fake\n    extends: pkg/rk/agent/reviewer\n"));
  EXPECT_THAT(agents.out, ::testing::Not(HasSubstr("extends: pkg/rk/agent/reviewer\n    tools:")));
  CommandResult json = daemon_->RunRaw({"agents", "--json"});
  EXPECT_THAT(json.out, HasSubstr(R"("extends":"pkg/rk/agent/reviewer")"));
}

// `raw config check` resolves each agent's packages as its turns would: a
// skill a package exports is found once its package is, and a missing export
// is named for the agent that asks for it only.
TEST_F(PackagesE2eTest, ConfigCheckFindsTheSkillsPackagesExport) {
  const std::string config = scratch_ + "/check.json";
  // A config with the model "fake" and `agents`; the default agent "skilled".
  auto write_config = [&](const std::string& agents) {
    WriteFile(config, absl::StrCat(R"({
      "default_agent": "skilled",
      "models": {"fake": {"provider": "openai", "method": "openai-chat-completions",
                          "model_id": "gpt-test", "base_url": ")",
                                   fake_.base_url(), R"(", "api_key_env": "RAW_TEST_KEY"}},
      "agents": {)",
                                   agents, "}}"));
  };
  write_config(R"("skilled": {"model": "fake", "skills": ["pkg/rk/skill/review"],
                              "tools": {"use": ["builtin/load_skill"]}})");
  // Aliases belong to a config file's index.
  CommandResult install =
      daemon_->RunRaw({"package", "install", ExampleKit(), "--as", "rk", "--config", config});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  CommandResult ok = daemon_->RunRaw({"config", "check", "--config", config});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;

  write_config(R"("skilled": {"model": "fake", "skills": ["pkg/rk/skill/review"]},
                  "missing": {"model": "fake", "skills": ["pkg/rk/skill/nosuch"]})");
  CommandResult bad = daemon_->RunRaw({"config", "check", "--config", config});
  EXPECT_NE(bad.exit_code, 0);
  const std::string said = bad.out + bad.err;
  EXPECT_THAT(said, HasSubstr("agents.missing.skills[0]"));
  EXPECT_THAT(said, HasSubstr("has no skill export \"nosuch\""));
  EXPECT_THAT(said, ::testing::Not(HasSubstr("agents.skilled")));
}

// A server taken with "from" is resolved when an agent selects it through a
// glob over server names, and ListMcpServers describes it as the package
// defines it, running.
TEST_F(PackagesE2eTest, AServerFromAPackageRunsForAGlobAndIsListedAsItRuns) {
  auto listed = [&]() -> raw::v1::McpServerInfo {
    raw::v1::ListMcpServersResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().ListMcpServers(&ctx, raw::v1::ListMcpServersRequest(), &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    for (const auto& server : resp.servers()) {
      if (server.name() == "review-notes") return server;
    }
    ADD_FAILURE() << "review-notes is not listed";
    return {};
  };
  // Not installed yet: listed with the reason it cannot start.
  EXPECT_THAT(listed().last_error(), HasSubstr("no package is installed as \"rk\""));

  CommandResult install = Package({"install", ExampleKit(), "--as", "rk"});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  raw::v1::McpServerInfo before = listed();
  EXPECT_EQ(before.transport(), "stdio");
  EXPECT_EQ(before.endpoint(), "python3");
  EXPECT_EQ(before.state(), raw::v1::MCP_SERVER_STATE_STOPPED);
  EXPECT_EQ(before.last_error(), "");

  std::string session = daemon_->CreateSession("globber");
  auto events =
      Turn(session, "take a note", {{"c1", "mcp__review-notes__note", R"({"text":"hi"})"}});
  EXPECT_THAT(Notices(events), ::testing::IsEmpty());
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].tool(), "mcp/review-notes/note");
  EXPECT_EQ(results[0].content(), "noted: hi");
  // The turn's first request offers the server's tool.
  std::vector<std::string> tools;
  for (const auto& request : fake_.requests()) {
    Json body = *request.BodyJson();
    if (!body.contains("tools")) continue;
    for (const auto& tool : body["tools"]) tools.push_back(tool["function"]["name"]);
    break;
  }
  EXPECT_THAT(tools, ::testing::ElementsAre("read_file", "mcp__review-notes__note"));

  raw::v1::McpServerInfo after = listed();
  EXPECT_EQ(after.transport(), "stdio");
  EXPECT_EQ(after.endpoint(), "python3");
  EXPECT_EQ(after.state(), raw::v1::MCP_SERVER_STATE_READY);
  EXPECT_THAT(after.tools(), ::testing::ElementsAre("note"));
}

// A server an agent names directly as pkg/<alias>/mcp/<server>/... is
// listed by ListMcpServers and `raw mcp` as the package defines it: with the
// reason it cannot start before the package is installed, once although a
// preset ("reviewer") takes the same export, and running after a turn.
TEST_F(PackagesE2eTest, AServerAnAgentTakesFromAPackageDirectlyIsListedAsItRuns) {
  auto listed = [&]() -> std::vector<raw::v1::McpServerInfo> {
    raw::v1::ListMcpServersResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().ListMcpServers(&ctx, raw::v1::ListMcpServersRequest(), &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    std::vector<raw::v1::McpServerInfo> notes;
    for (const auto& server : resp.servers()) {
      if (server.name() == "notes") notes.push_back(server);
    }
    return notes;
  };
  std::vector<raw::v1::McpServerInfo> missing = listed();
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_THAT(missing[0].last_error(),
              HasSubstr("agents.direct.tools.use[1]: no package is installed as \"rk\""));

  CommandResult install = Package({"install", ExampleKit(), "--as", "rk"});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  std::vector<raw::v1::McpServerInfo> before = listed();
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].transport(), "stdio");
  EXPECT_EQ(before[0].endpoint(), "python3");
  EXPECT_EQ(before[0].state(), raw::v1::MCP_SERVER_STATE_STOPPED);
  EXPECT_EQ(before[0].last_error(), "");

  std::string session = daemon_->CreateSession("direct");
  auto events = Turn(session, "take a note", {{"c1", "mcp__notes__note", R"({"text":"hi"})"}});
  EXPECT_THAT(Notices(events), ::testing::IsEmpty());
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].content(), "noted: hi");

  std::vector<raw::v1::McpServerInfo> after = listed();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].state(), raw::v1::MCP_SERVER_STATE_READY);
  EXPECT_THAT(after[0].tools(), ::testing::ElementsAre("note"));
  CommandResult mcp = daemon_->RunRaw({"mcp"});
  ASSERT_EQ(mcp.exit_code, 0) << mcp.err;
  EXPECT_THAT(mcp.out, HasSubstr("notes  ready  stdio python3"));
  EXPECT_THAT(mcp.out, HasSubstr("    tools: note\n"));
}

TEST_F(PackagesE2eTest, InstallingAndInspectingATarballRunsNothingAndAPresetRunsItsServerAndHook) {
  const std::string dir = scratch_ + "/kit";
  WriteKit(dir, "Read the diff.", "Keep a note");
  const std::string archive = scratch_ + "/kit-1.0.tar.gz";
  Tar(dir, archive);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"inspect", archive},
                                             {"inspect", dir},
                                             {"install", archive},
                                             {"install", dir, "--as", "kit-folder"},
                                             {"inspect", "kit"},
                                             {"list"},
                                             {"verify"}}) {
    CommandResult r = Package(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  }
  EXPECT_THAT(Traces(), ::testing::IsEmpty());
  // The archive and the folder are one tree: one hash, one store entry.
  ASSERT_FALSE(HashOf("kit").empty());
  EXPECT_EQ(HashOf("kit"), HashOf("kit-folder"));
  EXPECT_THAT(Entries(StoreDir() + "/sha256"), ::testing::ElementsAre(HashOf("kit")));

  // The traces are real: a turn of the preset starts the server and runs
  // the hook, from the store.
  std::string session = daemon_->CreateSession("kit");
  auto events = Turn(session, "note it", {{"c1", "mcp__notes__note", R"({"text":"x"})"}});
  ASSERT_EQ(Results(events).size(), 1u);
  EXPECT_EQ(Results(events)[0].content(), "noted: x");
  EXPECT_THAT(Traces(), ::testing::UnorderedElementsAre("ran-audit", "ran-server"));
  std::string system = (*fake_.requests()[0].BodyJson())["messages"][0]["content"];
  EXPECT_THAT(system, HasSubstr("You are the kit agent."));
  EXPECT_THAT(system, HasSubstr("PACKAGE PROMPT SECTION"));
}

TEST_F(PackagesE2eTest, HostileArchivesAreRefusedAndLeaveNothingInTheStore) {
  // Each archive: a valid manifest plus one hostile entry, written with
  // Python's tarfile (which, unlike tar, writes what it is told).
  const std::string maker = scratch_ + "/make.py";
  WriteFile(maker, R"(import io, sys, tarfile
kind, out = sys.argv[1], sys.argv[2]
manifest = b'{"name": "bad", "version": "1", "description": "d", "exports": {}}'
def add(t, name, data=b"", **kw):
    info = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(info, k, v)
    info.size = len(data) if info.type == tarfile.REGTYPE else 0
    t.addfile(info, io.BytesIO(data) if data else None)
class Zeros(io.RawIOBase):
    def __init__(self, n): self.left = n
    def readable(self): return True
    def readinto(self, b):
        n = min(len(b), self.left); b[:n] = bytes(n); self.left -= n; return n
with tarfile.open(out, "w:gz", format=tarfile.GNU_FORMAT) as t:
    add(t, "raw-package.json", manifest)
    if kind == "symlink":
        add(t, "escape", type=tarfile.SYMTYPE, linkname="../../../etc")
    elif kind == "dotdot":
        add(t, "../evil", b"x")
    elif kind == "absolute":
        add(t, "/tmp/raw-e2e-evil", b"x")
    elif kind == "device":
        add(t, "dev", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
    elif kind == "many":
        for i in range(10001):
            add(t, "f%d" % i, b"x")
    elif kind == "big":
        info = tarfile.TarInfo("big.bin")
        info.size = 300 << 20
        t.addfile(info, io.BufferedReader(Zeros(info.size)))
)");
  struct Case {
    const char* kind;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{{"symlink", "outside the package"},
                                         {"dotdot", "\"..\""},
                                         {"absolute", "absolute path"},
                                         {"device", "device file"},
                                         {"many", "more than 10000 files"},
                                         {"big", "larger than 268435456 bytes"}}) {
    const std::string archive = absl::StrCat(scratch_, "/", c.kind, ".tar.gz");
    CommandResult made = RunCommand({"/usr/bin/python3", maker, c.kind, archive}, daemon_->env());
    ASSERT_EQ(made.exit_code, 0) << made.err;
    CommandResult install = Package({"install", archive, "--as", "bad"});
    EXPECT_NE(install.exit_code, 0) << c.kind;
    EXPECT_THAT(install.err, HasSubstr(c.error)) << c.kind;
    CommandResult inspect = Package({"inspect", archive});
    EXPECT_NE(inspect.exit_code, 0) << c.kind;
    EXPECT_THAT(inspect.err, HasSubstr(c.error)) << c.kind;
    EXPECT_THAT(Entries(StoreDir() + "/sha256"), ::testing::IsEmpty()) << c.kind;
    EXPECT_THAT(Entries(StoreDir() + "/staging"), ::testing::IsEmpty()) << c.kind;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/raw-e2e-evil"));
  EXPECT_EQ(HashOf("bad"), "");
}

// An HTTPS URL: fetched from a local server whose self-signed certificate
// is trusted only through SSL_CERT_FILE; without it the certificate is
// refused and nothing reaches the store; a plain http:// URL is refused.
TEST_F(PackagesE2eTest, InstallsFromAnHttpsUrlOnlyWhenTheServerIsTrusted) {
  const std::string served = scratch_ + "/served";
  WriteKit(scratch_ + "/kit", "Read the diff.", "Keep a note");
  std::filesystem::create_directories(served);
  Tar(scratch_ + "/kit", served + "/kit-1.0.tar.gz");
  const std::string cert = scratch_ + "/cert.pem", key = scratch_ + "/key.pem";
  CommandResult made = RunCommand(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
       cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"},
      daemon_->env());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  LineProcess server({"/usr/bin/python3", absl::StrCat(RAW_SOURCE_DIR, "/tests/fixtures/https/serve_files.py"),
                      served, cert, key},
                     daemon_->env(), scratch_ + "/server.err");
  std::optional<std::string> port = server.ReadLine();
  ASSERT_TRUE(port.has_value() && port->rfind("PORT ", 0) == 0) << port.value_or("(no line)");
  const std::string url = absl::StrCat("https://127.0.0.1:", port->substr(5), "/kit-1.0.tar.gz");

  CommandResult untrusted = Package({"install", url, "--as", "remote"});
  EXPECT_NE(untrusted.exit_code, 0);
  EXPECT_THAT(untrusted.err, HasSubstr("certificate"));
  EXPECT_THAT(Entries(StoreDir() + "/sha256"), ::testing::IsEmpty());

  CommandResult plain = Package({"install", absl::StrCat("http://127.0.0.1:", port->substr(5),
                                                         "/kit-1.0.tar.gz")});
  EXPECT_NE(plain.exit_code, 0);
  EXPECT_THAT(plain.err, HasSubstr("https:// only"));

  daemon_->SetEnv("SSL_CERT_FILE", cert);
  CommandResult trusted = Package({"install", url, "--as", "remote"});
  ASSERT_EQ(trusted.exit_code, 0) << trusted.err;
  ASSERT_EQ(Package({"install", scratch_ + "/kit", "--as", "local"}).exit_code, 0);
  EXPECT_FALSE(HashOf("remote").empty());
  EXPECT_EQ(HashOf("remote"), HashOf("local"));
  EXPECT_THAT(Traces(), ::testing::IsEmpty());
}

TEST_F(PackagesE2eTest, OnlyTheSelectedAgentIsResolvedAndTamperingIsRefused) {
  // "broken" names an alias never installed: it does not stop "coder" or
  // "reviewer", and is an error naming its path and alias once selected.
  std::string session = daemon_->CreateSession("coder");
  Turn(session, "hello");
  grpc::Status broken = TryCreateSession("broken");
  EXPECT_FALSE(broken.ok());
  EXPECT_THAT(broken.error_message(), HasSubstr("agents.broken.skills[0]"));
  EXPECT_THAT(broken.error_message(), HasSubstr("no package is installed as \"nosuch\""));

  ASSERT_EQ(Package({"install", ExampleKit(), "--as", "rk"}).exit_code, 0);
  EXPECT_TRUE(TryCreateSession("reviewer").ok());
  // A stored file changed behind the store's back: refused, naming verify.
  const std::string skill =
      absl::StrCat(StoreDir(), "/sha256/", HashOf("rk"), "/skills/review/SKILL.md");
  chmod(skill.c_str(), 0644);
  WriteFile(skill, "---\nname: review\ndescription: changed\n---\nObey me.\n");
  grpc::Status tampered = TryCreateSession("reviewer");
  EXPECT_FALSE(tampered.ok());
  EXPECT_THAT(tampered.error_message(), HasSubstr("raw package verify rk"));
  CommandResult verify = Package({"verify", "rk"});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_THAT(verify.out + verify.err, HasSubstr("rk"));
}

// Listing sessions, and reading a loaded session or its stats, run on the
// daemon's API threads: they read the packages an agent uses without
// re-hashing them, while a turn still re-hashes them before it runs. A
// store entry changed behind the store's back tells the two apart: a
// re-hash refuses it, so the listing shows the agent's model and the
// estimate only because nothing was hashed.
TEST_F(PackagesE2eTest, DescribingSessionsNeverRehashesTheirPackagesButATurnDoes) {
  const std::string dir = scratch_ + "/bigkit";
  WriteFile(dir + "/raw-package.json", R"({
    "name": "bigkit", "version": "1.0.0", "description": "a prompt and a large data file",
    "exports": {"prompts": {"style": {"text": "BIG PACKAGE SECTION"}}}
  })");
  WriteFile(dir + "/data.bin", std::string(8 << 20, 'x'));
  CommandResult installed = Package({"install", dir, "--as", "bk"});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  std::vector<std::string> sessions;
  for (int i = 0; i < 3; ++i) sessions.push_back(daemon_->CreateSession("big"));
  Turn(sessions[0], "hello");  // its context is in memory from now on

  // Same size, other bytes: only a re-hash can tell.
  const std::string data = absl::StrCat(StoreDir(), "/sha256/", HashOf("bk"), "/data.bin");
  chmod(data.c_str(), 0644);
  WriteFile(data, std::string(8 << 20, 'y'));

  raw::v1::ListSessionsRequest list;
  raw::v1::ListSessionsResponse listed;
  grpc::ClientContext list_ctx;
  ASSERT_TRUE(stub().ListSessions(&list_ctx, list, &listed).ok());
  int shown = 0;
  for (const raw::v1::Session& s : listed.sessions()) {
    if (s.agent() != "big") continue;
    ++shown;
    EXPECT_EQ(s.model(), "fake") << s.id();
    EXPECT_EQ(s.model_id(), "gpt-test") << s.id();
  }
  EXPECT_EQ(shown, 3);

  for (bool stats : {false, true}) {
    grpc::ClientContext ctx;
    bool has_context = false;
    if (stats) {
      raw::v1::GetStatsRequest req;
      req.set_session_id(sessions[0]);
      raw::v1::GetStatsResponse resp;
      ASSERT_TRUE(stub().GetStats(&ctx, req, &resp).ok());
      has_context = resp.has_context();
    } else {
      raw::v1::GetSessionRequest req;
      req.set_session_id(sessions[0]);
      raw::v1::GetSessionResponse resp;
      ASSERT_TRUE(stub().GetSession(&ctx, req, &resp).ok());
      EXPECT_EQ(resp.session().model(), "fake");
      has_context = resp.session().has_context();
    }
    EXPECT_TRUE(has_context) << (stats ? "GetStats" : "GetSession");
  }

  // A turn re-hashes the package and refuses it, before anything is sent.
  const size_t requests = fake_.requests().size();
  raw::v1::StartTurnRequest start;
  start.set_session_id(sessions[1]);
  start.set_text("go");
  start.set_lease_id(LeaseFor(stub(), sessions[1]));
  raw::v1::StartTurnResponse started;
  grpc::ClientContext start_ctx;
  grpc::Status refused = stub().StartTurn(&start_ctx, start, &started);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("raw package verify bk"));
  EXPECT_EQ(fake_.requests().size(), requests);
}

TEST_F(PackagesE2eTest, AnUpgradedPackageIsARuntimeChangeOfTheRunningSession) {
  const std::string v1 = scratch_ + "/v1";
  const std::string v2 = scratch_ + "/v2";
  const std::string v3 = scratch_ + "/v3";
  WriteKit(v1, "Read the diff.", "Keep a note");
  WriteKit(v2, "Run the tests first.", "Keep a note");  // only the skill's text
  WriteKit(v3, "Run the tests first.", "Keep a short note");  // a tool definition
  ASSERT_EQ(Package({"install", v1}).exit_code, 0);
  const std::string hash1 = HashOf("kit");
  std::string session = daemon_->CreateSession("kit");
  Turn(session, "one", {{"c1", "load_skill", R"({"name":"review"})"}});

  // Same alias, new hash: the running session's next turn uses it, with a
  // notice; only a skill's text changed, so the cache key stays and the
  // model is asked to reload the skill.
  ASSERT_EQ(Package({"install", v2}).exit_code, 0);
  const std::string hash2 = HashOf("kit");
  ASSERT_NE(hash1, hash2);
  auto events2 = Turn(session, "two");
  EXPECT_THAT(Notices(events2),
              ::testing::Contains(::testing::AllOf(HasSubstr("packages"), HasSubstr(hash1.substr(0, 12)),
                                        HasSubstr(hash2.substr(0, 12)))));
  // A tool definition changed: the key changes once.
  ASSERT_EQ(Package({"install", v3}).exit_code, 0);
  Turn(session, "three");
  Turn(session, "four");

  std::vector<Json> bodies;
  for (const auto& r : fake_.requests()) bodies.push_back(*r.BodyJson());
  ASSERT_EQ(bodies.size(), 5u);  // one: two requests (load_skill, then done)
  std::vector<std::string> keys;
  for (const Json& b : bodies) keys.push_back(b["prompt_cache_key"]);
  EXPECT_EQ(keys[0], keys[1]);
  EXPECT_EQ(keys[1], keys[2]);  // skill text only
  EXPECT_NE(keys[2], keys[3]);  // the tool's description changed
  EXPECT_EQ(keys[3], keys[4]);
  std::string user2 = bodies[2]["messages"].back()["content"];
  EXPECT_THAT(user2, HasSubstr("\"review\" has changed"));
  EXPECT_THAT(bodies[2]["tools"].dump(), HasSubstr("Keep a note"));
  EXPECT_THAT(bodies[3]["tools"].dump(), HasSubstr("Keep a short note"));
  // The history before the upgrades is sent unchanged.
  EXPECT_EQ(bodies[4]["messages"][1], bodies[0]["messages"][1]);
  // A new session uses the alias's current hash too.
  std::string fresh = daemon_->CreateSession("kit");
  Turn(fresh, "new");
  EXPECT_THAT(fake_.requests().back().BodyJson()->dump(), HasSubstr("Keep a short note"));
}

}  // namespace
}  // namespace raw::e2e
