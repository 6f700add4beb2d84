// The crash harness: a real rawd runs scripted turns (tool calls, approvals,
// compaction) against a fake provider and is killed with SIGKILL again and
// again: after a random delay, or at a failpoint (common/failpoint.h) before
// or after a store commit, mid-stream, just after a tool's process started,
// mid-compaction, while an approval waits. After each kill it checks:
//   - the database passes PRAGMA integrity_check;
//   - every event a client saw as committed is still there, unchanged;
//   - restarted, the session completes a turn on each of the four APIs, and
//     each request body is valid (every tool call answered once, in place);
//   - every tool call in the history has a result;
//   - every compaction that started in the history has ended;
//   - no process the killed daemon started is left running.
//
// RAW_CRASH_KILLS (default 50) sets the number of kills, RAW_CRASH_SEED the
// random seed (printed, so that a failing run can be replayed). Built only
// with -DRAW_FAILPOINTS=ON (scripts/sanitize.sh); scripts/crash.sh runs a
// long series.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "tests/crash/crash_client.h"
#include "tests/crash/crash_model.h"
#include "tests/crash/request_checks.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/support/test_daemon.h"

namespace raw::crash {
namespace {

// The failpoints and how many hits of each a kill may wait for.
struct Failpoint {
  const char* name;
  int max_hit;
};
constexpr Failpoint kFailpoints[] = {
    {"store.commit.before", 14}, {"store.commit.after", 14}, {"stream.text_delta", 30},
    {"process.spawned", 3},      {"compaction.summarized", 1}, {"approval.waiting", 2},
};

int EnvInt(const char* name, int fallback) {
  int value = 0;
  const char* text = std::getenv(name);
  return text != nullptr && absl::SimpleAtoi(text, &value) ? value : fallback;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// PRAGMA integrity_check of the database at `path`: "ok" or its findings.
std::string IntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    std::string error = db ? sqlite3_errmsg(db) : "cannot open";
    sqlite3_close(db);
    return error;
  }
  std::string result;
  auto collect = [](void* out, int columns, char** values, char**) {
    for (int i = 0; i < columns; ++i) {
      absl::StrAppend(static_cast<std::string*>(out), values[i] ? values[i] : "NULL", "\n");
    }
    return 0;
  };
  char* error = nullptr;
  if (sqlite3_exec(db, "PRAGMA integrity_check", collect, &result, &error) != SQLITE_OK) {
    result = absl::StrCat("integrity_check failed: ", error ? error : "");
    sqlite3_free(error);
  }
  sqlite3_close(db);
  return result == "ok\n" ? "ok" : result;
}

// Every stored event of the session, by seq.
std::map<uint64_t, raw::v1::Event> History(raw::v1::Raw::Stub& stub, const std::string& session) {
  std::map<uint64_t, raw::v1::Event> out;
  std::string cursor;
  do {
    grpc::ClientContext ctx;
    raw::v1::GetHistoryRequest request;
    request.set_session_id(session);
    request.set_cursor(cursor);
    request.set_limit(500);
    raw::v1::GetHistoryResponse response;
    grpc::Status status = stub.GetHistory(&ctx, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    if (!status.ok()) break;
    for (const auto& e : response.events()) out[e.seq()] = e;
    cursor = response.next_cursor();
  } while (!cursor.empty());
  return out;
}

// The processes whose environment carries `mark` (what rawd and everything
// it starts inherit), except `except`.
std::vector<pid_t> MarkedProcesses(const std::string& mark, pid_t except) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid) || pid == except) continue;
    const std::string environ = ReadAll(absl::StrCat("/proc/", pid, "/environ"));
    if (environ.find(mark) != std::string::npos) out.push_back(pid);
  }
  return out;
}

// Waits (on a pidfd, not by polling) up to `timeout` for `pid` to end;
// true when it did or is already gone.
bool WaitGone(pid_t pid, std::chrono::milliseconds timeout) {
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return true;  // ESRCH: gone
  pollfd p{fd, POLLIN, 0};
  const int ready = poll(&p, 1, static_cast<int>(timeout.count()));
  close(fd);
  return ready == 1;
}

struct Figures {
  int kills = 0, random_kills = 0, failpoint_kills = 0, failpoint_unreached = 0;
  int killed_in_startup = 0;
  std::map<std::string, int> by_failpoint;
  size_t events_checked = 0;
  int bodies_checked = 0;
  int groups_ended = 0;
  int64_t max_restart_ms = 0;
};

