// Many clients on one daemon: while one session's turn waits on slow work
// (a secret variable whose command has not answered, an MCP server that has
// not started), calls from other clients about other things are answered.
// The slow parts block on FIFOs the test controls, so the test proves the
// order of events rather than timing them: every read completes while the
// slow work is still blocked.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = raw::testing::chat;

class ConcurrencyTest : public ContractTest {
 protected:
  // A FIFO in the scratch dir; a command reading it blocks until Release().
  std::string Fifo(const std::string& name) {
    std::string path = scratch_ + "/" + name;
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
    return path;
  }
  // Unblocks the reader of `fifo` (opening for writing waits for it).
  static void Release(const std::string& fifo) { std::ofstream(fifo) << "x\n"; }
  // A FIFO the test reads: a script writes a line to it when it starts.
  // Opened before the script can run, so the script's write never blocks.
  int StartedSignal(const std::string& name, std::string* path) {
    *path = Fifo(name);
    return open(path->c_str(), O_RDONLY | O_NONBLOCK);
  }
  // Waits for the line (the timeout only bounds a failing test).
  static bool WaitForSignal(int fd) {
    struct pollfd pfd = {fd, POLLIN, 0};
    return poll(&pfd, 1, 60'000) == 1 && (pfd.revents & POLLIN) != 0;
  }

  // A command variable SLOW and an MCP server "slow" that each signal when
  // they start and then block until released.
  struct SlowWork {
    std::string var_fifo, mcp_fifo;
    int var_signal = -1, mcp_signal = -1;
    // "variables" and "mcp_servers" members for the config.
    std::string config;
  };
  SlowWork MakeSlowWork() {
    SlowWork w;
    w.var_fifo = Fifo("variable");
    std::string var_started;
    w.var_signal = StartedSignal("variable-started", &var_started);
    w.mcp_fifo = Fifo("mcp");
    std::string mcp_started;
    w.mcp_signal = StartedSignal("mcp-started", &mcp_started);
    std::string variable = Script("slow-variable", absl::StrCat("echo up > ", var_started,
                                                                "\ncat ", w.var_fifo,
                                                                " >/dev/null\necho v"));
    std::string server = Script("slow-server", absl::StrCat("echo up > ", mcp_started, "\ncat ",
                                                            w.mcp_fifo, " >/dev/null\nexit 1"));
    w.config = absl::StrCat(
        R"("variables": {"SLOW": {"command": [")", variable, R"("], "timeout_seconds": 120}},
           "mcp_servers": {"slow": {"command": [")", server,
        R"("], "startup_timeout_seconds": 120}},)");
    return w;
  }
  static void CloseSignals(const SlowWork& w) {
    close(w.var_signal);
    close(w.mcp_signal);
  }

  // Models "slow" (needs SLOW for a header) and "plain"; `agents` is the
  // "agents" object.
  std::string SlowConfig(const SlowWork& w, const std::string& default_agent,
                         const std::string& agents) const {
    return absl::StrCat(R"({"default_agent": ")", default_agent, R"(", )", w.config, R"(
    "models": {
      "slow": {"provider": "openai", "method": "openai-chat-completions", "model_id": "gpt-test",
               "base_url": ")", fake_.base_url(), R"(", "api_key_env": "RAW_TEST_KEY",
               "headers": {"X-Slow": "${SLOW}"}},
      "plain": {"provider": "openai", "method": "openai-chat-completions", "model_id": "gpt-test",
                "base_url": ")", fake_.base_url(), R"(", "api_key_env": "RAW_TEST_KEY"}
    },
    "agents": )", agents, "}");
  }

  // Starts a turn on its own connection; the future holds the call's status.
  std::future<grpc::Status> StartTurnAsync(const std::string& session, const std::string& lease,
                                           std::unique_ptr<raw::v1::Raw::Stub>& stub) {
    stub = raw::v1::Raw::NewStub(MakeChannel(daemon_->socket_path()));
    return std::async(std::launch::async, [&stub, session, lease] {
      grpc::ClientContext ctx;
      raw::v1::StartTurnRequest req;
      req.set_session_id(session);
      req.set_text("go");
      req.set_lease_id(lease);
      raw::v1::StartTurnResponse resp;
      return stub->StartTurn(&ctx, req, &resp);
    });
  }

  static bool Interrupt(raw::v1::Raw::Stub& stub, const std::string& session,
                        const std::string& lease) {
    grpc::ClientContext ctx;
    raw::v1::InterruptTurnRequest req;
    req.set_session_id(session);
    req.set_lease_id(lease);
    raw::v1::InterruptTurnResponse resp;
    grpc::Status s = stub.InterruptTurn(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.interrupted();
  }
};

TEST_F(ConcurrencyTest, ReadsFromOtherClientsAreAnsweredWhileOneSessionWaitsOnSlowWork) {
  const SlowWork slow = MakeSlowWork();
  // Agent "coder" needs the slow variable (a header of its model) and the
  // slow MCP server; agent "plain" needs neither.
  config_ = SlowConfig(slow, "coder", R"({
      "coder": {"model": "slow", "tools": {"use": ["builtin/read_file", "mcp/slow/*"]}},
      "plain": {"model": "plain", "tools": {"use": ["builtin/read_file"]}}})");
  daemon_ = std::make_unique<TestDaemon>(config_);
  ASSERT_TRUE(daemon_->Start().ok());
  const std::string slow_session = daemon_->CreateSession();
  const std::string other_session = daemon_->CreateSession("plain");
  fake_.Enqueue(chat::TextAnswer("done"));

