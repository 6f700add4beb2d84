#include "daemon/api/rpc/lease_news.h"

#include <deque>

#include "gtest/gtest.h"

namespace raw::api::rpc {
namespace {

raw::v1::LeaseEvent Requested(const std::string& name) {
  raw::v1::LeaseEvent e;
  e.mutable_handover_requested()->mutable_requester()->set_client_name(name);
  return e;
}

raw::v1::LeaseEvent Withdrawn() {
  raw::v1::LeaseEvent e;
  e.mutable_handover_withdrawn();
  return e;
}

// A holder that does not read its stream while another client asks and
// withdraws in a loop keeps one message queued, the latest, not one per
// request.
TEST(LeaseNewsTest, HandoverNewsNotYetWrittenIsReplacedByTheLatest) {
  std::deque<raw::v1::LeaseEvent> pending;
  raw::v1::LeaseEvent granted;
  granted.mutable_granted()->set_lease_id("lease_1");
  QueueLeaseEvent(pending, granted);
  for (int i = 0; i < 10'000; ++i) {
    QueueLeaseEvent(pending, Requested("R" + std::to_string(i)));
    QueueLeaseEvent(pending, Withdrawn());
  }
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_TRUE(pending[0].has_granted()) << "other messages are kept";
  EXPECT_TRUE(pending[1].has_handover_withdrawn());
  QueueLeaseEvent(pending, Requested("last"));
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[1].handover_requested().requester().client_name(), "last");
}

TEST(LeaseNewsTest, OtherMessagesAreQueuedInOrder) {
  std::deque<raw::v1::LeaseEvent> pending;
  QueueLeaseEvent(pending, Requested("R1"));
  raw::v1::LeaseEvent waiting;
  waiting.mutable_waiting();
  QueueLeaseEvent(pending, waiting);
  QueueLeaseEvent(pending, Withdrawn());
  ASSERT_EQ(pending.size(), 3u);
  EXPECT_TRUE(pending[0].has_handover_requested());
  EXPECT_TRUE(pending[1].has_waiting());
  EXPECT_TRUE(pending[2].has_handover_withdrawn());
}

}  // namespace
}  // namespace raw::api::rpc