class CrashHarness : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    fake_.SetResponder(Respond);
    daemon_ = std::make_unique<e2e::TestDaemon>(HarnessConfig(fake_.base_url()));
    mark_ = absl::StrCat("RAW_CRASH_MARK=", daemon_->root());
    daemon_->SetEnv("RAW_CRASH_MARK", daemon_->root());
    ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
    session_ = daemon_->CreateSession();
    ASSERT_FALSE(session_.empty());
    ASSERT_EQ(daemon_->Stop(SIGTERM), 0);
  }

  // One daemon life: start (maybe armed), run operations until the kill.
  void LiveAndDie() {
    const bool by_failpoint = rng_() % 4 != 0;
    std::string spec;
    if (by_failpoint) {
      const Failpoint& f = kFailpoints[rng_() % std::size(kFailpoints)];
      const int hit = 1 + static_cast<int>(rng_() % static_cast<unsigned>(f.max_hit));
      spec = absl::StrCat(f.name, "@", hit);
    }
    daemon_->SetEnv("RAW_FAILPOINT", spec);
    ++figures_.kills;
    if (!daemon_->Start().ok()) {  // the failpoint fired while it started
      ASSERT_TRUE(by_failpoint) << daemon_->ReadStderr();
      ++figures_.killed_in_startup;
      ++figures_.failpoint_kills;
      ++figures_.by_failpoint[spec.substr(0, spec.find('@'))];
      return;
    }
    const pid_t pid = daemon_->pid();
    std::atomic<bool> died{false};
    {
      CrashClient client(daemon_->stub(), session_, last_seq_);
      std::thread driver([&] { RunOperations(client); });
      if (by_failpoint) {
        driver.join();
        siginfo_t info{};
        died = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
               info.si_pid == pid;
      } else {
        // What is random here is the instant of the kill; nothing is awaited.
        std::this_thread::sleep_for(std::chrono::milliseconds(rng_() % 2500));
        kill(pid, SIGKILL);
        died = true;
        driver.join();
      }
      for (const raw::v1::Event& e : client.CommittedSeen()) seen_[e.seq()] = e;
    }
    daemon_->Stop(SIGKILL);
    if (!by_failpoint) {
      ++figures_.random_kills;
    } else if (died) {
      ++figures_.failpoint_kills;
      ++figures_.by_failpoint[spec.substr(0, spec.find('@'))];
    } else {
      ++figures_.failpoint_unreached;
    }
  }

  void RunOperations(CrashClient& client) {
    if (!client.ready()) return;
    const int count = 2 + static_cast<int>(rng_() % 3);
    for (int i = 0; i < count; ++i) {
      bool alive = false;
      switch (rng_() % 5) {
        case 0:
          alive = client.Compact();
          break;
        case 1:
          alive = client.ToolTurn(++op_, 0, false);  // a streamed answer only
          break;
        default:
          alive = client.ToolTurn(++op_, 1 + static_cast<int>(rng_() % 2), rng_() % 3 == 0);
      }
      if (!alive) return;
    }
  }

  // Everything checked after a kill, the daemon stopped.
  void CheckAfterKill() {
    const std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
    ASSERT_EQ(IntegrityCheck(db), "ok");

    daemon_->SetEnv("RAW_FAILPOINT", "");
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
    figures_.max_restart_ms = std::max<int64_t>(
        figures_.max_restart_ms, std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::steady_clock::now() - start)
                                     .count());
    // Nothing the dead daemon started runs on.
    for (pid_t pid : MarkedProcesses(mark_, daemon_->pid())) {
      EXPECT_TRUE(WaitGone(pid, std::chrono::milliseconds(200)))
          << "process " << pid << " (" << ReadAll(absl::StrCat("/proc/", pid, "/cmdline"))
          << ") outlived the daemon that started it";
    }

    // Every event a client saw committed is stored, unchanged.
    std::map<uint64_t, raw::v1::Event> history = History(daemon_->stub(), session_);
    for (const auto& [seq, seen] : seen_) {
      auto it = history.find(seq);
      ASSERT_TRUE(it != history.end()) << "committed event " << seq << " is gone";
      EXPECT_EQ(it->second.SerializeAsString(), seen.SerializeAsString())
          << "event " << seq << " changed:\n"
          << seen.DebugString() << "now:\n"
          << it->second.DebugString();
    }
    figures_.events_checked += seen_.size();

    // The session completes a turn on every API, from a valid request.
    {
      CrashClient client(daemon_->stub(), session_, history.empty() ? 0 : history.rbegin()->first);
      ASSERT_TRUE(client.ready());
      for (Api api : kAllApis) {
        ASSERT_TRUE(client.SetModel(absl::StrCat("fake-", ApiName(api))));
        const size_t before = fake_.requests().size();
        std::optional<raw::v1::Event> end = client.CheckTurn("check");
        ASSERT_TRUE(end.has_value()) << ApiName(api) << ": the check turn did not end";
        EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
            << ApiName(api) << ": " << end->turn_ended().message();
        const std::vector<testing::RecordedRequest> requests = fake_.requests();
        ASSERT_GT(requests.size(), before);
        absl::StatusOr<Json> body = requests.back().BodyJson();
        ASSERT_TRUE(body.ok());
        EXPECT_EQ(CheckRequestBody(api, *body), "") << ApiName(api) << " request: " << body->dump();
        ++figures_.bodies_checked;
      }
      ASSERT_TRUE(client.SetModel(""));
      for (const raw::v1::Event& e : client.CommittedSeen()) seen_[e.seq()] = e;
    }

    // Every tool call in the history has its result.
    history = History(daemon_->stub(), session_);
    std::set<std::string> calls, results;
    for (const auto& [seq, e] : history) {
      if (e.has_tool_call_batch()) {
        for (const auto& call : e.tool_call_batch().calls()) calls.insert(call.call_id());
      }
      if (e.has_tool_result()) results.insert(e.tool_result().call_id());
    }
    std::vector<std::string> unanswered;
    for (const std::string& id : calls) {
      if (results.count(id) == 0) unanswered.push_back(id);
    }
    EXPECT_TRUE(unanswered.empty()) << "calls without a result: " << absl::StrJoin(unanswered, ", ");

    // Every compaction that started has ended (a client would show it
    // running otherwise).
    std::vector<std::string> open;
    for (const auto& [seq, e] : history) {
      if (e.has_compaction_started()) open.push_back(absl::StrCat(e.turn_id(), " at ", seq));
      if (e.has_compaction_ended() && !open.empty() &&
          open.back().rfind(e.turn_id() + " at ", 0) == 0) {
        open.pop_back();
      }
    }
    EXPECT_TRUE(open.empty()) << "compactions without an end: " << absl::StrJoin(open, ", ");
    last_seq_ = history.empty() ? 0 : history.rbegin()->first;
    ASSERT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->ReadStderr();
  }

  testing::FakeProviderServer fake_;
  std::unique_ptr<e2e::TestDaemon> daemon_;
  std::string session_, mark_;
  std::mt19937 rng_;
  uint64_t last_seq_ = 0;
  int op_ = 0;
  std::map<uint64_t, raw::v1::Event> seen_;
  Figures figures_;
};

