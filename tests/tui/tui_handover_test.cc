// Two terminal clients on one session: the second follows read-only, asks
// for the session (Ctrl-T) and takes it when the first quits; the first
// hands it over by the handover rule (after its turn, once idle, after a
// countdown a key can stop).
// Short waits are set through RAW_TUI_HANDOVER_*_MS so that the tests run
// fast; every wait is for something on a screen.
#include <signal.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "tests/e2e/lease_holder.h"
#include "tests/support/test_leases.h"
#include "tests/tui/tui_e2e_fixture.h"

namespace raw::tui::testing {
namespace {

namespace chat = raw::testing::chat;

std::map<std::string, std::string> Handover(const std::string& idle_ms,
                                            const std::string& countdown_ms) {
  return {{"RAW_TUI_HANDOVER_IDLE_MS", idle_ms}, {"RAW_TUI_HANDOVER_COUNTDOWN_MS", countdown_ms}};
}

class TuiHandoverTest : public TuiE2eTest {
 protected:
  // "a" holds `session`, "b" follows it read-only.
  void OpenTwo(const std::string& session, const std::string& countdown_ms) {
    StartRaw("a", {"resume", session}, 100, 30, "· idle", Handover("0", countdown_ms));
    StartRaw("b", {"resume", session}, 100, 30, "read-only");
    // The status line, not only the first capture with "read-only": tmux may
    // show a frame it has only partly read.
    std::string b = tmux_.WaitFor("b", [](const std::string& s) {
      return s.find("Read-only: raw (pid") != std::string::npos;
    });
    EXPECT_NE(b.find("Read-only: raw (pid"), std::string::npos) << b;
  }
};

TEST_F(TuiHandoverTest, AnIdleWriterHandsTheSessionOverAfterACountdown) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  OpenTwo(session, "1000");
  // Typing in the follower does not send; the message is kept.
  Send("b", "from the second client");
  ASSERT_TRUE(tmux_.WaitForText("b", "Ctrl-T asks for this session")) << tmux_.Capture("b");
  tmux_.SendKeys("b", {"C-t"});
  ASSERT_TRUE(tmux_.WaitForText("b", "to hand this session over")) << tmux_.Capture("b");
  // The writer shows the request and its countdown, then hands over.
  ASSERT_TRUE(tmux_.WaitForText("a", "asks for this session")) << tmux_.Capture("a");
  EXPECT_TRUE(tmux_.WaitForOutputText("a", "press any key to keep it")) << tmux_.Capture("a");
  ASSERT_TRUE(tmux_.WaitForText("a", "Handed this session over to raw (pid")) << tmux_.Capture("a");
  ASSERT_TRUE(tmux_.WaitForText("b", "You hold this session now")) << tmux_.Capture("b");
  EXPECT_NE(tmux_.Capture("a").find("read-only"), std::string::npos) << tmux_.Capture("a");
  // The new writer sends its kept message; the old one follows it live.
  fake_.Enqueue(chat::TextAnswer("Reply for the new writer."));
  tmux_.SendKeys("b", {"Enter"});
  EXPECT_TRUE(tmux_.WaitForText("a", "Reply for the new writer.")) << tmux_.Capture("a");
  EXPECT_TRUE(tmux_.WaitForText("b", "Reply for the new writer.")) << tmux_.Capture("b");
}

TEST_F(TuiHandoverTest, ARequestDuringATurnWaitsForTheTurnToEnd) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  OpenTwo(session, "200");
  raw::testing::ScriptedResponse parked =
      chat::Stream({chat::RoleChunk(), chat::TextChunk("Working on it"), chat::TextChunk(" to the end"),
                    chat::FinishChunk("stop"), chat::Done()});
  parked.gate_before_chunk = 2;
  fake_.Enqueue(parked);
  Send("a", "long task");
  ASSERT_TRUE(tmux_.WaitForText("b", "Working on it")) << tmux_.Capture("b");
  // Only the writer is offered the interrupt.
  EXPECT_TRUE(tmux_.WaitForText("b", "(read-only)")) << tmux_.Capture("b");
  EXPECT_EQ(tmux_.Capture("b").find("Esc to interrupt"), std::string::npos) << tmux_.Capture("b");
  EXPECT_TRUE(tmux_.WaitForText("a", "Esc to interrupt")) << tmux_.Capture("a");
  tmux_.SendKeys("b", {"C-t"});
  ASSERT_TRUE(tmux_.WaitForText("a", "handed over after this turn")) << tmux_.Capture("a");
  ASSERT_TRUE(tmux_.WaitForText("b", "to hand this session over")) << tmux_.Capture("b");
  // While the turn runs, the session stays with its writer.
  EXPECT_EQ(tmux_.Capture("b").find("You hold this session now"), std::string::npos);
  fake_.ReleaseGate();
  ASSERT_TRUE(tmux_.WaitForText("a", "Handed this session over")) << tmux_.Capture("a");
  std::string b = tmux_.WaitFor("b", [](const std::string& s) {
    return s.find("You hold this session now") != std::string::npos &&
           s.find("Working on it to the end") != std::string::npos;
  });
  size_t answer = b.find("Working on it to the end");
  size_t granted = b.find("You hold this session now");
  ASSERT_NE(answer, std::string::npos) << b;
  ASSERT_NE(granted, std::string::npos) << b;
  EXPECT_LT(answer, granted) << b;
}

