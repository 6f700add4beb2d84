// `raw run` and the session's write lease against a real rawd: one writer
// at a time, and a second `raw run` on a busy session fails at once.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
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

// A client that has exited holds the lease until rawd sees its connection
// close, a moment later (the previous `raw run` of a script): a new
// `raw run` waits for that release instead of failing. Here the holder names
// a process that has exited and keeps its stream open until the new run has
// asked for the lease.
TEST_F(E2eTest, ARawRunWaitsForTheLeaseOfAClientThatHasExited) {
  std::string session = daemon_->CreateSession();
  pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);

  grpc::ClientContext holder_ctx;
  holder_ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  raw::v1::AcquireLeaseRequest acquire;
  acquire.set_session_id(session);
  acquire.set_client_name(absl::StrCat("raw run (pid ", gone, ")"));
  acquire.set_client_kind("raw run");
  acquire.set_client_pid(gone);
  auto holder = stub().AcquireLease(&holder_ctx, acquire);
  raw::v1::LeaseEvent event;
  ASSERT_TRUE(holder->Read(&event) && event.has_granted());

  fake_.Enqueue(chat::TextAnswer("Waited."));
  CommandResult run;
  std::thread runner([&] { run = daemon_->RunRaw({"run", "--session", session, "go"}); });
  // The new run asks for the lease as a handover, and gets it once the
  // holder's stream ends.
  const bool asked = holder->Read(&event) && event.has_handover_requested();
  holder_ctx.TryCancel();
  (void)holder->Finish();
  runner.join();
  EXPECT_TRUE(asked);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Waited.\n");
}

}  // namespace
}  // namespace raw::e2e
