#include "clients/cli/turn_runner.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <sstream>
#include <thread>

#include "clients/cli/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"

namespace raw::cli {
namespace {

using ::raw::testing::FakeDaemon;
using ::raw::testing::MakeEvent;
using ::raw::testing::TempDir;

v1::Event Delta(const std::string& turn, const std::string& text) {
  v1::Event e = MakeEvent(turn);
  e.mutable_text_delta()->set_text(text);
  return e;
}

v1::Event Ended(const std::string& turn, v1::TurnEndReason reason, const std::string& message = "",
                int steps = 1) {
  v1::Event e = MakeEvent(turn);
  e.mutable_turn_ended()->set_reason(reason);
  e.mutable_turn_ended()->set_message(message);
  e.mutable_turn_ended()->set_steps(steps);
  return e;
}

class TurnRunnerTest : public ::testing::Test {
 protected:
  TurnRunnerTest() : daemon_(dir_.File("rawd.sock")) {}


  client::RawClient Client() {
    client::ConnectOptions options;
    options.socket_path = daemon_.socket_path();
    options.autostart = client::Autostart::kNever;
    options.env = [](const std::string&) { return std::nullopt; };
    auto client = client::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return *std::move(client);
  }

  // Makes every turn stream `text` in two deltas and end with `reason`.
  void ScriptTurn(v1::TurnEndReason reason, const std::string& message = "") {
    daemon_.service().OnStartTurn([reason, message](const std::string& turn) {
      v1::Event started = MakeEvent(turn);
      started.mutable_turn_started()->set_user_text("prompt");
      v1::Event committed = MakeEvent(turn);
      committed.mutable_assistant_message()->set_text("Hello world");
      return std::vector<v1::Event>{started, Delta(turn, "Hello "), Delta(turn, "world"),
                                    committed, Ended(turn, reason, message, 4)};
    });
  }

  int Run(const TurnRequest& request, OutputFormat format = OutputFormat::kText) {
    auto client = Client();
    EventPrinter printer(format, out_, err_);
    TurnRunner runner(client, printer, *approvals_, err_);
    return runner.Run(request);
  }

  static TurnRequest NewSession(const std::string& prompt) {
    TurnRequest request;
    request.agent = "coder";
    request.cwd = "/project";
    request.prompt = prompt;
    return request;
  }

  TempDir dir_;
  FakeDaemon daemon_;
  std::ostringstream out_, err_;
  // No terminal here: approval requests (none in these scripts) are denied.
  std::unique_ptr<ApprovalPrompter> approvals_ =
      MakeApprovalPrompter(/*yes=*/false, /*input_fd=*/-1, err_);
};

TEST_F(TurnRunnerTest, CompletedTurnStreamsTheAnswerAndExitsZero) {
  ScriptTurn(v1::TURN_END_REASON_COMPLETED);
  EXPECT_EQ(Run(NewSession("say hello")), kExitOk);
  EXPECT_EQ(out_.str(), "Hello world\n");
  EXPECT_EQ(err_.str(), "session sess_new (agent coder)\n");
  EXPECT_EQ(daemon_.service().last_create().agent(), "coder");
  EXPECT_EQ(daemon_.service().last_create().cwd(), "/project");
  // The stream was open before the turn started: the live-only deltas
  // arrived (the committed message alone would not reprint them).
  EXPECT_TRUE(daemon_.service().subscriber_attached_at_start());
}

TEST_F(TurnRunnerTest, HoldsTheWriteLeaseForTheRunAndEveryWriteCarriesIt) {
  ScriptTurn(v1::TURN_END_REASON_COMPLETED);
  TurnRequest request = NewSession("say hello");
  request.client_name = "raw run (pid 42)";
  request.client_pid = 42;
  {
    auto client = Client();
    EventPrinter printer(OutputFormat::kText, out_, err_);
    TurnRunner runner(client, printer, *approvals_, err_);
    EXPECT_EQ(runner.Run(request), kExitOk);
    auto calls = daemon_.service().calls();
    EXPECT_NE(std::find(calls.begin(), calls.end(), "AcquireLease:raw run"), calls.end());
    EXPECT_EQ(daemon_.service().write_leases(), (std::vector<std::string>{"StartTurn=lease_1"}));
  }
  // The runner is gone: so is its lease.
  daemon_.service().WaitForLeaseFree("sess_new");
}

TEST_F(TurnRunnerTest, ASessionHeldByAnotherWriterFailsAtOnceNamingIt) {
  v1::Session existing;
  existing.set_id("sess_held");
  existing.set_agent("coder");
  daemon_.service().AddSession(existing);
  daemon_.service().HoldLease("sess_held", "raw (pid 7)", "raw", 7);
  TurnRequest request;
  request.session_id = "sess_held";
  request.prompt = "hello";
  EXPECT_EQ(Run(request), kExitHeld);
  EXPECT_NE(err_.str().find("raw run: session sess_held is open for writing in \"raw (pid 7)\" "
                            "(raw, pid 7, since"),
            std::string::npos)
      << err_.str();
  auto calls = daemon_.service().calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "Subscribe"), 0);
  EXPECT_TRUE(daemon_.service().write_leases().empty());
}

