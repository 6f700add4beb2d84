// SessionBridge against a fake rawd: which events are a prompt's, and that
// they reach the client as they come, also before rawd answers the start
// (it answers once it has prepared and started the turn).
#include "clients/acp/session_bridge.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/clients/acp/client_end.h"
#include "tests/clients/fake_daemon.h"
#include "tests/clients/temp_dir.h"

namespace raw::acp {
namespace {

class SessionBridgeTest : public ::testing::Test {
 protected:
  using ClientEnd = ::raw::acp::testing::ClientEnd;

  // The connection's side: session/prompt goes to the bridge.
  class Agent : public JsonRpc::Handler {
   public:
    explicit Agent(std::unique_ptr<SessionBridge>& bridge) : bridge_(bridge) {}
    void OnRequest(const Json& id, const std::string& method, const Json& params) override {
      if (method == "session/prompt") bridge_->Prompt(id, params);
    }
    void OnNotification(const std::string&, const Json&) override {}

   private:
    std::unique_ptr<SessionBridge>& bridge_;
  };

  void SetUp() override {
    v1::Session session;
    session.set_id("s1");
    session.set_agent("coder");
    session.set_cwd("/work/project");
    daemon_.service().AddSession(session);
    loop_thread_ = std::thread([this] { loop_.Run(); });
  }

  void TearDown() override {
    daemon_.service().ReleaseStartTurns();
    OnLoop([this] {
      bridge_.reset();
      rpc_.reset();
      calls_.reset();
    });
    loop_.Quit();
    loop_thread_.join();
  }

  // Runs `task` on the loop's thread and waits for it.
  void OnLoop(const std::function<void()>& task) {
    absl::Notification done;
    loop_.Post([&] {
      task();
      done.Notify();
    });
    done.WaitForNotification();
  }

  // Opens session s1 (resumed) until the bridge holds its lease.
  void Open() {
    auto opened = std::make_shared<absl::Notification>();
    auto status = std::make_shared<absl::Status>();
    OnLoop([this, opened, status] {
      calls_ = std::make_unique<DaemonCalls>(Connect(), loop_);
      rpc_ = std::make_unique<JsonRpc>(client_, agent_);
      BridgeContext context;
      context.rpc = rpc_.get();
      context.calls = calls_.get();
      context.loop = &loop_;
      context.connect = Connect();
      context.identity = {"raw-acp for test (pid 1)", "acp", 1, true};
      bridge_ =
          std::make_unique<SessionBridge>(std::move(context), "s1", SessionBridge::Open::kResume,
                                          [opened, status](const absl::Status& s) {
                                            *status = s;
                                            opened->Notify();
                                          });
    });
    ASSERT_TRUE(opened->WaitForNotificationWithTimeout(absl::Seconds(30)));
    ASSERT_TRUE(status->ok()) << *status;
  }

  client::ConnectOptions Connect() const {
    client::ConnectOptions options;
    options.socket_path = daemon_.socket_path();
    options.autostart = client::Autostart::kNever;
    options.env = [](const std::string&) { return std::nullopt; };
    return options;
  }

  // The client sends session/prompt `id`.
  void Prompt(int id, const std::string& text) {
    Json request = {
        {"jsonrpc", "2.0"},
        {"id", id},
        {"method", "session/prompt"},
        {"params",
         {{"sessionId", "s1"}, {"prompt", Json::array({{{"type", "text"}, {"text", text}}})}}}};
    OnLoop([this, line = request.dump()] { rpc_->Receive(line); });
  }

  // The id of the turn the `n`th StartTurn (from 1) chose, once it was sent.
  std::string ChosenTurnId(int n) {
    daemon_.service().WaitForCall("StartTurn:");
    std::vector<std::string> ids = daemon_.service().start_turn_ids();
    return ids.size() >= static_cast<size_t>(n) ? ids[n - 1] : std::string();
  }

  static v1::Event Delta(const std::string& turn_id, const std::string& text) {
    v1::Event e;
    e.set_session_id("s1");
    e.set_turn_id(turn_id);
    e.mutable_text_delta()->set_text(text);
    return e;
  }
  static v1::Event Ended(const std::string& turn_id) {
    v1::Event e;
    e.set_session_id("s1");
    e.set_turn_id(turn_id);
    e.mutable_turn_ended()->set_reason(v1::TURN_END_REASON_COMPLETED);
    return e;
  }

  static std::function<bool(const Json&)> Chunk(const std::string& text) {
    return [text](const Json& m) {
      if (m.value("method", "") != "session/update") return false;
      const Json& update = m["params"]["update"];
      return update.value("sessionUpdate", "") == "agent_message_chunk" &&
             update["content"].value("text", "") == text;
    };
  }
  static bool IsAnswer(const Json& m, int id) {
    return !m.contains("method") && m.contains("id") && m["id"] == id;
  }
  static std::function<bool(const Json&)> Answer(int id) {
    return [id](const Json& m) { return IsAnswer(m, id); };
  }
  // The answers to the prompt `id` sent so far.
  std::vector<Json> Answers(int id) {
    std::vector<Json> answers;
    for (const Json& m : client_->sent()) {
      if (IsAnswer(m, id)) answers.push_back(m);
    }
    return answers;
  }

