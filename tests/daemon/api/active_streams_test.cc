// ActiveStreams: the registry of a service's open streams bounds how many
// are open at once, and refuses new ones once shutdown drains them.
#include "daemon/api/rpc/active_streams.h"

#include <vector>

#include "gtest/gtest.h"

namespace raw::api::rpc {
namespace {

class CountedDrains : public DrainableStream {
 public:
  void Drain() override { ++drains; }
  int drains = 0;
};

TEST(ActiveStreamsTest, AtMostKMaxStreamsAreOpenAtOnce) {
  ActiveStreams streams;
  std::vector<CountedDrains> open(ActiveStreams::kMaxStreams + 1);
  for (size_t i = 0; i < ActiveStreams::kMaxStreams; ++i) {
    ASSERT_TRUE(streams.Add(&open[i]).ok()) << i;
  }
  absl::Status refused = streams.Add(&open.back());
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  streams.Remove(&open.front());  // one ends: another may start
  EXPECT_TRUE(streams.Add(&open.back()).ok());
  EXPECT_EQ(streams.size(), static_cast<int>(ActiveStreams::kMaxStreams));
}

TEST(ActiveStreamsTest, AStreamStartedAfterTheDrainIsRefusedAsShuttingDown) {
  ActiveStreams streams;
  CountedDrains before, after;
  ASSERT_TRUE(streams.Add(&before).ok());
  streams.DrainAll();
  EXPECT_EQ(before.drains, 1);
  EXPECT_EQ(streams.Add(&after).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(after.drains, 0);
}

}  // namespace
}  // namespace raw::api::rpc