TEST_F(TurnRunnerTest, ContinuingASessionSubscribesFromItsLastSeq) {
  v1::Session existing;
  existing.set_id("sess_old");
  existing.set_agent("writer");
  daemon_.service().AddSession(existing);
  // Two earlier events of another turn, already stored.
  daemon_.service().Append(Ended("turn_0", v1::TURN_END_REASON_COMPLETED));
  daemon_.service().Append(Ended("turn_0", v1::TURN_END_REASON_ERROR));
  ScriptTurn(v1::TURN_END_REASON_COMPLETED);
  TurnRequest request;
  request.session_id = "sess_old";
  request.prompt = "continue";
  EXPECT_EQ(Run(request), kExitOk);
  EXPECT_EQ(daemon_.service().subscribe_after_seqs(), (std::vector<uint64_t>{2}));
  EXPECT_EQ(err_.str(), "session sess_old (agent writer)\n");
}

TEST_F(TurnRunnerTest, ExitCodesFollowTheTurnEnd) {
  struct Case {
    v1::TurnEndReason reason;
    int code;
    std::string message;
  };
  for (const Case& c : {Case{v1::TURN_END_REASON_MAX_STEPS, kExitMaxSteps,
                             "raw run: turn stopped at the agent's max_steps (4 steps)\n"},
                        Case{v1::TURN_END_REASON_ERROR, kExitError,
                             "raw run: turn failed (4 steps): HTTP 401\n"},
                        Case{v1::TURN_END_REASON_CANCELLED, kExitCancelled,
                             "raw run: turn cancelled (4 steps)\n"}}) {
    TempDir dir;
    FakeDaemon daemon(dir.File("rawd.sock"));
    daemon.service().OnStartTurn([&c](const std::string& turn) {
      std::string message = c.reason == v1::TURN_END_REASON_ERROR ? "HTTP 401" : "";
      return std::vector<v1::Event>{Ended(turn, c.reason, message, 4)};
    });
    client::ConnectOptions options;
    options.socket_path = daemon.socket_path();
    options.autostart = client::Autostart::kNever;
    options.env = [](const std::string&) { return std::nullopt; };
    auto client = client::Connect(options);
    ASSERT_TRUE(client.ok());
    std::ostringstream out, err;
    EventPrinter printer(OutputFormat::kText, out, err);
    TurnRunner runner(*client, printer, *approvals_, err);
    EXPECT_EQ(runner.Run(NewSession("p")), c.code) << c.reason;
    EXPECT_NE(err.str().find(c.message), std::string::npos) << err.str();
  }
}

TEST_F(TurnRunnerTest, RefusedRequestsExitWithTwo) {
  TurnRequest request = NewSession("p");
  request.agent = "missing";
  EXPECT_EQ(Run(request), kExitUsage);
  EXPECT_NE(err_.str().find("unknown agent \"missing\""), std::string::npos) << err_.str();

  TurnRequest unknown;
  unknown.session_id = "nope";
  unknown.prompt = "p";
  err_.str("");
  EXPECT_EQ(Run(unknown), kExitUsage);
  EXPECT_NE(err_.str().find("no session with id \"nope\""), std::string::npos) << err_.str();
}

TEST_F(TurnRunnerTest, BusySessionIsReported) {
  daemon_.service().FailStartTurn(
      grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "a turn is already running"));
  EXPECT_EQ(Run(NewSession("p")), kExitUsage);
  EXPECT_NE(err_.str().find("cannot start the turn: a turn is already running"),
            std::string::npos)
      << err_.str();
}

