// The bridge's own operations against a real rawd: a prompt's turn or
// compaction is the one whose id rawd returned for it (a compaction with
// nothing to compact records nothing but its end), a cancel that finds
// nothing to interrupt still answers, the approval mode the client chose
// holds once the session comes back after a handover, a deleted session
// is no longer open, a cancelled initialize can be sent again, and /agent
// tells the client the mode the new agent brings.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "tests/e2e/acp/acp_fixture.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

// The driver beside this file (it uses tests/acp's harness and SDK).
constexpr char kOpsDriver[] = "../e2e/acp/session_ops_driver.mjs";
constexpr absl::Duration kAnswerWait = absl::Seconds(20);

// raw-acp on pipes, spoken to in hand-written lines; its stdout and stderr
// are read as they come, so that a test can wait for an answer or a log
// line (with a bound: a missing one fails the test instead of hanging it).
class PipedAcp {
 public:
  explicit PipedAcp(const std::map<std::string, std::string>& env) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
      return;
    }
    pid_ = SpawnRawAcp(env, in[0], out[1], err[1]);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    in_ = in[1];
    threads_.emplace_back([this, fd = out[0]] { Read(fd, &out_lines_); });
    threads_.emplace_back([this, fd = err[0]] { Read(fd, &err_lines_); });
    threads_.emplace_back([this] {
      int status = 0;
      waitpid(pid_, &status, 0);
      exited_.Notify();
    });
  }
  ~PipedAcp() {
    if (in_ >= 0) close(in_);  // end of input: raw-acp lets go and exits
    if (pid_ > 0 && !exited_.WaitForNotificationWithTimeout(absl::Seconds(10))) {
      ADD_FAILURE() << "raw-acp still runs 10 s after the end of its input";
      kill(pid_, SIGKILL);
    }
    for (std::thread& t : threads_) t.join();
  }

  bool started() const { return pid_ > 0 && in_ >= 0; }

  // Writes `messages` in one write: raw-acp reads them together.
  void Send(const std::vector<Json>& messages) {
    std::string text;
    for (const Json& m : messages) absl::StrAppend(&text, DumpJson(m), "\n");
    ASSERT_EQ(write(in_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }

  // The answer to request `id`; null when none came within kAnswerWait.
  Json ResponseTo(int id) {
    Json found;
    auto answered = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const std::string& line : out_lines_) {
        absl::StatusOr<Json> m = ParseJson(line);
        if (m.ok() && m->is_object() && m->contains("id") && (*m)["id"] == id &&
            !m->contains("method")) {
          found = *m;
          return true;
        }
      }
      return false;
    };
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&answered), kAnswerWait);
    return found;
  }

  // Every message raw-acp wrote so far, in order.
  std::vector<Json> Messages() {
    absl::MutexLock lock(&mu_);
    std::vector<Json> messages;
    for (const std::string& line : out_lines_) {
      absl::StatusOr<Json> m = ParseJson(line);
      if (m.ok()) messages.push_back(*std::move(m));
    }
    return messages;
  }

  // What raw-acp logged so far (for failure messages).
  std::string Logs() {
    absl::MutexLock lock(&mu_);
    return absl::StrJoin(err_lines_, "\n");
  }

  // Whether raw-acp logged a line containing `text` within kAnswerWait.
  bool WaitForLog(const std::string& text) {
    auto logged = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const std::string& line : err_lines_) {
        if (absl::StrContains(line, text)) return true;
      }
      return false;
    };
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&logged), kAnswerWait);
  }

 private:
  void Read(int fd, std::vector<std::string>* lines) {
    std::string pending;
    char buf[65536];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) break;
      pending.append(buf, static_cast<size_t>(n));
      absl::MutexLock lock(&mu_);
      for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
        lines->push_back(pending.substr(0, nl));
      }
    }
    close(fd);
  }

  pid_t pid_ = -1;
  int in_ = -1;
  absl::Notification exited_;
  std::vector<std::thread> threads_;
  absl::Mutex mu_;
  std::vector<std::string> out_lines_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> err_lines_ ABSL_GUARDED_BY(mu_);
};