TEST_F(CrashHarness, NothingCommittedIsLostWhereverTheDaemonIsKilled) {
  const int kills = EnvInt("RAW_CRASH_KILLS", 50);
  const unsigned seed = static_cast<unsigned>(EnvInt("RAW_CRASH_SEED", std::random_device()()));
  rng_.seed(seed);
  std::printf("[crash harness] seed %u (RAW_CRASH_SEED=%u replays this run)\n", seed, seed);
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kills && !HasFatalFailure(); ++i) {
    SCOPED_TRACE(absl::StrCat("kill ", i + 1, " of ", kills, ", seed ", seed));
    LiveAndDie();
    if (HasFatalFailure()) break;
    CheckAfterKill();
    if (HasFailure()) break;  // the first broken kill is the one to read
    // A long run reports as it goes, so that one cut short still says how
    // far it got.
    if ((i + 1) % 50 == 0 && i + 1 < kills) {
      std::printf("[crash harness] %d kills of %d checked after %lld s\n", i + 1, kills,
                  static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(
                                             std::chrono::steady_clock::now() - start)
                                             .count()));
      std::fflush(stdout);
    }
  }
  const std::string log = daemon_->ReadLog();
  for (size_t at = log.find("ended "); at != std::string::npos; at = log.find("ended ", at + 1)) {
    int n = 0;
    const size_t space = log.find(' ', at + 6);
    if (space != std::string::npos && absl::SimpleAtoi(log.substr(at + 6, space - at - 6), &n)) {
      figures_.groups_ended += n;
    }
  }
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  std::vector<std::string> points;
  for (const auto& [name, n] : figures_.by_failpoint) points.push_back(absl::StrCat(name, " ", n));
  std::printf(
      "[crash harness] %d kills in %lld s: %d at failpoints (%s; %d of them during start-up), "
      "%d after random delays, %d armed runs ended before their failpoint; %zu committed events "
      "re-checked, %d request bodies checked, %d leftover process groups ended, slowest restart "
      "%lld ms\n",
      figures_.kills, static_cast<long long>(seconds), figures_.failpoint_kills,
      absl::StrJoin(points, ", ").c_str(), figures_.killed_in_startup, figures_.random_kills,
      figures_.failpoint_unreached, figures_.events_checked, figures_.bodies_checked,
      figures_.groups_ended, static_cast<long long>(figures_.max_restart_ms));
}

}  // namespace
}  // namespace raw::crash
