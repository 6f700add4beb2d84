// AgentConnection against a fake rawd: how requests are told apart by
// their ids, and what the connection keeps of a request while it waits on
// rawd.
#include "clients/acp/agent_connection.h"

#include <malloc.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "clients/acp/request_params.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/acp/client_end.h"
#include "tests/clients/fake_daemon.h"
#include "tests/clients/temp_dir.h"

// The allocator of a sanitizer run, which glibc's mallinfo2 does not see.
extern "C" size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));

namespace raw::acp {
namespace {

// Bytes the program has allocated and not freed, whoever allocated them.
size_t AllocatedBytes() {
  if (__sanitizer_get_current_allocated_bytes != nullptr) {
    return __sanitizer_get_current_allocated_bytes();
  }
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

std::string Line(const Json& message) { return DumpJson(message); }

Json Request(int id, const std::string& method, Json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

class AgentConnectionTest : public ::testing::Test {
 protected:
  using ClientEnd = ::raw::acp::testing::ClientEnd;

  void SetUp() override {
    loop_thread_ = std::thread([this] { loop_.Run(); });
    OnLoop([this] {
      AgentOptions options;
      options.connect.socket_path = daemon_.socket_path();
      options.connect.autostart = client::Autostart::kNever;
      options.connect.env = [](const std::string&) { return std::nullopt; };
      connection_ = std::make_unique<AgentConnection>(client_, loop_, std::move(options));
    });
  }

  void TearDown() override {
    auto closed = std::make_shared<absl::Notification>();
    OnLoop([this, closed] { connection_->Close([closed] { closed->Notify(); }); });
    EXPECT_TRUE(closed->WaitForNotificationWithTimeout(absl::Seconds(30)));
    OnLoop([this] { connection_.reset(); });
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

  // The client's messages, received one after the other in one task of the
  // loop: nothing rawd answers comes in between.
  void Receive(const std::vector<std::string>& lines) {
    OnLoop([this, &lines] {
      for (const std::string& line : lines) connection_->Receive(line);
    });
  }

  // The answer whose id is written exactly as `id_literal`; null when none
  // came within 30 s.
  Json AnswerTo(const std::string& id_literal) {
    return client_->WaitFor([id_literal](const Json& m) {
      return !m.contains("method") && m.contains("id") && IdKey(m["id"]) == id_literal;
    });
  }

  // Initializes the connection and opens a new session; returns its id.
  std::string NewSession() {
    Receive({Line(Request(1, "initialize", {{"protocolVersion", 1}}))});
    EXPECT_TRUE(AnswerTo("1").contains("result"));
    Receive({Line(Request(2, "session/new", {{"cwd", "/work"}, {"mcpServers", Json::array()}}))});
    Json created = AnswerTo("2");
    EXPECT_TRUE(created["result"]["sessionId"].is_string()) << created.dump();
    return created["result"].value("sessionId", "");
  }

  raw::testing::TempDir dir_;
  raw::testing::FakeDaemon daemon_{dir_.File("rawd.sock")};
  std::shared_ptr<ClientEnd> client_ = std::make_shared<ClientEnd>();
  EventLoop loop_;
  std::thread loop_thread_;
  std::unique_ptr<AgentConnection> connection_;  // the loop's thread only
};

// `1` and `1.0` are two ids (JsonRpc keeps them apart): cancelling the
// request 1.0 cancels that one, not the initialize whose id is 1, which is
// still answered.
TEST_F(AgentConnectionTest, ACancelOfId1Point0LeavesTheRequestWithId1Alone) {
  Receive({R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}})",
           R"({"jsonrpc":"2.0","id":1.0,"method":"session/list","params":{}})",
           R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1.0}})"});
  Json cancelled = AnswerTo("1.0");
  EXPECT_EQ(cancelled["error"]["code"], -32800) << cancelled.dump();
  Json initialized = AnswerTo("1");
  ASSERT_TRUE(initialized.contains("result")) << initialized.dump();
  EXPECT_EQ(initialized["result"]["protocolVersion"], 1);
}

// session/set_config_option waits for rawd's agents and models before it
// configures anything. What waits is the option's id and value, not the
// request: a client that pads its requests with fields raw-acp does not
// read makes it keep nothing of them, however many wait. (rawd answers
// only after the loop's task that received them has ended.)
TEST_F(AgentConnectionTest, AWaitingConfigOptionKeepsNothingOfItsPadding) {
  const std::string session_id = NewSession();
  ASSERT_FALSE(session_id.empty());
  constexpr int kRequests = 4;
  constexpr size_t kPadding = 1 << 20;
  std::vector<std::string> lines;
  for (int i = 0; i < kRequests; ++i) {
    lines.push_back(Line(Request(10 + i, "session/set_config_option",
                                 {{"sessionId", session_id},
                                  {"configId", "model"},
                                  {"value", "fake"},
                                  {"padding", std::string(kPadding, 'x')}})));
  }
  size_t before = 0;
  size_t after = 0;
  OnLoop([&] {
    before = AllocatedBytes();
    for (const std::string& line : lines) connection_->Receive(line);
    after = AllocatedBytes();
  });
  // Well below a single request's padding (it was every request's).
  EXPECT_LT(after, before + kPadding / 2)
      << "kept " << (after - before) << " bytes for " << kRequests << " waiting requests";
  for (int i = 0; i < kRequests; ++i) AnswerTo(std::to_string(10 + i));
}

// A cwd longer than any path is refused before it reaches rawd (whose
// session/list query it would be), as is a cursor longer than any rawd
// gives.
TEST_F(AgentConnectionTest, ListRefusesACwdOrCursorLongerThanAnyPath) {
  Receive({Line(Request(1, "initialize", {{"protocolVersion", 1}}))});
  ASSERT_TRUE(AnswerTo("1").contains("result"));
  Receive({Line(Request(2, "session/list", {{"cwd", "/" + std::string(kMaxCwdBytes, 'd')}})),
           Line(Request(3, "session/list", {{"cursor", std::string(kMaxTokenBytes + 1, '1')}})),
           Line(Request(4, "session/list", {{"cwd", "/" + std::string(kMaxCwdBytes - 1, 'd')}}))});
  Json cwd = AnswerTo("2");
  EXPECT_EQ(cwd["error"]["code"], -32602) << cwd.dump();
  EXPECT_THAT(cwd.dump(), ::testing::HasSubstr(R"(\"cwd\" is longer than 4096 bytes)"));
  Json cursor = AnswerTo("3");
  EXPECT_EQ(cursor["error"]["code"], -32602) << cursor.dump();
  Json longest = AnswerTo("4");
  EXPECT_TRUE(longest["result"]["sessions"].is_array()) << longest.dump();
}

// A cwd holding a control character (NUL, a line break, ...) names no
// directory a session is made in: refused with -32602 before rawd stores
// it, by every request that takes a cwd.
TEST_F(AgentConnectionTest, ACwdWithAControlCharacterIsRefused) {
  Receive({Line(Request(1, "initialize", {{"protocolVersion", 1}}))});
  ASSERT_TRUE(AnswerTo("1").contains("result"));
  const std::string nul("/work/a\0b", 9);
  Receive(
      {Line(Request(2, "session/new", {{"cwd", nul}, {"mcpServers", Json::array()}})),
       Line(Request(3, "session/load",
                    {{"sessionId", "s1"}, {"cwd", "/work/a\nb"}, {"mcpServers", Json::array()}})),
       Line(Request(4, "session/resume",
                    {{"sessionId", "s1"}, {"cwd", "/work/\x1b"}, {"mcpServers", Json::array()}})),
       Line(Request(5, "session/list", {{"cwd", nul}}))});
  for (const char* id : {"2", "3", "4", "5"}) {
    Json refused = AnswerTo(id);
    EXPECT_EQ(refused["error"]["code"], -32602) << refused.dump();
    EXPECT_THAT(refused.dump(), ::testing::HasSubstr("control character")) << refused.dump();
  }
  EXPECT_EQ(daemon_.service().last_create().cwd(), "") << "rawd was asked to create a session";
}

}  // namespace
}  // namespace raw::acp