Json Request(int id, const std::string& method, Json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

Json Notification(const std::string& method, Json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

Json Prompt(int id, const std::string& session_id, const std::string& text) {
  return Request(id, "session/prompt",
                 {{"sessionId", session_id}, {"prompt", {{{"type", "text"}, {"text", text}}}}});
}

Json Initialize(int id) {
  return Request(id, "initialize",
                 {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}});
}

// The `session/update`s of kind `kind` in `messages` that come after the
// answer to request `after` and before the answer to request `before`.
std::vector<Json> UpdatesBetween(const std::vector<Json>& messages, const std::string& kind,
                                 int after, int before) {
  auto answers = [](const Json& m, int id) {
    return !m.contains("method") && m.contains("id") && m["id"] == id;
  };
  std::vector<Json> updates;
  bool started = false;
  for (const Json& m : messages) {
    if (answers(m, before)) break;
    if (answers(m, after)) started = true;
    if (started && m.value("method", "") == "session/update" &&
        m["params"]["update"].value("sessionUpdate", "") == kind) {
      updates.push_back(m["params"]["update"]);
    }
  }
  return updates;
}

// Stops `pid` with SIGSTOP and returns once every one of its threads is
// stopped (the signal stops them one by one).
void StopProcess(pid_t pid) {
  ASSERT_EQ(kill(pid, SIGSTOP), 0);
  const std::string tasks = absl::StrCat("/proc/", pid, "/task");
  for (bool all_stopped = false; !all_stopped;) {
    all_stopped = true;
    DIR* dir = opendir(tasks.c_str());
    ASSERT_NE(dir, nullptr);
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      std::ifstream in(absl::StrCat(tasks, "/", entry->d_name, "/stat"));
      std::string stat((std::istreambuf_iterator<char>(in)), {});
      // "pid (comm) STATE ...": the comm may hold spaces and parentheses.
      size_t close_paren = stat.rfind(')');
      if (close_paren != std::string::npos && close_paren + 2 < stat.size()) {
        char state = stat[close_paren + 2];
        if (state != 'T' && state != 't') all_stopped = false;
      }
    }
    closedir(dir);
  }
}

// A session with nothing to compact: rawd records only the compaction's
// end, under the id its Compact answer carries, and the prompt answers with
// that end (it used to wait for a CompactionStarted that never comes).
TEST_F(AcpTest, CompactWithNothingToCompactAnswersEndTurn) {
  Json r = Drive(kOpsDriver, "compact_nothing");
  EXPECT_EQ(r["stopReason"], "end_turn") << r.dump();
  EXPECT_THAT(r["text"].get<std::string>(), HasSubstr("Nothing to compact")) << r.dump();
  EXPECT_EQ(r["exit"]["code"], 0);
  EXPECT_TRUE(fake_.requests().empty());
}

// session/cancel right behind /compact (rawd is stopped until raw-acp has
// read the cancel): whether the interrupt reaches the compaction or finds
// nothing left to stop, the prompt answers `cancelled` (never an error, and
// not never), and the session takes the next prompt (which the interrupt,
// sent again while the compaction's start was unanswered, must not reach).
TEST_F(AcpTest, CancelRightAfterCompactAnswersCancelledAndTheSessionGoesOn) {
  PipedAcp acp(daemon_->env());
  ASSERT_TRUE(acp.started());
  acp.Send({Initialize(1)});
  ASSERT_TRUE(acp.ResponseTo(1).contains("result"));
  acp.Send(
      {Request(2, "session/new", {{"cwd", daemon_->workdir()}, {"mcpServers", Json::array()}})});
  Json created = acp.ResponseTo(2);
  ASSERT_TRUE(created["result"]["sessionId"].is_string()) << created.dump();
  const std::string id = created["result"]["sessionId"];
  StopProcess(daemon_->pid());
  {
    absl::Cleanup resume = [&] { kill(daemon_->pid(), SIGCONT); };
    acp.Send({Prompt(3, id, "/compact"), Notification("session/cancel", {{"sessionId", id}}),
              Prompt(4, id, "marker")});
    // Answered without rawd: once it is here, the cancel was read.
    Json marker = acp.ResponseTo(4);
    EXPECT_EQ(marker["error"]["code"], -32600) << marker.dump();
  }
  Json cancelled = acp.ResponseTo(3);
  EXPECT_EQ(cancelled["result"]["stopReason"], "cancelled") << cancelled.dump();
  acp.Send({Prompt(5, id, "/compact")});
  Json again = acp.ResponseTo(5);
  EXPECT_EQ(again["result"]["stopReason"], "end_turn") << again.dump();
  EXPECT_TRUE(fake_.requests().empty());
}

