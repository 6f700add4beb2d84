// Memory stays bounded under hostile input, through a real rawd: a provider
// that streams far more than models.<name>.max_response_bytes, one that
// never finishes its stream (models.<name>.max_stream_seconds), and an MCP
// server that floods long progress messages
// (mcp_servers.<name>.max_progress_bytes, sessions.max_live_bytes). Each
// ends in a clear state, and the daemon's peak resident size (VmHWM) stays
// under the bound docs/config.md states.
#include <sys/types.h>

#include <fstream>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

// The peak resident set of the daemon, from /proc/<pid>/status, in MiB.
std::optional<int64_t> PeakRssMib(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "VmHWM:")) continue;
    rest = absl::StripAsciiWhitespace(rest);
    absl::ConsumeSuffix(&rest, " kB");
    int64_t kib = 0;
    if (absl::SimpleAtoi(rest, &kib)) return kib / 1024;
  }
  return std::nullopt;
}

// The bound docs/config.md states for the daemon under these attacks.
constexpr int64_t kPeakRssBoundMib = 160;

class HostileLimitsTest : public ContractTest {};

TEST_F(HostileLimitsTest, AResponseFarBeyondTheByteCapFailsTheStepAndMemoryStaysBounded) {
  StartDaemon("", "", R"(["builtin/read_file"])",
              R"("max_response_bytes": 1048576, "max_retries": 2)");
  // 256 MiB of text in 64 KiB deltas, then a normal end the daemon must
  // never reach.
  testing::ScriptedResponse flood =
      chat::Stream({chat::RoleChunk(), chat::TextChunk(std::string(64 * 1024, 'a')),
                    chat::FinishChunk("stop"), chat::Done()});
  flood.repeat_chunk = 1;
  flood.repeat_times = 4096;
  fake_.Enqueue(flood);
  std::string session = daemon_->CreateSession();
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "say a lot");
  auto end = stream.WaitForTurnEnd(turn, std::chrono::seconds(120));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("exceeded 1048576 bytes"));
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("models.fake.max_response_bytes"));
  // Not retried: another attempt would only stream as much again.
  EXPECT_EQ(fake_.requests().size(), 1u);
  std::optional<int64_t> peak = PeakRssMib(daemon_->pid());
  ASSERT_TRUE(peak.has_value());
#ifndef RAW_SANITIZED  // the sanitizers' allocator keeps freed memory in quarantine
  EXPECT_LT(*peak, kPeakRssBoundMib);
#endif

  // The session goes on.
  fake_.Enqueue(chat::TextAnswer("short"));
  std::string next = StartTurn(stub(), session, "again, briefly");
  auto next_end = stream.WaitForTurnEnd(next);
  ASSERT_TRUE(next_end.has_value());
  EXPECT_EQ(next_end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
}

TEST_F(HostileLimitsTest, AStreamThatNeverEndsIsCutAtItsTimeLimit) {
  StartDaemon("", "", R"(["builtin/read_file"])", R"("max_stream_seconds": 1)");
  // Text arrives, then the server holds the stream open (parked at its
  // gate) without a byte more: the idle timeout (300 s) would wait, the
  // stream's own limit does not.
  testing::ScriptedResponse stuck = chat::Stream(
      {chat::RoleChunk(), chat::TextChunk("Thinking"), chat::FinishChunk("stop"), chat::Done()});
  stuck.gate_before_chunk = 2;
  fake_.Enqueue(stuck);
  std::string session = daemon_->CreateSession();
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  auto end = stream.WaitForTurnEnd(turn, std::chrono::seconds(60));
  fake_.ReleaseGate();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("models.fake.max_stream_seconds"));
  EXPECT_EQ(fake_.requests().size(), 1u);
}

TEST_F(HostileLimitsTest, AnMcpServerFloodingLongProgressIsCutAndMemoryStaysBounded) {
  std::string server = absl::StrCat(R"("mcp_servers": {"fake": {"command": ["python3", ")",
                                    RAW_SOURCE_DIR, R"(/tests/daemon/mcp/fake_mcp_server.py"],)",
                                    R"( "startup_timeout_seconds": 20, "max_progress_bytes": 256}})");
  StartDaemon(R"("approval_mode": "allow_all")", server, R"(["mcp/fake/progress"])");
  // 1,500 progress messages of 100 kB each: 150 MB through the daemon.
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "mcp__fake__progress", R"({"steps": 1500, "message_bytes": 100000})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  std::string session = daemon_->CreateSession();
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "report progress");
  auto end = stream.WaitForTurnEnd(turn, std::chrono::seconds(120));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  int progress = 0;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (!e.has_tool_progress()) continue;
    ++progress;
    EXPECT_LE(e.tool_progress().message().size(), 256u);
    EXPECT_THAT(e.tool_progress().message(), ::testing::StartsWith("step "));
    EXPECT_THAT(e.tool_progress().message(), ::testing::EndsWith("..."));
  }
  EXPECT_GT(progress, 0);
  std::optional<int64_t> peak = PeakRssMib(daemon_->pid());
  ASSERT_TRUE(peak.has_value());
#ifndef RAW_SANITIZED  // the sanitizers' allocator keeps freed memory in quarantine
  EXPECT_LT(*peak, kPeakRssBoundMib);
#endif
}

}  // namespace
}  // namespace raw::e2e
