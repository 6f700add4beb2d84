// `raw run` and the session's write lease against a real rawd: one writer
// at a time, and a second `raw run` on a busy session fails at once.
#include <thread>

#include "clients/cli/exit_codes.h"
#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

TEST_F(E2eTest, ASecondRawRunOnABusySessionFailsAtOnceNamingTheFirst) {
  std::string session = daemon_->CreateSession();
  // The first run's answer stops half-way until the test releases it.
  testing::ScriptedResponse parked = chat::Stream(
      {chat::RoleChunk(), chat::TextChunk("First "), chat::TextChunk("answer."),
       chat::FinishChunk("stop"), chat::Done()});
  parked.gate_before_chunk = 2;
  fake_.Enqueue(parked);
  CommandResult first;
  std::thread runner([&] { first = daemon_->RunRaw({"run", "--session", session, "one"}); });
  ASSERT_TRUE(fake_.WaitForGate());

  CommandResult second = daemon_->RunRaw({"run", "--session", session, "two"});
  EXPECT_EQ(second.exit_code, cli::kExitHeld) << second.err;
  EXPECT_EQ(second.out, "");
  EXPECT_THAT(second.err, HasSubstr("is open for writing in \"raw run (pid "));
  EXPECT_THAT(second.err, HasSubstr("(raw run, pid "));

  fake_.ReleaseGate();
  runner.join();
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "First answer.\n");
  // Only the first run's prompt reached the model.
  ASSERT_EQ(fake_.requests().size(), 1u);
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr("one"));
  EXPECT_THAT(fake_.requests()[0].body, ::testing::Not(HasSubstr("\"two\"")));

  // The first run released the lease when it exited: the session is free.
  fake_.Enqueue(chat::TextAnswer("Third."));
  CommandResult third = daemon_->RunRaw({"run", "--session", session, "three"});
  EXPECT_EQ(third.exit_code, 0) << third.err;
  EXPECT_EQ(third.out, "Third.\n");
}

}  // namespace
}  // namespace raw::e2e