// The agent runs everything (allow_all); the client chose ask_all. The
// session goes to another client and back (the client's prompt asks for
// it): the mode is chosen again before the prompt's turn is planned, even
// while the connection's other calls to rawd are busy, so the bash call
// asks first.
TEST_F(AcpTest, TheClientsModeHoldsWhenTheSessionComesBackAfterAHandover) {
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo asked first"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  Json r = Drive(kOpsDriver, "mode_handover");
  EXPECT_EQ(r["refused"]["error"]["code"], -32603) << r.dump();
  EXPECT_EQ(r["response"]["stopReason"], "end_turn") << r.dump();
  EXPECT_EQ(r["permissions"], Json::array({"c1"})) << r.dump();
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[1].body, HasSubstr("asked first"));
}

// As above, but meanwhile the session's agent was configured deny_all,
// which no session can leave: rawd refuses the mode raw-acp chooses again,
// and the client is told the mode in force (current_mode_update) before
// the prompt's turn starts, instead of still showing its own choice.
TEST_F(AcpTest, TheClientIsToldTheModeInForceWhenRawdRefusesItsModeAfterAHandover) {
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo denied"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  Json r = Drive(kOpsDriver, "mode_handover", {{"DENY_CONFIG", daemon_->config_path()}});
  EXPECT_EQ(r["response"]["stopReason"], "end_turn") << r.dump();
  ASSERT_EQ(r["modeUpdates"].size(), 2u) << r.dump();
  EXPECT_EQ(r["modeUpdates"][0]["currentModeId"], "ask_all");
  EXPECT_EQ(r["modeUpdates"][1]["currentModeId"], "deny_all");
  std::vector<std::string> kinds = r["kinds"];
  auto told = std::find(kinds.begin(), kinds.end(), "current_mode_update");
  auto call = std::find(kinds.begin(), kinds.end(), "tool_call");
  EXPECT_LT(told, call) << r["kinds"].dump();
  EXPECT_EQ(r["permissions"], Json::array()) << r.dump();
}

// The session is deleted while raw-acp has it open (following its
// holder). rawd ends the follower's event stream (NOT_FOUND), and from then
// on requests for the session get -32002, as for any session not open on
// the connection, instead of a "try again" that never comes true.
TEST_F(AcpTest, RequestsForADeletedSessionAreResourceNotFound) {
  const std::string id = daemon_->CreateSession();
  const std::string lease = LeaseFor(stub(), id);
  ASSERT_FALSE(lease.empty());
  PipedAcp acp(daemon_->env());
  ASSERT_TRUE(acp.started());
  acp.Send({Initialize(1)});
  ASSERT_TRUE(acp.ResponseTo(1).contains("result"));
  acp.Send(
      {Request(2, "session/load",
               {{"sessionId", id}, {"cwd", daemon_->workdir()}, {"mcpServers", Json::array()}})});
  Json loaded = acp.ResponseTo(2);
  ASSERT_TRUE(loaded.contains("result")) << loaded.dump();

  raw::v1::DeleteSessionRequest request;
  request.set_session_id(id);
  request.set_lease_id(lease);
  raw::v1::DeleteSessionResponse response;
  grpc::ClientContext ctx;
  grpc::Status deleted = stub().DeleteSession(&ctx, request, &response);
  ASSERT_TRUE(deleted.ok()) << deleted.error_message();
  ASSERT_TRUE(acp.WaitForLog(absl::StrCat("session ", id, " is gone"))) << acp.Logs();

  acp.Send({Prompt(3, id, "hi")});
  Json prompt = acp.ResponseTo(3);
  EXPECT_EQ(prompt["error"]["code"], -32002) << prompt.dump();
  acp.Send({Request(4, "session/set_mode", {{"sessionId", id}, {"modeId", "ask_all"}})});
  Json mode = acp.ResponseTo(4);
  EXPECT_EQ(mode["error"]["code"], -32002) << mode.dump();
  EXPECT_TRUE(fake_.requests().empty());
}

