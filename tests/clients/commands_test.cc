// The `raw` subcommands end to end through Dispatch, against the fake
// daemon on a private socket (autostart off, environment passed in).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "clients/cli/config_command.h"
#include "clients/cli/dispatch.h"
#include "clients/cli/exit_codes.h"
#include "common/version.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"

namespace raw::cli {
namespace {

using ::raw::testing::FakeDaemon;
using ::raw::testing::MakeEvent;
using ::raw::testing::ReadFile;
using ::raw::testing::TempDir;
using ::raw::testing::WriteFile;

struct Result {
  int code;
  std::string out;
  std::string err;
};

class CommandsTest : public ::testing::Test {
 protected:
  CommandsTest() : daemon_(dir_.File("rawd.sock")) {}

  Result Raw(std::vector<std::string> args, const std::string& socket = "") {
    std::map<std::string, std::string> vars = {
        {"RAW_SOCKET", socket.empty() ? daemon_.socket_path() : socket},
        {"RAW_NO_AUTOSTART", "1"},
        {"XDG_CONFIG_HOME", dir_.File("config")},
        {"HOME", dir_.path()}};
    EnvLookup env = [vars](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
    std::ostringstream out, err;
    int code = Dispatch(args, out, err, env);
    return {code, out.str(), err.str()};
  }

  static v1::Session Session(const std::string& id, const std::string& title) {
    v1::Session s;
    s.set_id(id);
    s.set_agent("coder");
    s.set_title(title);
    s.set_last_activity_unix_ms(1714572180000);
    return s;
  }

  TempDir dir_;
  FakeDaemon daemon_;
};

TEST_F(CommandsTest, HelpAndVersionNeedNoDaemon) {
  Result none = Raw({});
  EXPECT_EQ(none.code, kExitOk);
  EXPECT_NE(none.out.find("usage: raw"), std::string::npos);
  EXPECT_EQ(Raw({"--help"}).out, none.out);
  Result version = Raw({"--version"});
  EXPECT_EQ(version.out, std::string("raw ") + kVersion + " (protocol " +
                             std::to_string(kProtocolVersion) + ")\n");
  for (const char* command : {"run", "sessions", "daemon", "config"}) {
    Result help = Raw({command, "--help"});
    EXPECT_EQ(help.code, kExitOk) << command;
    EXPECT_NE(help.out.find(std::string("usage: raw ") + command), std::string::npos) << command;
  }
  EXPECT_TRUE(daemon_.service().calls().empty());
}

TEST_F(CommandsTest, UsageErrorsExitWithTwo) {
  Result unknown = Raw({"frobnicate"});
  EXPECT_EQ(unknown.code, kExitUsage);
  EXPECT_EQ(unknown.err,
            "raw: unknown command 'frobnicate'\nRun 'raw --help' for the list of commands.\n");
  EXPECT_EQ(Raw({"--bogus"}).code, kExitUsage);
  EXPECT_EQ(Raw({"run"}).code, kExitUsage);
  EXPECT_EQ(Raw({"sessions"}).code, kExitUsage);
  EXPECT_EQ(Raw({"sessions", "show"}).err, "raw sessions show: a session ID is required\n");
  EXPECT_EQ(Raw({"daemon", "restart"}).code, kExitUsage);
  EXPECT_EQ(Raw({"config", "check", "--force"}).code, kExitUsage);
  EXPECT_TRUE(daemon_.service().calls().empty());
}

// An error from the daemon may quote what it was given (here the id):
// printed sanitized, no escape sequence reaches the terminal.
TEST_F(CommandsTest, ADaemonsErrorIsPrintedSanitized) {
  Result show = Raw({"sessions", "show", "\x1b]0;title\x07"});
  EXPECT_NE(show.code, kExitOk);
  EXPECT_NE(show.err.find("no session with id"), std::string::npos) << show.err;
  EXPECT_EQ(show.err.find('\x1b'), std::string::npos) << show.err;
  EXPECT_EQ(show.err.find('\x07'), std::string::npos) << show.err;
}

TEST_F(CommandsTest, RunPrintsTheAnswer) {
  daemon_.service().OnStartTurn([](const std::string& turn) {
    v1::Event delta = MakeEvent(turn);
    delta.mutable_text_delta()->set_text("4");
    v1::Event message = MakeEvent(turn);
    message.mutable_assistant_message()->set_text("4");
    v1::Event ended = MakeEvent(turn);
    ended.mutable_turn_ended()->set_reason(v1::TURN_END_REASON_COMPLETED);
    return std::vector<v1::Event>{delta, message, ended};
  });
  Result run = Raw({"run", "--cwd", "/tmp", "what", "is", "2+2"});
  EXPECT_EQ(run.code, kExitOk) << run.err;
  EXPECT_EQ(run.out, "4\n");
  EXPECT_EQ(run.err, "session sess_new (agent coder)\n");
  auto calls = daemon_.service().calls();
  EXPECT_NE(std::find(calls.begin(), calls.end(), "StartTurn:what is 2+2"), calls.end());
}

TEST_F(CommandsTest, SocketOptionOverridesRawSocket) {
  Result status = Raw({"--socket", daemon_.socket_path(), "daemon", "status"},
                      dir_.File("elsewhere.sock"));
  EXPECT_EQ(status.code, kExitOk) << status.err;
  Result per_command = Raw({"daemon", "status", "--socket", daemon_.socket_path()},
                           dir_.File("elsewhere.sock"));
  EXPECT_EQ(per_command.code, kExitOk) << per_command.err;
}

TEST_F(CommandsTest, SessionsListPagesThroughEverySession) {
  daemon_.service().SetListPageSize(2);
  for (int i = 0; i < 5; ++i) {
    v1::Session s = Session("s" + std::to_string(i), "title\n" + std::to_string(i));
    // s0 never expires; the others are due: expiry times in the past.
    if (i > 0) s.set_expires_at_unix_ms(1714572180000);
    daemon_.service().AddSession(s);
  }
  Result list = Raw({"sessions", "list"});
  EXPECT_EQ(list.code, kExitOk) << list.err;
  std::istringstream lines(list.out);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.substr(0, 2), "ID");
  EXPECT_NE(header.find("AGENT"), std::string::npos);
  EXPECT_NE(header.find("LAST ACTIVITY"), std::string::npos);
  EXPECT_NE(header.find("EXPIRES"), std::string::npos);
  EXPECT_NE(header.find("TITLE"), std::string::npos);
  int rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) {
    EXPECT_EQ(line.substr(0, 2), "s" + std::to_string(rows));
    EXPECT_EQ(line.substr(header.find("EXPIRES"), 5), rows == 0 ? "never" : "due  ") << line;
    EXPECT_NE(line.find("title " + std::to_string(rows)), std::string::npos) << line;
  }
  EXPECT_EQ(rows, 5);
  auto calls = daemon_.service().calls();
  EXPECT_EQ(std::count_if(calls.begin(), calls.end(),
                          [](const std::string& c) { return c.rfind("ListSessions", 0) == 0; }),
            3);

