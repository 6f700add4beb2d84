// After rawd restarts, the client that wrote to a session gets it back
// before a follower that reconnected first, end to end through a real rawd:
// the follower's wait (AcquireLeaseRequest.rejoin_following) leaves the
// free lease alone during the restart grace.
#include <signal.h>

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/e2e/lease_holder.h"

namespace raw::e2e {
namespace {

using LeaseRejoinTest = ContractTest;

TEST_F(LeaseRejoinTest, AFollowerBackFirstLeavesTheSessionToItsWriterOfBefore) {
  StartDaemon("");
  const std::string session = daemon_->CreateSession();
  auto writer = std::make_unique<LeaseHolder>(stub(), session, "raw (pid 7)");
  ASSERT_FALSE(writer->lease_id().empty());
  writer.reset();
  ASSERT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
  ASSERT_TRUE(daemon_->Start().ok());

  // The follower is back first and waits, though nobody holds the session.
  LeaseOptions rejoin;
  rejoin.wait_for_release = true;
  rejoin.rejoin_following = true;
  LeaseHolder follower(stub(), session, "dashboard tab", rejoin);
  ASSERT_TRUE(follower.first().has_waiting()) << follower.first().DebugString();
  EXPECT_TRUE(follower.first().waiting().holder().client_name().empty());

  // The writer comes back and takes its session at once.
  writer = std::make_unique<LeaseHolder>(stub(), session, "raw (pid 7)");
  ASSERT_FALSE(writer->lease_id().empty()) << writer->Close().error_message();

  // The follower hears who writes now.
  raw::v1::LeaseEvent news;
  ASSERT_TRUE(follower.Next(&news));
  ASSERT_TRUE(news.has_waiting()) << news.DebugString();
  EXPECT_EQ(news.waiting().holder().client_name(), "raw (pid 7)");

  // When it lets go, the follower that waited writes.
  writer->Close();
  raw::v1::LeaseEvent granted;
  ASSERT_TRUE(follower.Next(&granted));
  EXPECT_TRUE(granted.has_granted()) << granted.DebugString();

  // A plain quiet wait (not after a restart) is granted a free lease at once.
  const std::string other = daemon_->CreateSession();
  LeaseOptions quiet;
  quiet.wait_for_release = true;
  LeaseHolder plain(stub(), other, "raw (pid 8)", quiet);
  EXPECT_TRUE(plain.first().has_granted());
}

}  // namespace
}  // namespace raw::e2e