  raw::testing::TempDir dir_;
  raw::testing::FakeDaemon daemon_{dir_.File("rawd.sock")};
  std::shared_ptr<ClientEnd> client_ = std::make_shared<ClientEnd>();
  EventLoop loop_;
  std::thread loop_thread_;
  // The loop's thread only.
  std::unique_ptr<DaemonCalls> calls_;
  std::unique_ptr<SessionBridge> bridge_;
  Agent agent_{bridge_};
  std::unique_ptr<JsonRpc> rpc_;
};

// The turn's id is chosen as its start is sent: its first chunk, and even
// its end, reach the client while rawd still holds the StartTurn answer,
// and the end of another turn meanwhile is not the prompt's.
TEST_F(SessionBridgeTest, TheTurnsEventsReachTheClientBeforeRawdAnswersItsStart) {
  daemon_.service().HoldStartTurns(/*abandon_on_interrupt=*/false);
  Open();
  Prompt(1, "hi");
  const std::string turn_id = ChosenTurnId(1);
  ASSERT_FALSE(turn_id.empty());

  // A delta is live only: the bridge's subscription must be there first.
  daemon_.service().WaitForCall("Subscribe");
  daemon_.service().Append(Delta(turn_id, "first"));
  ASSERT_TRUE(client_->Saw(Chunk("first")));
  EXPECT_EQ(daemon_.service().start_turns_answered(), 0);

  // Another operation's end does not answer the prompt (the events come in
  // order: once "second" is out, that end was handled).
  daemon_.service().Append(Ended("turn_another"));
  daemon_.service().Append(Delta(turn_id, "second"));
  ASSERT_TRUE(client_->Saw(Chunk("second")));
  EXPECT_TRUE(Answers(1).empty());

  daemon_.service().Append(Ended(turn_id));
  ASSERT_TRUE(client_->Saw(Answer(1)));
  EXPECT_EQ(daemon_.service().start_turns_answered(), 0);
  std::vector<Json> answers = Answers(1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0]["result"]["stopReason"], "end_turn") << answers[0].dump();

  // The start's late answer changes nothing: the prompt is not answered
  // again, and the next one runs.
  daemon_.service().ReleaseStartTurns();
  daemon_.service().WaitForStartTurnsAnswered(1);
  Prompt(2, "again");
  daemon_.service().WaitForCall("StartTurn:again");
  const std::string second = ChosenTurnId(2);
  ASSERT_FALSE(second.empty());
  EXPECT_NE(second, turn_id);
  daemon_.service().Append(Ended(second));
  ASSERT_TRUE(client_->Saw(Answer(2)));
  answers = Answers(2);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0]["result"]["stopReason"], "end_turn") << answers[0].dump();
  EXPECT_EQ(Answers(1).size(), 1u);
}

// A cancel while rawd prepares the turn: rawd refuses the start
// (CANCELLED) and the prompt answers `cancelled`.
TEST_F(SessionBridgeTest, ACancelWhileRawdPreparesTheTurnAnswersCancelled) {
  daemon_.service().HoldStartTurns(/*abandon_on_interrupt=*/true);
  Open();
  Prompt(1, "hi");
  const std::string turn_id = ChosenTurnId(1);
  ASSERT_FALSE(turn_id.empty());
  OnLoop([this] { bridge_->Cancel(); });
  ASSERT_TRUE(client_->Saw(Answer(1)));
  std::vector<Json> answers = Answers(1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0]["result"]["stopReason"], "cancelled") << answers[0].dump();
  EXPECT_EQ(daemon_.service().interrupt_operation_ids(), std::vector<std::string>{turn_id});
}

// A start rawd refuses ends the prompt with its error.
TEST_F(SessionBridgeTest, ARefusedStartEndsThePromptWithItsError) {
  daemon_.service().FailStartTurn(
      grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "the agent is still working"));
  Open();
  Prompt(1, "hi");
  ASSERT_TRUE(client_->Saw(Answer(1)));
  std::vector<Json> answers = Answers(1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0]["error"]["code"], rpc_code::kInternalError) << answers[0].dump();
  EXPECT_EQ(answers[0]["error"]["message"], "the agent is still working");
  // It held the session before its prompt: it keeps it.
  EXPECT_EQ(daemon_.service().lease_holder("s1"), "raw-acp for test (pid 1)");
}

// The bridge follows; the writer goes away while its turn still runs. A
// prompt then gets the free lease, but rawd refuses its turn (another turn
// runs): the bridge gives the lease back, so that the client whose turn it
// is can take its session again (to answer its approvals), and follows.
TEST_F(SessionBridgeTest, ALeaseTakenForAPromptWhoseTurnCannotStartIsGivenBack) {
  daemon_.service().HoldLease("s1", "raw (pid 9)", "raw", 9);
  daemon_.service().FailStartTurn(
      grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "the agent is still working"));
  Open();  // following
  daemon_.service().DropHeldLease("s1");
  Prompt(1, "hi");
  ASSERT_TRUE(client_->Saw(Answer(1))) << absl::StrJoin(daemon_.service().calls(), "\n");
  std::vector<Json> answers = Answers(1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0]["error"]["message"], "the agent is still working") << answers[0].dump();
  EXPECT_TRUE(daemon_.service().WaitForLeaseFreeFor("s1", absl::Seconds(30)))
      << "still held by " << daemon_.service().lease_holder("s1");
}

}  // namespace
}  // namespace raw::acp