TEST_F(TurnRunnerTest, StreamEndingBeforeTheTurnEndsIsAnError) {
  daemon_.service().OnStartTurn([](const std::string& turn) {
    return std::vector<v1::Event>{Delta(turn, "partial")};
  });
  daemon_.service().CloseAfterStartTurn();
  EXPECT_EQ(Run(NewSession("p")), kExitError);
  EXPECT_NE(err_.str().find("before the turn ended"), std::string::npos) << err_.str();
}

TEST_F(TurnRunnerTest, JsonModePrintsOnlyEventsOnStdout) {
  ScriptTurn(v1::TURN_END_REASON_COMPLETED);
  EXPECT_EQ(Run(NewSession("p"), OutputFormat::kJson), kExitOk);
  EXPECT_EQ(err_.str(), "");
  std::string out = out_.str();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 5);
  EXPECT_NE(out.find(R"("text_delta":{"text":"Hello "})"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("reason":"TURN_END_REASON_COMPLETED")"), std::string::npos) << out;
}

// Interrupts as soon as the first text arrives, like a user pressing Ctrl-C
// while the answer streams.
class InterruptingRunner : public TurnRunner {
 public:
  using TurnRunner::TurnRunner;
  Next OnEvent(const v1::Event& event) override {
    Next next = TurnRunner::OnEvent(event);
    if (event.has_text_delta()) Interrupt();
    return next;
  }
};

TEST_F(TurnRunnerTest, InterruptKeepsStreamingUntilTheTurnEnds) {
  daemon_.service().OnStartTurn([](const std::string& turn) {
    return std::vector<v1::Event>{Delta(turn, "Work")};
  });
  daemon_.service().OnInterrupt([](const std::string& turn) {
    return std::vector<v1::Event>{Delta(turn, "ing"),
                                  Ended(turn, v1::TURN_END_REASON_CANCELLED, "interrupted")};
  });
  auto client = Client();
  EventPrinter printer(OutputFormat::kText, out_, err_);
  InterruptingRunner runner(client, printer, *approvals_, err_);
  EXPECT_EQ(runner.Run(NewSession("p")), kExitCancelled);
  EXPECT_EQ(out_.str(), "Working\n");
  EXPECT_NE(err_.str().find("raw run: turn cancelled (1 step): interrupted"), std::string::npos)
      << err_.str();
  auto calls = daemon_.service().calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "InterruptTurn"), 1);
}

// A turn rawd is still preparing (a slow MCP server, a secret read by a
// command) is interrupted at once: the interrupt names the turn's id, which
// the runner chose, while StartTurn waits.
TEST_F(TurnRunnerTest, InterruptWhilePreparingAbandonsTheTurnAtOnce) {
  daemon_.service().HoldStartTurns(/*abandon_on_interrupt=*/true);
  auto client = Client();
  EventPrinter printer(OutputFormat::kText, out_, err_);
  TurnRunner runner(client, printer, *approvals_, err_);
  std::thread interrupter([&] {
    daemon_.service().WaitForCall("StartTurn:p");
    runner.Interrupt();
  });
  EXPECT_EQ(runner.Run(NewSession("p")), kExitCancelled);
  interrupter.join();
  EXPECT_NE(err_.str().find("raw run: interrupted before the turn started"), std::string::npos)
      << err_.str();
  ASSERT_EQ(daemon_.service().start_turn_ids().size(), 1u);
  EXPECT_EQ(daemon_.service().start_turn_ids()[0].rfind("turn_", 0), 0u);
  EXPECT_EQ(daemon_.service().interrupt_operation_ids(), daemon_.service().start_turn_ids());
}

