// The stop of rawd is bounded: SIGTERM ends the preparation work in flight (a
// model key's variable command, a compaction's wait for an MCP server to
// start) instead of waiting for it, and stops the MCP servers all at once
// (every server gets its EOF before any gets SIGTERM), so a daemon with
// servers that ignore both EOF and SIGTERM and preparations that would wait
// ten minutes exits cleanly, by itself, before its stop's deadline.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;

// Opens the FIFO at `path` for reading without waiting for a writer.
int OpenFifo(const std::string& path) {
  EXPECT_EQ(mkfifo(path.c_str(), 0600), 0) << path;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  return fd;
}

// Waits until something was written to the FIFO `fd` (the timeout only
// bounds a failing test); closes it.
bool AwaitWrite(int fd) {
  struct pollfd pfd = {fd, POLLIN, 0};
  const bool written = poll(&pfd, 1, 30000) == 1;
  close(fd);
  return written;
}

class ShutdownBoundTest : public ContractTest {
 protected:
  // The stubborn servers stop only on SIGKILL: stdin closed, 2 s, SIGTERM,
  // 2 s, SIGKILL; each appends "eof NAME" to `stop_log` when its stdin
  // closes and "term NAME" on SIGTERM. "late" takes ten minutes to start.
  // @NAME@ is substituted.
  std::string StopConfig(const std::string& key_command, const std::string& late_fifo,
                         const std::string& stop_log) const {
    return absl::StrReplaceAll(
        R"({
      "default_agent": "coder",
      "models": {
        "fake": { "provider": "openai", "method": "openai-chat-completions",
                  "model_id": "gpt-test", "base_url": "@BASE_URL@",
                  "api_key_env": "RAW_TEST_KEY" },
        "keyed": { "provider": "openai", "method": "openai-chat-completions",
                   "model_id": "gpt-test", "base_url": "@BASE_URL@", "api_key": "${SLOW_KEY}" }
      },
      "variables": { "SLOW_KEY": { "command": ["@KEY_COMMAND@"], "timeout_seconds": 600 } },
      "mcp_servers": {
        "stubborn1": { "command": ["python3", "@FAKE@", "--ignore-eof",
                                   "--stop-log", "@STOP_LOG@", "stubborn1"] },
        "stubborn2": { "command": ["python3", "@FAKE@", "--ignore-eof",
                                   "--stop-log", "@STOP_LOG@", "stubborn2"] },
        "stubborn3": { "command": ["python3", "@FAKE@", "--ignore-eof",
                                   "--stop-log", "@STOP_LOG@", "stubborn3"] },
        "late": { "command": ["python3", "@FAKE@", "--start-log", "@LATE_FIFO@",
                              "--slow-start", "600000"],
                  "startup_timeout_seconds": 600 }
      },
      "agents": {
        "coder": { "model": "fake", "system_prompt": "test", "approval_mode": "allow_all",
                   "tools": { "use": ["mcp/stubborn1/echo", "mcp/stubborn2/echo",
                                      "mcp/stubborn3/echo"] } },
        "compactor": { "model": "fake", "system_prompt": "test",
                       "tools": { "use": ["mcp/late/echo"] } },
        "keyed": { "model": "keyed", "system_prompt": "test", "tools": { "use": [] } }
      }
    })",
        {{"@BASE_URL@", fake_.base_url()},
         {"@KEY_COMMAND@", key_command},
         {"@LATE_FIFO@", late_fifo},
         {"@STOP_LOG@", stop_log},
         {"@FAKE@", absl::StrCat(RAW_SOURCE_DIR, "/tests/daemon/mcp/fake_mcp_server.py")}});
  }
};

TEST_F(ShutdownBoundTest, SigtermEndsPreparationsAndStopsMcpServersAllAtOnce) {
  const std::string key_fifo = scratch_ + "/key_started";
  const std::string late_fifo = scratch_ + "/late_started";
  const std::string stop_log = scratch_ + "/stops";
  // The model key's command: says it runs, then takes ten minutes.
  const std::string key_command =
      Script("slow_key.sh", absl::StrCat("echo started > ", key_fifo, "\nsleep 600\necho key"));
  const int key_started = OpenFifo(key_fifo);
  const int late_started = OpenFifo(late_fifo);
  daemon_ = std::make_unique<TestDaemon>(StopConfig(key_command, late_fifo, stop_log));
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();

  // Three ready servers that stop only when killed.
  const std::string a = daemon_->CreateSession("coder");
  {
    fake_.Enqueue(chat::TextAnswer("done"));
    EventStream stream(stub(), a);
    const std::string turn = StartTurn(stub(), a, "go");
    ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  }
  // A turn whose preparation waits for the model key's command.
  const std::string b = daemon_->CreateSession("keyed");
  grpc::Status turn_status;
  std::thread turn([&] { StartTurn(stub(), b, "go", &turn_status); });
  // A compaction whose plan waits for an MCP server that takes ten minutes
  // to start.
  const std::string c = daemon_->CreateSession("compactor");
  const std::string lease = LeaseFor(stub(), c);
  grpc::Status compact_status;
  std::thread compaction([&] {
    raw::v1::CompactRequest req;
    req.set_session_id(c);
    req.set_lease_id(lease);
    raw::v1::CompactResponse resp;
    grpc::ClientContext ctx;
    compact_status = stub().Compact(&ctx, req, &resp);
  });
  EXPECT_TRUE(AwaitWrite(key_started)) << "the key's command did not start";
  EXPECT_TRUE(AwaitWrite(late_started)) << "the late server did not start";

  const pid_t pid = daemon_->pid();
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  ASSERT_GE(pidfd, 0);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  struct pollfd exited = {pidfd, POLLIN, 0};
  // Generous: only a failing stop comes near it.
  const bool stopped = poll(&exited, 1, 60000) == 1;
  close(pidfd);
  if (!stopped) kill(pid, SIGKILL);
  // The calls end with the daemon; then it is reaped.
  turn.join();
  compaction.join();
  const int exit_code = daemon_->Stop(0);
  ASSERT_TRUE(stopped) << "rawd did not stop within 60 s";
  EXPECT_EQ(exit_code, 0) << "the stop did not finish by itself:\n" << daemon_->ReadLog();
  // All at once: every server got its EOF before any got SIGTERM (one after
  // another, the second's EOF would come after the first's SIGTERM).
  const std::string log = ReadFile(stop_log);
  const std::vector<std::string> events = absl::StrSplit(log, '\n', absl::SkipEmpty());
  std::vector<std::string> eofs, terms;
  for (const std::string& event : events) {
    (absl::StartsWith(event, "eof ") ? eofs : terms).push_back(event);
  }
  EXPECT_THAT(eofs,
              ::testing::UnorderedElementsAre("eof stubborn1", "eof stubborn2", "eof stubborn3"));
  EXPECT_THAT(
      terms, ::testing::UnorderedElementsAre("term stubborn1", "term stubborn2", "term stubborn3"));
  std::vector<std::string> all_eofs_first = eofs;
  all_eofs_first.insert(all_eofs_first.end(), terms.begin(), terms.end());
  EXPECT_EQ(events, all_eofs_first) << log;
  EXPECT_FALSE(turn_status.ok());
  EXPECT_FALSE(compact_status.ok());
}

}  // namespace
}  // namespace raw::e2e