// initialize cancelled ($/cancel_request) before its answer (rawd is
// stopped, so it cannot have answered): answered -32800, and the connection
// is not initialized, so initialize can be sent again.
TEST_F(AcpTest, ACancelledInitializeCanBeSentAgain) {
  PipedAcp acp(daemon_->env());
  ASSERT_TRUE(acp.started());
  StopProcess(daemon_->pid());
  {
    absl::Cleanup resume = [&] { kill(daemon_->pid(), SIGCONT); };
    acp.Send({Initialize(1), Notification("$/cancel_request", {{"requestId", 1}})});
    Json cancelled = acp.ResponseTo(1);
    EXPECT_EQ(cancelled["error"]["code"], -32800) << cancelled.dump();
  }
  acp.Send({Initialize(2)});
  Json again = acp.ResponseTo(2);
  ASSERT_TRUE(again.contains("result")) << again.dump();
  EXPECT_EQ(again["result"]["protocolVersion"], 1);
  acp.Send(
      {Request(3, "session/new", {{"cwd", daemon_->workdir()}, {"mcpServers", Json::array()}})});
  Json created = acp.ResponseTo(3);
  EXPECT_TRUE(created["result"]["sessionId"].is_string()) << created.dump();
}

// `/agent NAME` changes the session's agent and with it the approval mode
// its turns run under (coder allows all, asker asks): the client is told as
// after session/set_config_option, the options and the mode before the
// command's answer, so that an editor never shows a mode the session no
// longer runs under.
TEST_F(AcpTest, AgentCommandTellsTheClientTheNewAgentsMode) {
  PipedAcp acp(daemon_->env());
  ASSERT_TRUE(acp.started());
  acp.Send({Request(1, "initialize",
                    {{"protocolVersion", 1},
                     {"clientCapabilities", Json::object()},
                     {"clientInfo", {{"name", "test"}, {"version", "1"}}}})});
  ASSERT_TRUE(acp.ResponseTo(1).contains("result"));
  acp.Send(
      {Request(2, "session/new", {{"cwd", daemon_->workdir()}, {"mcpServers", Json::array()}})});
  Json created = acp.ResponseTo(2);
  ASSERT_TRUE(created["result"]["sessionId"].is_string()) << created.dump();
  EXPECT_EQ(created["result"]["modes"]["currentModeId"], "allow_all") << created.dump();
  const std::string id = created["result"]["sessionId"];

  acp.Send({Prompt(3, id, "/agent asker")});
  Json asker = acp.ResponseTo(3);
  EXPECT_EQ(asker["result"]["stopReason"], "end_turn") << asker.dump();
  acp.Send({Prompt(4, id, "/agent coder")});
  Json coder = acp.ResponseTo(4);
  EXPECT_EQ(coder["result"]["stopReason"], "end_turn") << coder.dump();

  const std::vector<Json> messages = acp.Messages();
  std::vector<Json> modes = UpdatesBetween(messages, "current_mode_update", 2, 3);
  ASSERT_EQ(modes.size(), 1u) << Json(messages).dump();
  EXPECT_EQ(modes[0]["currentModeId"], "default");
  std::vector<Json> options = UpdatesBetween(messages, "config_option_update", 2, 3);
  ASSERT_EQ(options.size(), 1u) << Json(messages).dump();
  for (const Json& option : options[0]["configOptions"]) {
    if (option["id"] == "agent") EXPECT_EQ(option["currentValue"], "asker");
    if (option["id"] == "mode") EXPECT_EQ(option["currentValue"], "default");
  }
  modes = UpdatesBetween(messages, "current_mode_update", 3, 4);
  ASSERT_EQ(modes.size(), 1u) << Json(messages).dump();
  EXPECT_EQ(modes[0]["currentModeId"], "allow_all");
  options = UpdatesBetween(messages, "config_option_update", 3, 4);
  ASSERT_EQ(options.size(), 1u) << Json(messages).dump();
  for (const Json& option : options[0]["configOptions"]) {
    if (option["id"] == "agent") EXPECT_EQ(option["currentValue"], "coder");
    if (option["id"] == "mode") EXPECT_EQ(option["currentValue"], "allow_all");
  }
  EXPECT_TRUE(fake_.requests().empty());
}

}  // namespace
}  // namespace raw::e2e
