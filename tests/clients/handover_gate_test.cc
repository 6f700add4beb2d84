#include "clients/lib/handover_gate.h"

#include "gtest/gtest.h"

namespace raw::client {
namespace {

using Phase = HandoverGate::Phase;

const absl::Time kT0 = absl::FromUnixSeconds(1000);

v1::LeaseHolder Asker() {
  v1::LeaseHolder h;
  h.set_client_name("raw (pid 2)");
  return h;
}

HandoverGate Gate() { return HandoverGate({absl::Seconds(10), absl::Seconds(10)}); }

TEST(HandoverGateTest, AnIdleHolderCountsDownThenReleases) {
  HandoverGate gate = Gate();
  gate.Requested(Asker(), /*turn_running=*/false);
  EXPECT_FALSE(gate.Tick(false, kT0));  // never typed: idle already
  EXPECT_EQ(gate.phase(), Phase::kCountdown);
  EXPECT_EQ(gate.requester().client_name(), "raw (pid 2)");
  EXPECT_EQ(gate.SecondsLeft(kT0), 10);
  EXPECT_EQ(gate.SecondsLeft(kT0 + absl::Milliseconds(9500)), 1);
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Seconds(9)));
  EXPECT_EQ(gate.NextDeadline(), kT0 + absl::Seconds(10));
  EXPECT_TRUE(gate.Tick(false, kT0 + absl::Seconds(10)));
  EXPECT_EQ(gate.phase(), Phase::kNone);
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Seconds(11)));  // released once
}

TEST(HandoverGateTest, TypingPostponesTheCountdownAndAKeyDuringItKeepsTheLease) {
  HandoverGate gate = Gate();
  EXPECT_FALSE(gate.KeyPressed(kT0));  // typing, nobody asks: nothing to keep
  gate.Requested(Asker(), false);
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Seconds(3)));
  EXPECT_EQ(gate.phase(), Phase::kUntilIdle);
  EXPECT_EQ(gate.NextDeadline(), kT0 + absl::Seconds(10));
  EXPECT_FALSE(gate.KeyPressed(kT0 + absl::Seconds(8)));  // still typing: not an answer
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Seconds(17)));
  EXPECT_EQ(gate.phase(), Phase::kUntilIdle);
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Seconds(18)));
  EXPECT_EQ(gate.phase(), Phase::kCountdown);
  EXPECT_TRUE(gate.KeyPressed(kT0 + absl::Seconds(20)));  // kept
  EXPECT_EQ(gate.phase(), Phase::kNone);
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Seconds(60)));
}

TEST(HandoverGateTest, ARequestDuringATurnWaitsForItsEnd) {
  HandoverGate gate = Gate();
  gate.Requested(Asker(), /*turn_running=*/true);
  EXPECT_FALSE(gate.Tick(true, kT0));
  EXPECT_EQ(gate.phase(), Phase::kAfterTurn);
  EXPECT_EQ(gate.NextDeadline(), std::nullopt);
  EXPECT_FALSE(gate.Tick(true, kT0 + absl::Minutes(5)));
  EXPECT_EQ(gate.phase(), Phase::kAfterTurn);
  // The turn ends; nothing typed: the countdown starts at once.
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Minutes(6)));
  EXPECT_EQ(gate.phase(), Phase::kCountdown);
  EXPECT_TRUE(gate.Tick(false, kT0 + absl::Minutes(6) + absl::Seconds(10)));
}

TEST(HandoverGateTest, ATurnStartedDuringTheCountdownDefersTheHandoverToItsEnd) {
  HandoverGate gate = Gate();
  gate.Requested(Asker(), /*turn_running=*/false);
  EXPECT_FALSE(gate.Tick(false, kT0));
  EXPECT_EQ(gate.phase(), Phase::kCountdown);
  // A turn starts without a key (an ACP prompt): the countdown's end does
  // not cut it off.
  EXPECT_FALSE(gate.Tick(true, kT0 + absl::Seconds(10)));
  EXPECT_EQ(gate.phase(), Phase::kAfterTurn);
  EXPECT_EQ(gate.NextDeadline(), std::nullopt);
  EXPECT_EQ(gate.requester().client_name(), "raw (pid 2)");
  EXPECT_FALSE(gate.Tick(true, kT0 + absl::Minutes(2)));
  // The turn ends: a new countdown, then the handover.
  EXPECT_FALSE(gate.Tick(false, kT0 + absl::Minutes(3)));
  EXPECT_EQ(gate.phase(), Phase::kCountdown);
  EXPECT_EQ(gate.release_at(), kT0 + absl::Minutes(3) + absl::Seconds(10));
  EXPECT_TRUE(gate.Tick(false, kT0 + absl::Minutes(3) + absl::Seconds(10)));
}

TEST(HandoverGateTest, ZeroDurationsReleaseAtTheFirstTick) {
  HandoverGate gate({absl::ZeroDuration(), absl::ZeroDuration()});
  gate.KeyPressed(kT0);
  gate.Requested(Asker(), false);
  EXPECT_TRUE(gate.Tick(false, kT0));
  EXPECT_EQ(gate.phase(), Phase::kNone);
}

}  // namespace
}  // namespace raw::client
