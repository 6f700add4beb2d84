// StartThread: a thread when one can be had, ResourceExhausted naming the
// work when none can (the body never runs); the testing refusal matches by
// name and lets the first `allowed` starts through.
#include "common/thread_start.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

using ::testing::HasSubstr;

TEST(StartThreadTest, RunsTheBody) {
  std::atomic<bool> ran{false};
  absl::StatusOr<std::thread> thread = StartThread("a test", [&] { ran = true; });
  ASSERT_TRUE(thread.ok()) << thread.status();
  thread->join();
  EXPECT_TRUE(ran);
}

TEST(StartThreadTest, ARefusedStartIsAStatusAndTheBodyNeverRuns) {
  RefuseThreadStartsForTesting refuse("reader");
  auto held = std::make_shared<int>(1);
  std::atomic<bool> ran{false};
  absl::StatusOr<std::thread> thread =
      StartThread("the reader of MCP server \"x\"", [&ran, held] { ran = true; });
  ASSERT_FALSE(thread.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(thread.status()));
  EXPECT_THAT(thread.status().message(),
              HasSubstr("could not start a thread for the reader of MCP server \"x\": "));
  EXPECT_FALSE(ran);
  EXPECT_EQ(held.use_count(), 1);  // what the body captured was released
  EXPECT_EQ(refuse.refused(), 1);

  // Other names start, and so do all once the refusal is gone.
  absl::StatusOr<std::thread> other = StartThread("the writer", [] {});
  ASSERT_TRUE(other.ok());
  other->join();
  EXPECT_TRUE(absl::IsResourceExhausted(StartDetachedThread("a reader", [] {})));
}

TEST(StartThreadTest, TheRefusalLetsTheAllowedStartsThroughAndEndsWithItsScope) {
  {
    RefuseThreadStartsForTesting refuse("", 1);
    absl::StatusOr<std::thread> first = StartThread("one", [] {});
    ASSERT_TRUE(first.ok());
    first->join();
    EXPECT_FALSE(StartThread("two", [] {}).ok());
    EXPECT_EQ(refuse.refused(), 1);
  }
  absl::Notification ran;
  ASSERT_TRUE(StartDetachedThread("three", [&] { ran.Notify(); }).ok());
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

// A real refusal, not the testing one: in a child process whose thread
// limit is already reached, the start is a status where std::thread throws.
// Exits 0 when it is so (or when the limit cannot be set), else non-zero.
[[noreturn]] void StartUnderAThreadLimitOfNone() {
  // The limit binds no process of root's: as root, the child runs on as
  // nobody (which drops the capabilities that lift it).
  rlimit none{0, 0};
  if (setrlimit(RLIMIT_NPROC, &none) != 0 ||
      (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))) {
    std::fprintf(stderr, "skipped: cannot limit threads\n");
    std::_Exit(0);
  }
  absl::StatusOr<std::thread> thread = StartThread("a limited test", [] {});
  if (thread.ok()) {
    thread->join();
    std::fprintf(stderr, "a thread started\n");
    std::_Exit(2);
  }
  std::fprintf(stderr, "%s\n", std::string(thread.status().message()).c_str());
  std::_Exit(absl::IsResourceExhausted(thread.status()) ? 0 : 3);
}

TEST(StartThreadTest, TheSystemsRefusalIsAStatusToo) {
  EXPECT_EXIT(StartUnderAThreadLimitOfNone(), ::testing::ExitedWithCode(0),
              "could not start a thread for a limited test: |skipped");
}

}  // namespace
}  // namespace raw