// An interrupt that reaches rawd before the StartTurn it names is
// remembered there, and the start is refused: the run ends cancelled.
TEST_F(TurnRunnerTest, AnInterruptAheadOfItsStartRefusesTheTurn) {
  daemon_.service().HoldStartTurns(/*abandon_on_interrupt=*/false);
  daemon_.service().RememberEarlyInterrupts();
  auto client = Client();
  EventPrinter printer(OutputFormat::kText, out_, err_);
  TurnRunner runner(client, printer, *approvals_, err_);
  std::thread interrupter([&] {
    daemon_.service().WaitForCall("StartTurn:p");
    runner.Interrupt();
    daemon_.service().WaitForCall("InterruptTurn");
    daemon_.service().ReleaseStartTurns();
  });
  EXPECT_EQ(runner.Run(NewSession("p")), kExitCancelled);
  interrupter.join();
  EXPECT_NE(err_.str().find("raw run: interrupted before the turn started"), std::string::npos)
      << err_.str();
  EXPECT_EQ(daemon_.service().interrupt_operation_ids(), daemon_.service().start_turn_ids());
}

TEST_F(TurnRunnerTest, InterruptBeforeTheTurnStartsNeverStartsIt) {
  auto client = Client();
  EventPrinter printer(OutputFormat::kText, out_, err_);
  TurnRunner runner(client, printer, *approvals_, err_);
  runner.Interrupt();
  EXPECT_EQ(runner.Run(NewSession("p")), kExitCancelled);
  auto calls = daemon_.service().calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "StartTurn:p"), 0);
}

TEST_F(TurnRunnerTest, ResyncResubscribesFromTheLastDeliveredEvent) {
  daemon_.service().OnStartTurn([](const std::string& turn) {
    v1::Event resync;
    resync.mutable_resync()->set_last_delivered_seq(1);
    v1::Event committed = MakeEvent(turn);
    committed.mutable_assistant_message()->set_text("All of it");
    return std::vector<v1::Event>{Delta(turn, "All"), resync, committed,
                                  Ended(turn, v1::TURN_END_REASON_COMPLETED)};
  });
  EXPECT_EQ(Run(NewSession("p")), kExitOk);
  // seq 1 was the delta; the second subscription starts after it, and the
  // turn is not started twice.
  EXPECT_EQ(daemon_.service().subscribe_after_seqs(), (std::vector<uint64_t>{0, 1}));
  auto calls = daemon_.service().calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "StartTurn:p"), 1);
  EXPECT_EQ(out_.str(), "All\nAll of it\n");
}

// A terminal nobody types into: Decide returns only when the question is
// withdrawn.
class UnansweredPrompter : public ApprovalPrompter {
 public:
  ApprovalChoice Decide(const v1::ApprovalRequested&, const CancelToken& cancel) override {
    pollfd fd = {cancel.fd(), POLLIN, 0};
    while (poll(&fd, 1, -1) < 0 && errno == EINTR) {
    }
    withdrawn_reason = cancel.reason();
    return ApprovalChoice{};
  }
  std::string withdrawn_reason;
};

TEST_F(TurnRunnerTest, AnApprovalThatTimesOutIsNoLongerAskedAndTheRunEnds) {
  daemon_.service().OnStartTurn([](const std::string& turn) {
    v1::Event requested = MakeEvent(turn);
    requested.mutable_approval_requested()->set_request_id("req_1");
    v1::ApprovalCall* call = requested.mutable_approval_requested()->add_calls();
    call->set_call_id("c1");
    call->set_tool("builtin/bash");
    call->set_state(v1::APPROVAL_STATE_PENDING);
    v1::Event resolved = MakeEvent(turn);
    resolved.mutable_approval_resolved()->set_request_id("req_1");
    resolved.mutable_approval_resolved()->set_resolution(v1::APPROVAL_RESOLUTION_TIMED_OUT);
    return std::vector<v1::Event>{requested, resolved, Delta(turn, "Carried on."),
                                  Ended(turn, v1::TURN_END_REASON_COMPLETED)};
  });
  auto prompter = std::make_unique<UnansweredPrompter>();
  UnansweredPrompter* unanswered = prompter.get();
  approvals_ = std::move(prompter);
  EXPECT_EQ(Run(NewSession("run it")), kExitOk);
  EXPECT_EQ(unanswered->withdrawn_reason, "resolved");
  EXPECT_NE(err_.str().find("[approval] timed out"), std::string::npos) << err_.str();
  EXPECT_EQ(out_.str(), "Carried on.\n");
  auto calls = daemon_.service().calls();
  EXPECT_EQ(
      std::count_if(calls.begin(), calls.end(),
                    [](const std::string& c) { return c.rfind("RespondToApproval", 0) == 0; }),
      0);
}

}  // namespace
}  // namespace raw::cli