  Result json = Raw({"sessions", "list", "--json"});
  EXPECT_EQ(json.code, kExitOk);
  EXPECT_EQ(std::count(json.out.begin(), json.out.end(), '\n'), 5);
  EXPECT_EQ(json.out.rfind(R"({"id":"s0","agent":"coder")", 0), 0u) << json.out;
}

// Ids and agents come from any client of the daemon: sanitized like the
// titles, each on its row.
TEST_F(CommandsTest, SessionsListShowsIdsAndAgentsSanitized) {
  v1::Session s = Session("s1\x1b]0;x\x07", "title");
  s.set_agent("coder\u202E\nforged row");
  daemon_.service().AddSession(s);
  Result list = Raw({"sessions", "list"});
  EXPECT_EQ(list.code, kExitOk) << list.err;
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 2) << list.out;
  EXPECT_NE(
      list.out.find("\ns1\uFFFD]0;x\uFFFD  coder\u27E8U+202E\u27E9\u27E8U+000A\u27E9forged row  "),
      std::string::npos)
      << list.out;
  EXPECT_EQ(list.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(list.out.find("\u202E"), std::string::npos);
}

TEST_F(CommandsTest, SessionsListWithNoSessions) {
  EXPECT_EQ(Raw({"sessions", "list"}).out, "no sessions\n");
}

TEST_F(CommandsTest, SessionsShowPrintsTheWholeHistory) {
  v1::Session s = Session("s1", "fix");
  s.set_cwd("/project");
  daemon_.service().AddSession(s);
  std::vector<v1::Event> history;
  for (int i = 0; i < 3; ++i) {
    v1::Event started = MakeEvent("t" + std::to_string(i));
    started.mutable_turn_started()->set_user_text("question " + std::to_string(i));
    v1::Event answer = MakeEvent("t" + std::to_string(i));
    answer.mutable_assistant_message()->set_text("answer " + std::to_string(i));
    history.push_back(started);
    history.push_back(answer);
  }
  daemon_.service().SetHistory(history, 4);
  Result show = Raw({"sessions", "show", "s1"});
  EXPECT_EQ(show.code, kExitOk) << show.err;
  EXPECT_EQ(show.out.rfind("session s1 (agent coder, /project)\n", 0), 0u) << show.out;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(show.out.find("you: question " + std::to_string(i)), std::string::npos);
    EXPECT_NE(show.out.find("answer " + std::to_string(i) + "\n"), std::string::npos);
  }
  Result json = Raw({"sessions", "show", "s1", "--json"});
  EXPECT_EQ(std::count(json.out.begin(), json.out.end(), '\n'), 6) << json.out;

