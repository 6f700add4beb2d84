// raw-acp's exit when its client has stopped reading stdout: the bridge
// lets go of its turns and leases, and then does not wait for good on the
// output nobody reads. Spawns raw-acp itself (no driver), so that the test
// decides exactly when stdout stops being read.
#include <signal.h>
#include <sys/wait.h>

#include "tests/e2e/acp/acp_fixture.h"
#include "tests/e2e/acp/piped_bridge.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;

// A long streamed answer: far more than a pipe holds.
testing::ScriptedResponse LongAnswer() {
  std::vector<std::string> events = {chat::RoleChunk()};
  for (int i = 0; i < 40; ++i)
    events.push_back(chat::TextChunk(std::string(16 * 1024, 'a' + i % 26)));
  events.push_back(chat::FinishChunk("stop"));
  events.push_back(chat::UsageChunk(10, 10, 0));
  events.push_back(chat::Done());
  return chat::Stream(std::move(events));
}

// The client stops reading stdout while a long answer streams and then
// sends SIGTERM: raw-acp lets go of the session and exits 0, instead of
// waiting for good in a write nobody takes.
TEST_F(AcpTest, StopSignalWithAnUnreadStdoutStillExits) {
  std::map<std::string, std::string> env = daemon_->env();
  PipedBridge bridge(env);
  ASSERT_TRUE(bridge.started());
  const std::string id = bridge.OpenSession(daemon_->workdir());
  ASSERT_FALSE(id.empty());

  fake_.Enqueue(LongAnswer());
  EventStream events(stub(), id);
  // From here on stdout is never read again.
  bridge.Send({{"jsonrpc", "2.0"},
               {"id", 3},
               {"method", "session/prompt"},
               {"params", {{"sessionId", id}, {"prompt", {{{"type", "text"}, {"text", "go"}}}}}}});
  ASSERT_TRUE(events.WaitFor([](const raw::v1::Event& e) { return e.has_turn_ended(); }));
  bridge.Signal(SIGTERM);
  EXPECT_TRUE(bridge.WaitForExit(absl::Seconds(10))) << "raw-acp still runs 10 s after SIGTERM";
  if (bridge.WaitForExit(absl::ZeroDuration())) {
    EXPECT_TRUE(WIFEXITED(bridge.status()) && WEXITSTATUS(bridge.status()) == 0)
        << "status " << bridge.status();
  }
}

}  // namespace
}  // namespace raw::e2e
