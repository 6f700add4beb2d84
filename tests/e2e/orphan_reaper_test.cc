// rawd is a child subreaper: what a bash call leaves running in the
// background is re-parented to it, and it must reap those processes when
// they exit, or every such job leaves a zombie behind for the daemon's
// lifetime.
#include <chrono>
#include <fstream>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using Clock = std::chrono::steady_clock;

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', ...), or nullopt
// once the process is gone (reaped).
std::optional<char> ProcessState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return std::nullopt;
  return stat[close + 2];
}

// Polls `done` every few milliseconds until it holds or `deadline` passes.
bool PollUntil(const std::function<bool()>& done, Clock::time_point deadline) {
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST_F(ContractTest, ABackgroundJobLeftByBashIsReapedWhenItExits) {
  StartDaemon(R"("approval_mode": "allow_all")");
  std::string session = daemon_->CreateSession();
  // The shell exits at once; `sleep` outlives it, is re-parented to rawd and
  // exits a moment later.
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"b1", "bash", R"({"command":"sleep 0.3 >/dev/null 2>&1 & echo $!"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "start a job");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  std::vector<std::string> lines = absl::StrSplit(results[0].content(), '\n');
  pid_t job = 0;
  ASSERT_TRUE(absl::SimpleAtoi(lines[0], &job)) << results[0].content();

  // Wait for the job to end: it is then a zombie (until reaped) or gone.
  Clock::time_point ended;
  ASSERT_TRUE(PollUntil(
      [&] {
        std::optional<char> state = ProcessState(job);
        if (state.has_value() && *state != 'Z') return false;
        ended = Clock::now();
        return true;
      },
      Clock::now() + std::chrono::seconds(30)))
      << "the background job never ended";
  // The bound the daemon promises: no zombie 1 s after the job exits.
  EXPECT_TRUE(PollUntil([&] { return !ProcessState(job).has_value(); },
                        ended + std::chrono::seconds(1)))
      << "process " << job << " is still a zombie of rawd (pid " << daemon_->pid() << ")";
  ASSERT_EQ(daemon_->Stop(), 0);
}

}  // namespace
}  // namespace raw::e2e