TEST_F(TuiHandoverTest, AKeyDuringTheCountdownKeepsTheSession) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  OpenTwo(session, "600000");
  tmux_.SendKeys("b", {"C-t"});
  ASSERT_TRUE(tmux_.WaitForText("a", "press any key to keep it")) << tmux_.Capture("a");
  tmux_.SendKeys("a", {"Space"});
  ASSERT_TRUE(tmux_.WaitForText("a", "You keep this session")) << tmux_.Capture("a");
  ASSERT_TRUE(tmux_.WaitForText("b", "keeps this session")) << tmux_.Capture("b");
  // The writer still writes.
  fake_.Enqueue(chat::TextAnswer("Still mine."));
  Send("a", "go on");
  EXPECT_TRUE(tmux_.WaitForText("b", "Still mine.")) << tmux_.Capture("b");
  // The declined follower still takes the session once the writer leaves.
  Send("a", "/quit");
  EXPECT_EQ(tmux_.WaitForExit("a"), 0);
  ASSERT_TRUE(tmux_.WaitForText("b", "You hold this session now")) << tmux_.Capture("b");
}

// The client that asked quits during the countdown: the writer hears that
// nobody asks any more and keeps the session, rather than hand it at the
// countdown's end to the follower that only waits (or to nobody).
TEST_F(TuiHandoverTest, ARequestWithdrawnDuringTheCountdownLeavesTheSessionWithItsWriter) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  OpenTwo(session, "600000");
  {
    raw::e2e::LeaseHolder editor(daemon_->stub(), session, "raw-acp (pid 99)",
                                 raw::e2e::LeaseOptions{.request_handover = true});
    ASSERT_TRUE(editor.first().has_waiting()) << editor.first().DebugString();
    ASSERT_TRUE(tmux_.WaitForText("a", "press any key to keep it")) << tmux_.Capture("a");
  }
  ASSERT_TRUE(tmux_.WaitForText("a", "raw-acp (pid 99) no longer asks for this session"))
      << tmux_.Capture("a");
  // The countdown is off the status line.
  const std::string a = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("press any key to keep it") == std::string::npos;
  });
  EXPECT_EQ(a.find("press any key to keep it"), std::string::npos) << a;
  // The writer still writes, and the follower still follows.
  fake_.Enqueue(chat::TextAnswer("Still the writer's."));
  Send("a", "go on");
  EXPECT_TRUE(tmux_.WaitForText("b", "Still the writer's.")) << tmux_.Capture("b");
  EXPECT_TRUE(tmux_.WaitForText("b", "Read-only: raw (pid")) << tmux_.Capture("b");
}

// A follower takes the session when its writer quits, without asking or
// being reloaded, and its next message goes to the agent.
// The writer hands the session over to a third client: the follower names
// the new writer, in the transcript and on its status line.
TEST_F(TuiHandoverTest, AFollowerNamesTheNewWriterAfterAHandoverBetweenOthers) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  OpenTwo(session, "1000");
  raw::e2e::LeaseHolder editor(daemon_->stub(), session, "raw-acp (pid 99)",
                               raw::e2e::LeaseOptions{.request_handover = true});
  ASSERT_TRUE(editor.first().has_waiting()) << editor.first().DebugString();
  ASSERT_TRUE(tmux_.WaitForText("a", "Handed this session over to raw-acp (pid 99)"))
      << tmux_.Capture("a");
  raw::v1::LeaseEvent granted;
  ASSERT_TRUE(editor.Next(&granted));
  ASSERT_TRUE(granted.has_granted()) << granted.DebugString();
  std::string b = tmux_.WaitFor("b", [](const std::string& s) {
    return s.find("raw-acp (pid 99) writes to this session now") != std::string::npos &&
           s.find("Read-only: raw-acp (pid 99)") != std::string::npos;
  });
  EXPECT_NE(b.find("raw-acp (pid 99) writes to this session now"), std::string::npos) << b;
  EXPECT_NE(b.find("Read-only: raw-acp (pid 99)"), std::string::npos) << b;
}