  // The slow session's StartTurn is in flight on its own channel.
  const std::string lease = LeaseFor(stub(), slow_session);
  std::unique_ptr<raw::v1::Raw::Stub> slow_stub;
  auto started = StartTurnAsync(slow_session, lease, slow_stub);
  ASSERT_TRUE(WaitForSignal(slow.var_signal)) << "the variable's command never ran";

  // 50 concurrent reads from other clients, each on its own connection,
  // the slow session's own record and history among them.
  auto reads = [&](int i) {
    auto stub = raw::v1::Raw::NewStub(MakeChannel(daemon_->socket_path()));
    auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(20);
    auto begin = std::chrono::steady_clock::now();
    grpc::Status s;
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline);
    if (i % 5 == 4) {
      // Its context estimate too: reading it never resolves a variable or
      // starts a server.
      raw::v1::GetSessionRequest req;
      req.set_session_id(slow_session);
      raw::v1::GetSessionResponse r;
      s = stub->GetSession(&ctx, req, &r);
    } else if (i % 3 == 0) {
      raw::v1::GetDaemonInfoResponse r;
      s = stub->GetDaemonInfo(&ctx, {}, &r);
    } else if (i % 3 == 1) {
      raw::v1::ListSessionsResponse r;
      s = stub->ListSessions(&ctx, {}, &r);
    } else {
      raw::v1::GetHistoryRequest req;
      req.set_session_id(i % 2 == 0 ? other_session : slow_session);
      raw::v1::GetHistoryResponse r;
      s = stub->GetHistory(&ctx, req, &r);
    }
    EXPECT_TRUE(s.ok()) << s.error_message();
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now() - begin)
        .count();
  };
  std::vector<std::future<int64_t>> calls;
  for (int i = 0; i < 50; ++i) calls.push_back(std::async(std::launch::async, reads, i));
  int64_t slowest = 0;
  for (auto& c : calls) slowest = std::max<int64_t>(slowest, c.get());
  // All answered while the variable's command is still blocked.
  EXPECT_EQ(started.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  std::printf("50 reads during a blocked turn preparation: slowest %lld ms\n",
              static_cast<long long>(slowest));

  // The other session can even start its own turn meanwhile.
  fake_.Enqueue(chat::TextAnswer("other"));
  EventStream other(stub(), other_session);
  std::string other_turn = StartTurn(stub(), other_session, "hi");
  EXPECT_TRUE(other.WaitForTurnEnd(other_turn).has_value());

  // Now the turn starts; its MCP server blocks the turn, not the API.
  Release(slow.var_fifo);
  ASSERT_EQ(started.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  ASSERT_TRUE(started.get().ok());
  ASSERT_TRUE(WaitForSignal(slow.mcp_signal)) << "the MCP server never started";
  for (int i = 0; i < 50; ++i) calls[i] = std::async(std::launch::async, reads, i);
  for (auto& c : calls) c.get();
  Release(slow.mcp_fifo);
  CloseSignals(slow);
}

// An interrupt ends an operation that waits on slow preparation at once:
// the StartTurn call is answered CANCELLED while the variable's command is
// still blocked, and a turn waiting for an MCP server to start ends
// CANCELLED while the server is still starting.
TEST_F(ConcurrencyTest, AnInterruptEndsATurnWhileItsSlowPreparationIsStillBlocked) {
  const SlowWork slow = MakeSlowWork();
  config_ = SlowConfig(slow, "slowvar", R"({
      "slowvar": {"model": "slow", "tools": {"use": ["builtin/read_file"]}},
      "slowmcp": {"model": "plain", "tools": {"use": ["builtin/read_file", "mcp/slow/*"]}}})");
  daemon_ = std::make_unique<TestDaemon>(config_);
  ASSERT_TRUE(daemon_->Start().ok());

  // The variable: StartTurn waits on the plan; the interrupt answers it.
  const std::string var_session = daemon_->CreateSession("slowvar");
  const std::string lease = LeaseFor(stub(), var_session);
  std::unique_ptr<raw::v1::Raw::Stub> var_stub;
  auto started = StartTurnAsync(var_session, lease, var_stub);
  ASSERT_TRUE(WaitForSignal(slow.var_signal)) << "the variable's command never ran";
  EXPECT_TRUE(Interrupt(stub(), var_session, lease));
  ASSERT_EQ(started.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  grpc::Status status = started.get();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("interrupted before it started"));

  // The MCP server: the turn has started and waits for the server.
  const std::string mcp_session = daemon_->CreateSession("slowmcp");
  EventStream stream(stub(), mcp_session);
  std::string turn = StartTurn(stub(), mcp_session, "go");
  ASSERT_TRUE(WaitForSignal(slow.mcp_signal)) << "the MCP server never started";
  EXPECT_TRUE(Interrupt(stub(), mcp_session, LeaseFor(stub(), mcp_session)));
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  EXPECT_TRUE(fake_.requests().empty());

  // Both slow steps were still blocked all along; let them go.
  Release(slow.var_fifo);
  Release(slow.mcp_fifo);
  CloseSignals(slow);
}

}  // namespace
}  // namespace raw::e2e
