// The machine's limits, reached by a real rawd: the state directory's disk
// full (RLIMIT_FSIZE, set on the running daemon), the database file
// read-only, no descriptors left (RLIMIT_NOFILE), no processes left when a
// tool starts (a pids cgroup). Each is reported clearly, loses nothing that
// was committed, and the daemon keeps serving.
#include <fcntl.h>
#include <poll.h>
#include <sqlite3.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
namespace chat = testing::chat;

// Sets the soft limit `resource` of process `pid` (the hard one stays, so
// the test can lift it again).
void SetSoftLimit(pid_t pid, int resource, rlim_t value) {
  rlimit old{};
  ASSERT_EQ(prlimit(pid, static_cast<__rlimit_resource>(resource), nullptr, &old), 0);
  rlimit next{value, old.rlim_max};
  ASSERT_EQ(prlimit(pid, static_cast<__rlimit_resource>(resource), &next, nullptr), 0);
}

// The index of the chunk that finishes a Chat Completions answer: the
// daemon acts on the answer from there on, so a gate before it holds the
// calls back.
size_t FinishChunkOf(const testing::ScriptedResponse& answer) {
  for (size_t i = 0; i < answer.chunks.size(); ++i) {
    if (answer.chunks[i].find("\"finish_reason\":\"") != std::string::npos) return i;
  }
  ADD_FAILURE() << "no finish chunk";
  return 0;
}

// The payload of the first event of `kind` whose payload contains
// `containing`, stored for `session` in the database at `db`, read beside the
// running daemon; waits up to 30 s for it,
// waking when the -wal file (which every commit writes) changes.
std::optional<std::string> WaitForStoredEvent(const std::string& db, const std::string& session,
                                              const std::string& kind,
                                              const std::string& containing) {
  const int watch = inotify_init1(IN_CLOEXEC);
  if (watch < 0 || inotify_add_watch(watch, (db + "-wal").c_str(), IN_MODIFY) < 0) {
    ADD_FAILURE() << "cannot watch " << db << "-wal";
    if (watch >= 0) close(watch);
    return std::nullopt;
  }
  std::optional<std::string> found;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!found && std::chrono::steady_clock::now() < deadline) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_stmt* select = nullptr;
      sqlite3_prepare_v2(handle,
                         "SELECT payload FROM events WHERE session_id = ? AND kind = ? "
                         "AND instr(payload, ?) > 0 ORDER BY seq LIMIT 1",
                         -1, &select, nullptr);
      sqlite3_bind_text(select, 1, session.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(select, 2, kind.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(select, 3, containing.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(select) == SQLITE_ROW) {
        found = reinterpret_cast<const char*>(sqlite3_column_text(select, 0));
      }
      sqlite3_finalize(select);
    }
    sqlite3_close(handle);
    if (found) break;
    pollfd p{watch, POLLIN, 0};
    if (poll(&p, 1, 1000) == 1) {
      char events[4096];
      (void)!read(watch, events, sizeof events);
    }
  }
  close(watch);
  return found;
}

class ResourceFaultTest : public E2eTest {
 protected:
  // A completed turn in a new session; returns the session.
  std::string SessionWithOneTurn(const std::string& text) {
    std::string session = daemon_->CreateSession();
    fake_.Enqueue(chat::TextAnswer(text));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "hello");
    auto end = stream.WaitForTurnEnd(turn);
    EXPECT_TRUE(end.has_value());
    return session;
  }

  off_t LargestStateFile() {
    off_t largest = 0;
    for (const auto& e : std::filesystem::directory_iterator(daemon_->state_dir())) {
      if (e.is_regular_file()) largest = std::max<off_t>(largest, e.file_size());
    }
    return largest;
  }
};

TEST_F(ResourceFaultTest, DiskFullEndsTheTurnClearlyAndLosesNothing) {
  const std::string kept = SessionWithOneTurn("kept answer");
  const std::string other = daemon_->CreateSession();
  const int before = History(stub(), kept).events_size();

  // No file of the daemon may grow past its present size, as on a full disk.
  SetSoftLimit(daemon_->pid(), RLIMIT_FSIZE, static_cast<rlim_t>(LargestStateFile()));
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"head -c 300000 /dev/zero | tr '\\0' x"})"}}));
  fake_.Enqueue(chat::TextAnswer("never stored"));
  EventStream stream(stub(), kept);
  std::string turn = StartTurn(stub(), kept, "fill the disk");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value()) << "no end for the turn whose commit failed";
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  // The operating system's reason, the file and what it means.
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("sessions-v1.sqlite3: File too large"));
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("file size limit"));

  // The daemon still answers reads, and writes again once there is room.
  EXPECT_EQ(History(stub(), kept).events_size() >= before, true);
  SetSoftLimit(daemon_->pid(), RLIMIT_FSIZE, RLIM_INFINITY);
  fake_.Enqueue(chat::TextAnswer("room again"));
  EventStream other_stream(stub(), other);
  std::string next = StartTurn(stub(), other, "still there?");
  auto next_end = other_stream.WaitForTurnEnd(next);
  ASSERT_TRUE(next_end.has_value());
  EXPECT_EQ(next_end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);

  // Nothing committed before was lost, also after a restart.
  ASSERT_EQ(daemon_->Stop(SIGTERM), 0);
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  auto history = History(stub(), kept);
  ASSERT_GE(history.events_size(), before);
  bool found = false;
  for (const auto& e : history.events()) {
    found = found || (e.has_assistant_message() && e.assistant_message().text() == "kept answer");
  }
  EXPECT_TRUE(found);
}

