// AgentConnection against a fake rawd: how requests are told apart by
// their ids.
#include "clients/acp/agent_connection.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"
#include "tests/clients/temp_dir.h"

namespace raw::acp {
namespace {

class AgentConnectionTest : public ::testing::Test {
 protected:
  // The ACP client's end of the connection: every line the connection sends.
  class ClientEnd : public Transport {
   public:
    bool Send(std::string message) override {
      absl::MutexLock l(&mu_);
      sent_.push_back(Json::parse(message));
      return true;
    }
    void Close() override {}

    // Waits for a message `match` accepts and returns it; null when none
    // came within 30 s.
    Json WaitFor(const std::function<bool(const Json&)>& match) {
      absl::MutexLock l(&mu_);
      auto seen = [this, &match]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return std::any_of(sent_.begin(), sent_.end(), match);
      };
      if (!mu_.AwaitWithTimeout(absl::Condition(&seen), absl::Seconds(30))) return nullptr;
      return *std::find_if(sent_.begin(), sent_.end(), match);
    }
    std::vector<Json> sent() {
      absl::MutexLock l(&mu_);
      return sent_;
    }

   private:
    absl::Mutex mu_;
    std::vector<Json> sent_ ABSL_GUARDED_BY(mu_);
  };

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

}  // namespace
}  // namespace raw::acp
