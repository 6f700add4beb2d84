// SessionManager routes the lease changes to the session's queue, and never
// unloads a session while a lease command is queued or its lease is held.
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "absl/synchronization/notification.h"
#include "daemon/loop/session_manager.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/temp_store.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::loop {
namespace {

using Acquired = absl::StatusOr<WriteLeases::Acquired>;

class SessionManagerLeaseTest : public ::testing::Test {
 protected:
  Acquired Acquire(const std::string& session, WhenHeld when_held) {
    return testing::Await<WriteLeases::Acquired>([&](Reply<WriteLeases::Acquired> reply) {
      manager_.AcquireLease(session, LeaseClient{"test", "test", 0}, when_held, {},
                            [reply](Acquired acquired) {
                              reply(std::move(acquired));
                              return true;
                            });
    });
  }

  testing::TempStore store_;
  raw::testing::FakeHttpClient http_;
  tools::ToolRegistry tools_;
  SystemClock clock_;
  SessionManager manager_{SessionManagerDeps{
      .store = store_.store(),
      .http = http_,
      .tools = tools_,
      .clock = clock_,
      .env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; },
      .config_path = store_.dir() + "/config.json",
      .probe = [](const std::string&) { return false; },
  }};
};

TEST_F(SessionManagerLeaseTest, ASessionIsNotUnloadedWhileALeaseCommandIsQueuedOrTheLeaseHeld) {
  const std::string session = store_.session_id();
  // A slow command occupies the queue; an acquire waits behind it.
  absl::Notification running, release;
  manager_.AcquireLease(session, LeaseClient{"blocker", "test", 0}, WhenHeld::kRefuse, {},
                        [&](const Acquired&) {
                          running.Notify();
                          release.WaitForNotification();
                          return false;  // gone: the lease is given back
                        });
  running.WaitForNotification();
  std::promise<Acquired> queued;
  manager_.AcquireLease(session, LeaseClient{"queued", "test", 0}, WhenHeld::kRefuse, {},
                        [&](Acquired acquired) {
                          queued.set_value(std::move(acquired));
                          return true;
                        });
  EXPECT_EQ(manager_.UnloadIdle(absl::ZeroDuration()), 0u);
  EXPECT_EQ(manager_.loaded_sessions(), 1u);
  release.Notify();
  Acquired held = queued.get_future().get();
  ASSERT_TRUE(held.ok()) << held.status();
  ASSERT_FALSE(held->lease_id.empty());

  // Held: the session stays, however long it has been idle.
  EXPECT_EQ(manager_.UnloadIdle(absl::ZeroDuration()), 0u);
  EXPECT_EQ(manager_.loaded_sessions(), 1u);
  Acquired refused = Acquire(session, WhenHeld::kRefuse);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("\"queued\""), std::string::npos)
      << refused.status();

  // Released (a command posted by nobody who waits for it), then declined
  // by a client that no longer holds it: the decline runs after the
  // release, so it is refused.
  manager_.ReleaseLease(session, held->lease_id);
  auto declined = testing::Await<int>(
      [&](Reply<int> reply) { manager_.DeclineHandover(session, held->lease_id, reply); });
  EXPECT_EQ(declined.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Acquire(session, WhenHeld::kRefuse).ok());
}

TEST_F(SessionManagerLeaseTest, AnAcquireForAnUnknownSessionIsRefusedByItsLookup) {
  Acquired acquired = Acquire("no_such_session", WhenHeld::kRefuse);
  EXPECT_EQ(acquired.status().code(), absl::StatusCode::kNotFound) << acquired.status();
}

}  // namespace
}  // namespace raw::loop
