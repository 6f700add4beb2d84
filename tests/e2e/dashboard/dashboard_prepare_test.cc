// A prompt whose turn rawd is still preparing (a secret `command` variable
// that blocks): the gateway does not hold the tab's next commands behind
// it, so an interrupt is answered at once and ends the preparation.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;

class DashboardPrepareTest : public DashboardTest {
 protected:
  // The model needs SLOW for a header; SLOW's command says it started on
  // one FIFO and then blocks reading another until released.
  std::string ModelExtra() const override { return R"("headers": {"X-Slow": "${SLOW}"})"; }
  std::string TopExtra() override {
    release_fifo_ = scratch_ + "/release";
    started_fifo_ = scratch_ + "/started";
    EXPECT_EQ(mkfifo(release_fifo_.c_str(), 0600), 0);
    EXPECT_EQ(mkfifo(started_fifo_.c_str(), 0600), 0);
    started_fd_ = open(started_fifo_.c_str(), O_RDONLY | O_NONBLOCK);
    const std::string variable = Script(
        "slow-variable",
        absl::StrCat("echo up > ", started_fifo_, "\ncat ", release_fifo_, " >/dev/null\necho v"));
    return absl::StrCat(R"("variables": {"SLOW": {"command": [")", variable,
                        R"("], "timeout_seconds": 120}})");
  }
  void TearDown() override {
    Release();
    if (started_fd_ >= 0) close(started_fd_);
    DashboardTest::TearDown();
  }

  // Waits for the variable's command to start (the bound only ends a
  // failing test).
  bool WaitForStart() const {
    struct pollfd pfd = {started_fd_, POLLIN, 0};
    return poll(&pfd, 1, 60'000) == 1 && (pfd.revents & POLLIN) != 0;
  }
  // Lets a blocked command go on; nothing when none reads.
  void Release() const {
    int fd = open(release_fifo_.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd < 0) return;
    (void)!write(fd, "x\n", 2);
    close(fd);
  }

  std::string release_fifo_, started_fifo_;
  int started_fd_ = -1;
};

TEST_F(DashboardPrepareTest, AnInterruptIsNotQueuedBehindAPromptBeingPrepared) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ASSERT_EQ(Command(*ws, "acquire_lease")["ok"], true);
  fake_.Enqueue(testing::chat::TextAnswer("should not run"));
  ASSERT_TRUE(ws->SendText(R"({"id":101,"op":"prompt","text":"go"})").ok());
  ASSERT_TRUE(WaitForStart()) << "the variable's command never ran";
  ASSERT_TRUE(ws->SendText(R"({"id":102,"op":"interrupt"})").ok());
  // Both replies come while the command is still blocked. A gateway that
  // held the interrupt behind StartTurn could not send it before the
  // command ends: the command is released after 30 s, so that such a
  // gateway fails below instead of hanging.
  absl::Notification answered;
  std::atomic<bool> released{false};
  std::thread watchdog([&] {
    if (answered.WaitForNotificationWithTimeout(absl::Seconds(30))) return;
    released = true;
    Release();
  });
  Json prompt_reply, interrupt_reply;
  ReadUntil(*ws, [&](const Json& f) {
    if (f["type"] != "reply") return false;
    (f["id"] == 101 ? prompt_reply : interrupt_reply) = f;
    return !prompt_reply.is_null() && !interrupt_reply.is_null();
  });
  answered.Notify();
  watchdog.join();
  EXPECT_FALSE(released) << "the replies waited for the variable's command";
  EXPECT_EQ(interrupt_reply["ok"], true) << interrupt_reply.dump();
  EXPECT_EQ(prompt_reply["ok"], false) << prompt_reply.dump();
  EXPECT_EQ(prompt_reply["error"]["code"], "CANCELLED") << prompt_reply.dump();
  EXPECT_THAT(prompt_reply["error"]["message"].get<std::string>(),
              HasSubstr("interrupted before it started"));
  EXPECT_TRUE(fake_.requests().empty());
}

}  // namespace
}  // namespace raw::e2e
