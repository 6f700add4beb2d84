// The calls that read package store entries never hold their caller (a gRPC
// handler) while they read: CheckConfig and ListMcpServers run on the worker
// pool and reply from there. The config's package index is a FIFO here, so
// whatever reads it blocks until the test writes it; the test writes it only
// once the call has returned, which a call that read the index itself never
// does (it would wait for the test, until the test gives up and lets it go).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/loop/session_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/temp_store.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::loop {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

class SessionManagerPackageReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = dir_.dir();
    config_path_ = dir + "/config.json";
    index_ = dir + "/packages.json";
    ASSERT_EQ(mkfifo(index_.c_str(), 0600), 0);
    manager_ = std::make_unique<SessionManager>(SessionManagerDeps{
        .store = dir_.store(),
        .http = http_,
        .tools = tools_,
        .clock = clock_,
        .env = [dir](const std::string& name) -> std::optional<std::string> {
          if (name == "HOME") return dir;
          if (name == "XDG_DATA_HOME") return dir + "/data";
          return std::nullopt;
        },
        .config_path = config_path_,
        .probe = [](const std::string&) { return false; },
    });
  }
  void TearDown() override { manager_.reset(); }

  void WriteConfig(const std::string& text) { std::ofstream(config_path_) << text; }

  // Writes an empty index into the FIFO once something opens it to read.
  // Should nothing do so, the test opens it itself after a while (which only
  // bounds a failing test), and returns false.
  bool WriteIndex() {
    auto writer = std::async(std::launch::async, [this] {
      int fd = open(index_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return;
      const std::string text = R"({"packages": {}})";
      EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
      close(fd);
    });
    if (writer.wait_for(std::chrono::seconds(30)) == std::future_status::ready) return true;
    int fd = open(index_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    writer.wait();
    if (fd >= 0) close(fd);
    return false;
  }

  // Calls `start` with a reply and checks that it returned before anything
  // read the package index; returns what the reply got.
  template <typename T>
  absl::StatusOr<T> HeldCall(const std::function<void(Reply<T>)>& start) {
    absl::Notification returned;
    std::atomic<bool> held_caller{false};
    // A caller that reads the index itself never returns until it is
    // written: after a while, write it for it.
    std::thread watchdog([&] {
      if (returned.WaitForNotificationWithTimeout(absl::Seconds(10))) return;
      held_caller = true;
      WriteIndex();
    });
    auto promise = std::make_shared<std::promise<absl::StatusOr<T>>>();
    std::future<absl::StatusOr<T>> replied = promise->get_future();
    start([promise](absl::StatusOr<T> result) { promise->set_value(std::move(result)); });
    returned.Notify();
    watchdog.join();
    EXPECT_FALSE(held_caller) << "the caller read the package index itself";
    if (!held_caller) EXPECT_TRUE(WriteIndex()) << "nothing read the package index";
    if (replied.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
      ADD_FAILURE() << "no reply within 30 s";
      return absl::DeadlineExceededError("no reply");
    }
    return replied.get();
  }

  testing::TempStore dir_;
  raw::testing::FakeHttpClient http_;
  tools::ToolRegistry tools_;
  SystemClock clock_;
  std::string config_path_;
  std::string index_;
  std::unique_ptr<SessionManager> manager_;
};

constexpr char kPackageReadModels[] =
    R"("models": {"m": {"method": "openai-chat-completions", "model_id": "x",
                        "base_url": "http://127.0.0.1:1/v1"}})";

TEST_F(SessionManagerPackageReadsTest, CheckConfigRepliesFromThePoolWithoutHoldingTheCaller) {
  WriteConfig(absl::StrCat("{", kPackageReadModels, R"(, "agents": {
      "a": {"model": "m", "extends": "pkg/kit/agent/base"}}})"));
  absl::StatusOr<ConfigCheck> check = HeldCall<ConfigCheck>(
      [this](Reply<ConfigCheck> reply) { manager_->CheckConfig("", std::move(reply)); });
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->path, config_path_);
  // The check went on through the index the test wrote.
  EXPECT_THAT(check->errors,
              Contains(HasSubstr("agents.a.extends: no package is installed as \"kit\"")));
}

TEST_F(SessionManagerPackageReadsTest, ListMcpServersRepliesFromThePoolWithoutHoldingTheCaller) {
  WriteConfig(absl::StrCat("{", kPackageReadModels, R"(, "agents": {"a": {"model": "m"}},
      "mcp_servers": {"notes": {"from": "pkg/kit/mcp/notes"}}})"));
  absl::StatusOr<std::vector<mcp::McpServerStatus>> servers =
      HeldCall<std::vector<mcp::McpServerStatus>>(
          [this](Reply<std::vector<mcp::McpServerStatus>> reply) {
            manager_->ListMcpServers(std::move(reply));
          });
  ASSERT_TRUE(servers.ok()) << servers.status();
  ASSERT_EQ(servers->size(), 1u);
  EXPECT_EQ((*servers)[0].name, "notes");
  EXPECT_THAT((*servers)[0].last_error, HasSubstr("no package is installed as \"kit\""));
}

}  // namespace
}  // namespace raw::loop