  Result missing = Raw({"sessions", "show", "nope"});
  EXPECT_EQ(missing.code, kExitUsage);
  EXPECT_EQ(missing.err, "raw sessions show: no session with id \"nope\"\n");
}

TEST_F(CommandsTest, DaemonStatusPrintsWhatTheDaemonReports) {
  v1::GetDaemonInfoResponse info;
  info.set_version("0.0.9");
  info.set_protocol_version(kProtocolVersion);
  info.set_pid(4242);
  info.set_config_path("/c/config.json");
  info.set_state_dir("/s/raw");
  daemon_.service().SetInfo(info);
  Result status = Raw({"daemon", "status"});
  EXPECT_EQ(status.code, kExitOk) << status.err;
  EXPECT_NE(status.out.find("rawd is running"), std::string::npos);
  EXPECT_NE(status.out.find("pid        4242"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("socket     " + daemon_.socket_path()), std::string::npos);
  EXPECT_NE(status.out.find("config     /c/config.json"), std::string::npos);
  EXPECT_NE(status.out.find("state dir  /s/raw"), std::string::npos);
  // Another release of the same protocol (an upgrade left it running).
  EXPECT_NE(status.out.find(absl::StrCat("version    0.0.9 (protocol ", kProtocolVersion,
                                         "; this raw is ", kVersion,
                                         ": raw daemon stop starts a matching one)")),
            std::string::npos)
      << status.out;
  Result json = Raw({"daemon", "status", "--json"});
  EXPECT_NE(json.out.find(R"("pid":"4242")"), std::string::npos) << json.out;
}

// What MCP servers and packages control (a server's error text, its tool
// names, an agent's names) reaches the terminal as text, never as control
// sequences: an OSC 52 would set the clipboard.
TEST_F(CommandsTest, McpAndAgentsPrintServerTextWithoutControlSequences) {
  const std::string osc52 = "\x1b]52;c;ZWNobyBoaQ==\x07";
  v1::ListMcpServersResponse servers;
  v1::McpServerInfo* server = servers.add_servers();
  server->set_name("evil" + osc52);
  server->set_state(v1::MCP_SERVER_STATE_FAILED);
  server->set_transport("stdio");
  server->set_endpoint("/bin/sh\x1b[2J");
  server->set_last_error("failed to start: " + osc52 + " evil\n\x1b[8mhidden");
  server->add_tools("read" + osc52);
  server->add_tools("write\x1b]0;title\x07");
  daemon_.service().SetMcpServers(servers);
  Result mcp = Raw({"mcp"});
  EXPECT_EQ(mcp.code, kExitOk) << mcp.err;
  EXPECT_EQ(mcp.out.find('\x1b'), std::string::npos) << mcp.out;
  EXPECT_EQ(mcp.out.find('\x07'), std::string::npos) << mcp.out;
  EXPECT_NE(mcp.out.find("last error: failed to start: \xEF\xBF\xBD]52;c;"), std::string::npos)
      << mcp.out;
  EXPECT_NE(mcp.out.find("tools: read\xEF\xBF\xBD]52;c;"), std::string::npos) << mcp.out;

  v1::ListAgentsResponse agents;
  v1::AgentInfo* agent = agents.add_agents();
  agent->set_name("pkg/x/agent" + osc52);
  agent->set_model("m\x1b[1A");
  agent->set_extends("base\x1b[2K");
  agent->add_tools("t\x1b[H");
  agent->add_skills(
      "s\xC2\x9B"
      "1A");
  agent->add_prompts("p\x1b[3J");
  daemon_.service().SetAgents(agents);
  Result listed = Raw({"agents"});
  EXPECT_EQ(listed.code, kExitOk) << listed.err;
  EXPECT_EQ(listed.out.find('\x1b'), std::string::npos) << listed.out;
  EXPECT_EQ(listed.out.find("\xC2\x9B"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("pkg/x/agent\xEF\xBF\xBD]52"), std::string::npos) << listed.out;
}

TEST_F(CommandsTest, DaemonStatusAndStopWithoutADaemonSayNotRunning) {
  const std::string absent = dir_.File("absent.sock");
  for (const char* action : {"status", "stop"}) {
    Result r = Raw({"daemon", action}, absent);
    EXPECT_EQ(r.code, kExitNotRunning) << action;
    EXPECT_EQ(r.out, "rawd is not running (socket " + absent + ")\n");
  }
  // Nothing was started: not even the lock file exists.
  EXPECT_NE(access((absent + ".lock").c_str(), F_OK), 0);
}

TEST_F(CommandsTest, DaemonStopWaitsUntilTheDaemonIsGone) {
  daemon_.service().SetOnShutdown([this] { daemon_.StopSoon(); });
  Result stop = Raw({"daemon", "stop"});
  EXPECT_EQ(stop.code, kExitOk) << stop.err;
  EXPECT_EQ(stop.out, "rawd stopped (pid 0)\n");
  EXPECT_EQ(Raw({"daemon", "status"}).code, kExitNotRunning);
}

TEST_F(CommandsTest, DaemonStopWaitsForTheProcessToExit) {
  // The daemon's pid is a child that exits when the fake shuts down.
  int gate[2];
  ASSERT_EQ(pipe2(gate, O_CLOEXEC), 0);
  pid_t child = fork();
  if (child == 0) {
    dup2(gate[0], 0);
    execl("/bin/cat", "cat", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(gate[0]);
  v1::GetDaemonInfoResponse info;
  info.set_protocol_version(kProtocolVersion);
  info.set_pid(child);
  daemon_.service().SetInfo(info);
  daemon_.service().SetOnShutdown([this, &gate] {
    close(gate[1]);  // the "daemon process" exits
    daemon_.StopSoon();
  });
  Result stop = Raw({"daemon", "stop"});
  EXPECT_EQ(stop.code, kExitOk) << stop.err;
  EXPECT_EQ(stop.out, "rawd stopped (pid " + std::to_string(child) + ")\n");
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
}

TEST_F(CommandsTest, ConfigCheckOkAndProblems) {
  v1::CheckConfigResponse ok;
  ok.set_path("/c/config.json");
  ok.set_exists(true);
  daemon_.service().SetConfigCheck(ok);
  Result good = Raw({"config", "check"});
  EXPECT_EQ(good.code, kExitOk);
  EXPECT_EQ(good.out, "ok\n");
  EXPECT_EQ(daemon_.service().last_check_path(), "");

  v1::CheckConfigResponse bad = ok;
  bad.add_errors("agents.coder.model: unknown model \"x\"");
  bad.add_errors("models.m.method: must be one of ...");
  daemon_.service().SetConfigCheck(bad);
  Result problems = Raw({"config", "check", "--config", "rel/config.json"});
  EXPECT_EQ(problems.code, kExitUsage);
  EXPECT_EQ(problems.out,
            "agents.coder.model: unknown model \"x\"\nmodels.m.method: must be one of ...\n");
  // The path is made absolute before the daemon (in another directory) sees it.
  std::string sent = daemon_.service().last_check_path();
  EXPECT_EQ(sent.front(), '/');
  EXPECT_EQ(sent.substr(sent.size() - 16), "/rel/config.json");

  v1::CheckConfigResponse missing;
  missing.set_path("/c/config.json");
  daemon_.service().SetConfigCheck(missing);
  Result defaults = Raw({"config", "check"});
  EXPECT_EQ(defaults.code, kExitOk);
  EXPECT_EQ(defaults.out, "ok\n");
  EXPECT_NE(defaults.err.find("does not exist; the built-in defaults apply"), std::string::npos);
  Result explicit_missing = Raw({"config", "check", "--config", "/no/such.json"});
  EXPECT_EQ(explicit_missing.code, kExitUsage);
  EXPECT_NE(explicit_missing.err.find("/no/such.json does not exist"), std::string::npos);
}

TEST_F(CommandsTest, ConfigInitWritesRefusesAndForces) {
  v1::GetConfigTemplateResponse tmpl;
  tmpl.set_text("{ // template\n}\n");
  tmpl.set_default_path(dir_.File("config/raw/config.json"));
  daemon_.service().SetTemplate(tmpl);

  Result first = Raw({"config", "init"});
  EXPECT_EQ(first.code, kExitOk) << first.err;
  EXPECT_EQ(first.out, "wrote " + dir_.File("config/raw/config.json") + "\n");
  EXPECT_EQ(ReadFile(dir_.File("config/raw/config.json")), tmpl.text());
  struct stat st;
  ASSERT_EQ(stat(dir_.File("config/raw/config.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  WriteFile(dir_.File("config/raw/config.json"), "mine");
  Result again = Raw({"config", "init"});
  EXPECT_EQ(again.code, kExitUsage);
  EXPECT_NE(again.err.find("already exists; use --force"), std::string::npos);
  EXPECT_EQ(ReadFile(dir_.File("config/raw/config.json")), "mine");

  Result forced = Raw({"config", "init", "--force"});
  EXPECT_EQ(forced.code, kExitOk) << forced.err;
  EXPECT_EQ(ReadFile(dir_.File("config/raw/config.json")), tmpl.text());

  Result elsewhere = Raw({"config", "init", "--config", dir_.File("other/x.json")});
  EXPECT_EQ(elsewhere.code, kExitOk) << elsewhere.err;
  EXPECT_EQ(ReadFile(dir_.File("other/x.json")), tmpl.text());
}

TEST_F(CommandsTest, ConfigInitWritesOnlyToItsOwnPathAndOnlyValidText) {
  // A daemon that names another file gets its template written to the
  // client's own config path, never to the file it named.
  v1::GetConfigTemplateResponse tmpl;
  tmpl.set_text("{ // template\n}\n");
  tmpl.set_default_path(dir_.File("victim/.bashrc"));
  daemon_.service().SetTemplate(tmpl);
  Result own = Raw({"config", "init"});
  EXPECT_EQ(own.code, kExitOk) << own.err;
  EXPECT_EQ(own.out, "wrote " + dir_.File("config/raw/config.json") + "\n");
  struct stat st;
  EXPECT_NE(stat(dir_.File("victim/.bashrc").c_str(), &st), 0);

  // Text that is not a config is refused and nothing is written.
  const std::pair<std::string, std::string> bad[] = {
      {"echo pwned\n", "it is not JSON"},
      {"[1, 2]", "it is not a JSON object"},
      {"{ \"a\": \"\x1b[2J\" }", "control character 0x1b"},
      {std::string(kMaxConfigTemplateBytes + 1, ' '), "bytes long"},
  };
  for (const auto& [text, why] : bad) {
    tmpl.set_text(text);
    daemon_.service().SetTemplate(tmpl);
    const std::string target = dir_.File("fresh/config.json");
    Result refused = Raw({"config", "init", "--config", target});
    EXPECT_NE(refused.code, kExitOk);
    EXPECT_NE(refused.err.find("the daemon's starting config was not written"), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find(why), std::string::npos) << refused.err;
    EXPECT_NE(stat(target.c_str(), &st), 0) << why;
  }
}

}  // namespace
}  // namespace raw::cli

namespace raw::cli {
namespace {

TEST(WithSchemaReferenceTest, TheSchemaComesFirstInTheTopLevelObject) {
  const std::string tmpl = "// Raw configuration\n// more\n{\n  \"default_agent\": \"x\"\n}\n";
  EXPECT_EQ(WithSchemaReference(tmpl, "file:///usr/share/raw/config.schema.json"),
            "// Raw configuration\n// more\n{\n"
            "  // The JSON Schema of this file, for editors' completion and checks.\n"
            "  \"$schema\": \"file:///usr/share/raw/config.schema.json\",\n\n"
            "  \"default_agent\": \"x\"\n}\n");
  EXPECT_EQ(WithSchemaReference("{\n}\n", "file:///s.json").rfind("{\n  // The JSON Schema", 0),
            0u);
  // A path with a quote stays one JSON string.
  EXPECT_NE(WithSchemaReference("{\n}\n", "file:///a\"b").find(R"("file:///a\"b")"),
            std::string::npos);
  // No schema installed, or no brace of its own: unchanged.
  EXPECT_EQ(WithSchemaReference(tmpl, ""), tmpl);
  EXPECT_EQ(WithSchemaReference("{ \"a\": 1 }\n", "file:///s.json"), "{ \"a\": 1 }\n");
}

}  // namespace
}  // namespace raw::cli
