#include "clients/lib/session_activity.h"

#include "gtest/gtest.h"

namespace raw::client {
namespace {

v1::Event At(uint64_t seq, const std::string& turn = "turn_1") {
  v1::Event e;
  e.set_seq(seq);
  e.set_turn_id(turn);
  return e;
}

v1::Event Asked(uint64_t seq, const std::string& request, v1::ApprovalState state) {
  v1::Event e = At(seq);
  e.mutable_approval_requested()->set_request_id(request);
  e.mutable_approval_requested()->add_calls()->set_state(state);
  return e;
}

TEST(SessionActivityTest, ATurnRunsFromItsStartToItsEnd) {
  SessionActivity a;
  v1::Event started = At(1);
  started.mutable_turn_started()->set_user_text("hi");
  EXPECT_TRUE(a.Apply(started));
  EXPECT_TRUE(a.turn_running());
  EXPECT_TRUE(a.busy());
  v1::Event ended = At(2);
  ended.mutable_turn_ended();
  EXPECT_TRUE(a.Apply(ended));
  EXPECT_FALSE(a.busy());
  EXPECT_EQ(a.last_seq(), 2u);
}

TEST(SessionActivityTest, AnEventSeenBeforeIsAReplay) {
  SessionActivity a;
  EXPECT_TRUE(a.Apply(At(3)));
  EXPECT_FALSE(a.Apply(At(3)));
  EXPECT_FALSE(a.Apply(At(2)));
  v1::Event delta = At(0);
  delta.mutable_text_delta()->set_text("x");
  EXPECT_TRUE(a.Apply(delta));  // live only: no seq
  a.SeenUpTo(10);
  EXPECT_FALSE(a.Apply(At(9)));
  EXPECT_EQ(a.last_seq(), 10u);
}

TEST(SessionActivityTest, OnlyARequestWithAnUndecidedCallWaitsForAnAnswer) {
  SessionActivity a;
  a.Apply(Asked(1, "req_1", v1::APPROVAL_STATE_DENIED));
  EXPECT_FALSE(a.pending_approval().has_value());
  a.Apply(Asked(2, "req_2", v1::APPROVAL_STATE_PENDING));
  ASSERT_TRUE(a.pending_approval().has_value());
  EXPECT_EQ(a.pending_approval()->request_id(), "req_2");
  v1::Event other = At(3);
  other.mutable_approval_resolved()->set_request_id("req_1");
  a.Apply(other);
  EXPECT_TRUE(a.pending_approval().has_value());
  v1::Event resolved = At(4);
  resolved.mutable_approval_resolved()->set_request_id("req_2");
  a.Apply(resolved);
  EXPECT_FALSE(a.pending_approval().has_value());
}

TEST(SessionActivityTest, AnAbandonedTurnLeavesNothingRunning) {
  SessionActivity a;
  v1::Event compacting = At(1);
  compacting.mutable_compaction_started();
  a.Apply(compacting);
  a.Apply(Asked(2, "req_1", v1::APPROVAL_STATE_PENDING));
  EXPECT_TRUE(a.compacting());
  a.AbandonTurn();
  EXPECT_FALSE(a.busy());
  EXPECT_FALSE(a.pending_approval().has_value());
}

TEST(SessionActivityTest, AnAutomaticCompactionEndsAtTheLatestWithItsTurn) {
  SessionActivity a;
  v1::Event started = At(1, "turn_2");
  started.mutable_turn_started();
  a.Apply(started);
  v1::Event compacting = At(2, "turn_2");
  compacting.mutable_compaction_started();
  a.Apply(compacting);
  // A turn's end that names another turn changes nothing.
  v1::Event other = At(3, "turn_1");
  other.mutable_turn_ended();
  a.Apply(other);
  EXPECT_TRUE(a.compacting());
  v1::Event ended = At(4, "turn_2");
  ended.mutable_turn_ended();
  a.Apply(ended);
  EXPECT_FALSE(a.compacting());
  EXPECT_FALSE(a.busy());
}

}  // namespace
}  // namespace raw::client