TEST_F(TuiHandoverTest, AFollowerWritesOnceTheWriterQuits) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  OpenTwo(session, "600000");
  Send("a", "/quit");
  EXPECT_EQ(tmux_.WaitForExit("a"), 0);
  // The frame whose status line was drawn again (it said "Read-only: ..."),
  // not one tmux has only partly read.
  std::string b = tmux_.WaitFor("b", [](const std::string& s) {
    return s.find("You hold this session now") != std::string::npos &&
           s.find("Read-only: ") == std::string::npos;
  });
  ASSERT_NE(b.find("You hold this session now"), std::string::npos) << b;
  EXPECT_EQ(b.find("Waiting for"), std::string::npos) << b;
  fake_.Enqueue(chat::TextAnswer("Now yours."));
  Send("b", "hello");
  EXPECT_TRUE(tmux_.WaitForText("b", "Now yours.")) << tmux_.Capture("b");
}

// A session deleted by the client writing to it: the follower says it is
// gone and what to do, instead of waiting to open it again.
TEST_F(TuiHandoverTest, AFollowerSaysWhenTheSessionIsDeleted) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  const std::string lease = raw::e2e::LeaseFor(daemon_->stub(), session);
  StartRaw("b", {"resume", session}, 100, 30, "read-only");
  raw::v1::DeleteSessionRequest remove;
  remove.set_session_id(session);
  remove.set_lease_id(lease);
  raw::v1::DeleteSessionResponse removed;
  grpc::ClientContext ctx;
  ASSERT_TRUE(daemon_->stub().DeleteSession(&ctx, remove, &removed).ok());
  ASSERT_TRUE(tmux_.WaitForText("b", "This session no longer exists")) << tmux_.Capture("b");
  EXPECT_TRUE(tmux_.WaitForText("b", "deleted")) << tmux_.Capture("b");
  Send("b", "hello");
  EXPECT_TRUE(tmux_.WaitForText("b", "/new starts a session; the message is kept"))
      << tmux_.Capture("b");
}

// rawd killed under a writer and a follower: both reconnect, in no set
// order (one of them starts rawd again), and the writer gets its session
// back while the follower follows again, also when the follower is back
// first.
TEST_F(TuiHandoverTest, AfterTheDaemonRestartsTheWriterGetsItsSessionBack) {
  StartDaemon();
  const std::string session = daemon_->CreateSession();
  OpenTwo(session, "1000");
  const std::string writer = absl::StrCat("raw (pid ", tmux_.PanePid("a"), ")");
  daemon_->Stop(SIGKILL);

  auto stub = raw::v1::Raw::NewStub(raw::e2e::MakeChannel(daemon_->socket_path()));
  auto holder = [&]() {
    grpc::ClientContext ctx;
    raw::v1::GetSessionRequest request;
    request.set_session_id(session);
    request.set_without_context(true);
    raw::v1::GetSessionResponse response;
    return stub->GetSession(&ctx, request, &response).ok() ? response.session().writer() : "";
  };
  // Re-read at least every half second (TmuxHarness::WaitFor) until the
  // writer of before holds the session again.
  std::string a = tmux_.WaitFor("a", [&](const std::string& s) {
    return s.find("Reconnected to the daemon") != std::string::npos && holder() == writer;
  });
  ASSERT_EQ(holder(), writer) << a;
  std::string b = tmux_.WaitFor("b", [](const std::string& s) {
    return s.find("Reconnected to the daemon") != std::string::npos &&
           s.find("as before the daemon restarted") != std::string::npos &&
           s.find("Read-only: ") != std::string::npos;
  });
  EXPECT_NE(b.find("Following this session read-only, as before the daemon restarted"),
            std::string::npos)
      << b;
  EXPECT_NE(b.find("Read-only: "), std::string::npos) << b;
  EXPECT_EQ(b.find("You hold this session now"), std::string::npos) << b;

  // The writer goes on; the follower watches.
  fake_.Enqueue(chat::TextAnswer("Still yours."));
  Send("a", "after the restart");
  EXPECT_TRUE(tmux_.WaitForText("a", "Still yours.")) << tmux_.Capture("a");
  EXPECT_TRUE(tmux_.WaitForText("b", "Still yours.")) << tmux_.Capture("b");
  for (const char* name : {"b", "a"}) {
    tmux_.SendKeys(name, {"C-d"});
    EXPECT_EQ(tmux_.WaitForExit(name), 0) << tmux_.Capture(name);
  }
  StopAutostartedDaemon();
}

}  // namespace
}  // namespace raw::tui::testing