TEST_F(ResourceFaultTest, AReadOnlyDatabaseIsRefusedAtStartWithItsNameAndReason) {
  const std::string kept = SessionWithOneTurn("kept answer");
  ASSERT_EQ(daemon_->Stop(SIGTERM), 0);
  const std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
  ASSERT_EQ(chmod(db.c_str(), 0400), 0);
  // Root may write any file; without these capabilities rawd cannot.
  if (geteuid() == 0) {
    daemon_->SetLauncher({"/usr/bin/setpriv", "--bounding-set",
                          "-dac_override,-dac_read_search,-fowner", "--"});
  }
  absl::Status started = daemon_->Start();
  ASSERT_FALSE(started.ok()) << "rawd started on a database it cannot write";
  EXPECT_THAT(std::string(started.message()), HasSubstr("sessions-v1.sqlite3"));
  EXPECT_THAT(std::string(started.message()), HasSubstr("read-only"));

  // Writable again: everything is there.
  ASSERT_EQ(chmod(db.c_str(), 0600), 0);
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  bool found = false;
  const raw::v1::GetHistoryResponse history = History(stub(), kept);
  for (const auto& e : history.events()) {
    found = found || (e.has_assistant_message() && e.assistant_message().text() == "kept answer");
  }
  EXPECT_TRUE(found);
}

TEST_F(ResourceFaultTest, OutOfDescriptorsFailsTheCallClearlyAndTheDaemonRecovers) {
  const std::string other = SessionWithOneTurn("first");
  const std::string session = daemon_->CreateSession();
  // Calls of a batch run in order: the first waits on a FIFO while the
  // descriptors run out, then the second has none left to start with.
  const std::string fifo = daemon_->workdir() + "/gate";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"cat gate"})"},
                                       {"c2", "bash", R"({"command":"echo hi"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  std::string turn = StartTurn(stub(), session, "run it");
  const int gate = open(fifo.c_str(), O_WRONLY);  // returns once `cat` opened it
  ASSERT_GE(gate, 0);
  // A new descriptor must get a number below the limit: with the limit at 3
  // none is left, while the descriptors already open keep working.
  SetSoftLimit(daemon_->pid(), RLIMIT_NOFILE, 3);
  ASSERT_EQ(write(gate, "go\n", 3), 3);
  close(gate);
  // Read from the database, not the event stream: gRPC may drop the
  // connection when it cannot open a descriptor.
  std::optional<std::string> result =
      WaitForStoredEvent(daemon_->state_dir() + "/sessions-v1.sqlite3", session, "tool_result",
                         "c2");
  ASSERT_TRUE(result.has_value()) << "no result for the call that could not start\n"
                                  << daemon_->ReadStderr() << daemon_->ReadLog();
  EXPECT_THAT(*result, HasSubstr("\"status\":\"error\""));
  EXPECT_THAT(*result, HasSubstr("Too many open files"));

  // Descriptors again: the turn goes on, and the daemon serves the others.
  SetSoftLimit(daemon_->pid(), RLIMIT_NOFILE, 4096);
  EventStream after(stub(), session);
  auto end = after.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();
  fake_.Enqueue(chat::TextAnswer("back"));
  EventStream other_stream(stub(), other);
  std::string next = StartTurn(stub(), other, "still there?");
  auto next_end = other_stream.WaitForTurnEnd(next);
  ASSERT_TRUE(next_end.has_value());
  EXPECT_EQ(next_end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << next_end->turn_ended().message();
}

// A pids cgroup of its own for a process, removed again on destruction;
// path() is "" when this machine lets the test make none (no pids
// controller, or no permission).
class PidsCgroup {
 public:
  explicit PidsCgroup(pid_t pid) {
    for (const char* root : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}) {
      const std::string dir = absl::StrCat(root, "/raw-test-", getpid());
      if (mkdir(dir.c_str(), 0755) != 0) continue;
      if (!std::filesystem::exists(dir + "/pids.max") ||
          !(std::ofstream(dir + "/cgroup.procs") << pid).good()) {
        rmdir(dir.c_str());
        continue;
      }
      root_ = root;
      path_ = dir;
      pid_ = pid;
      return;
    }
  }
  ~PidsCgroup() {
    if (path_.empty()) return;
    std::ofstream(root_ + "/cgroup.procs") << pid_;
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  // No new task (process or thread); those that run go on. (A limit at
  // the present count would leave room whenever a thread ends.)
  void Freeze() const { std::ofstream(path_ + "/pids.max") << 0; }
  void Lift() const { std::ofstream(path_ + "/pids.max") << "max"; }

 private:
  std::string root_, path_;
  pid_t pid_ = -1;
};

TEST_F(ResourceFaultTest, NoProcessLeftFailsTheCallClearlyAndTheDaemonRecovers) {
  const std::string session = daemon_->CreateSession();
  PidsCgroup cgroup(daemon_->pid());
  if (cgroup.path().empty()) {
    GTEST_SKIP() << "this machine lets the test make no pids cgroup (needs a writable "
                    "/sys/fs/cgroup/pids or a cgroup v2 tree with the pids controller)";
  }
  testing::ScriptedResponse calls =
      chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo hi"})"}});
  calls.gate_before_chunk = FinishChunkOf(calls);
  fake_.Enqueue(calls);
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "run it");
  ASSERT_TRUE(fake_.WaitForGate());
  cgroup.Freeze();
  fake_.ReleaseGate();
  auto result = stream.WaitFor([](const raw::v1::Event& e) { return e.has_tool_result(); });
  ASSERT_TRUE(result.has_value()) << "no result for the call that could not start\n"
                                  << "stream: " << stream.status().error_message() << "\n"
                                  << daemon_->ReadStderr() << daemon_->ReadLog();
  EXPECT_EQ(result->tool_result().status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(result->tool_result().content(), HasSubstr("Resource temporarily unavailable"));
  cgroup.Lift();
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();
}

}  // namespace
}  // namespace raw::e2e
