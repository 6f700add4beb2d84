#include "daemon/loop/write_leases.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::loop {
namespace {

using ::testing::HasSubstr;

class FixedClock : public Clock {
 public:
  int64_t NowUnixMs() const override { return 1'700'000'000'000; }
};

// What one client's callbacks saw.
struct Seen {
  std::vector<std::string> granted;
  std::vector<std::string> asked_by;
  std::vector<absl::Status> declined;
  std::vector<absl::Status> ended;
  std::vector<std::string> new_holders;  // holder_changed
  int withdrawn = 0;                     // handover_withdrawn
  LeaseCallbacks Callbacks() {
    return {[this](const std::string& id) { granted.push_back(id); },
            [this](const LeaseHolderInfo& who) { asked_by.push_back(who.client.name); },
            [this](const absl::Status& why) { declined.push_back(why); },
            [this](const absl::Status& why) { ended.push_back(why); },
            [this](const LeaseHolderInfo& who) { new_holders.push_back(who.client.name); },
            [this] { ++withdrawn; }};
  }
};

class WriteLeasesTest : public ::testing::Test {
 protected:
  FixedClock clock_;
  WriteLeases leases_{clock_};
  const LeaseClient terminal_{"raw (pid 7)", "raw", 7};
  const LeaseClient browser_{"dashboard", "raw-dashboard", 9};
};

TEST_F(WriteLeasesTest, OnlyTheHolderWritesAndEveryRefusalNamesItInFull) {
  Seen seen;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, seen.Callbacks());
  ASSERT_TRUE(held.ok());
  ASSERT_FALSE(held->lease_id.empty());
  EXPECT_TRUE(leases_.CheckWrite("s1", held->lease_id).ok());

  for (const std::string& other : {std::string(), std::string("lease_other")}) {
    absl::Status refused = leases_.CheckWrite("s1", other);
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(refused.message(), HasSubstr("\"raw (pid 7)\" (raw, pid 7, since "));
  }
  auto second = leases_.Acquire("s1", browser_, WhenHeld::kRefuse, {});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("raw (pid 7)"));
  // Another session is free.
  EXPECT_TRUE(leases_.Acquire("s2", browser_, WhenHeld::kRefuse, {}).ok());
}

TEST_F(WriteLeasesTest, AWriteWithoutAnyLeaseIsRefusedEvenWhenNobodyHoldsIt) {
  absl::Status refused = leases_.CheckWrite("s1", "");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("needs the session's write lease"));
  EXPECT_EQ(leases_.CheckWrite("s1", "lease_gone").code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(WriteLeasesTest, AHandoverRequestWaitsUntilTheHolderReleases) {
  Seen holder, asker;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  ASSERT_TRUE(held.ok());
  auto waiting = leases_.Acquire("s1", browser_, WhenHeld::kRequestHandover, asker.Callbacks());
  ASSERT_TRUE(waiting.ok());
  EXPECT_TRUE(waiting->lease_id.empty());
  EXPECT_EQ(waiting->holder.client.name, "raw (pid 7)");
  EXPECT_THAT(holder.asked_by, ::testing::ElementsAre("dashboard"));
  // Nothing is taken: the holder still writes, the asker cannot.
  EXPECT_TRUE(leases_.CheckWrite("s1", held->lease_id).ok());
  EXPECT_TRUE(asker.granted.empty());

  leases_.Release("s1", held->lease_id);
  ASSERT_EQ(asker.granted.size(), 1u);
  EXPECT_TRUE(leases_.CheckWrite("s1", asker.granted[0]).ok());
  EXPECT_FALSE(leases_.CheckWrite("s1", held->lease_id).ok());
  EXPECT_EQ(leases_.Holder("s1")->client.name, "dashboard");
}

TEST_F(WriteLeasesTest, DecliningEndsEveryWaitingRequestAndKeepsTheLease) {
  Seen holder, first, second;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  ASSERT_TRUE(leases_.Acquire("s1", browser_, WhenHeld::kRequestHandover, first.Callbacks()).ok());
  ASSERT_TRUE(leases_.Acquire("s1", {"acp", "raw-acp", 11}, WhenHeld::kRequestHandover,
                              second.Callbacks())
                  .ok());
  EXPECT_EQ(leases_.Decline("s1", "lease_not_the_holder").status().code(),
            absl::StatusCode::kFailedPrecondition);
  auto declined = leases_.Decline("s1", held->lease_id);
  ASSERT_TRUE(declined.ok());
  EXPECT_EQ(*declined, 2);
  ASSERT_EQ(first.declined.size(), 1u);
  EXPECT_THAT(first.declined[0].message(), HasSubstr("kept the lease"));
  ASSERT_EQ(second.declined.size(), 1u);
  // Releasing now frees the session: nobody waits any more.
  leases_.Release("s1", held->lease_id);
  EXPECT_TRUE(first.granted.empty());
  EXPECT_FALSE(leases_.InUse("s1"));
}

// A follower waits without asking: the holder is not told, a decline of
// handover requests leaves it waiting, a handover request waiting at the
// release goes first, and the quiet wait is granted at the next release.
TEST_F(WriteLeasesTest, AQuietWaitIsGrantedWhenTheHolderLetsGoWithoutAskingIt) {
  Seen holder, follower, asker;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  ASSERT_TRUE(held.ok());
  auto quiet = leases_.Acquire("s1", browser_, WhenHeld::kWaitForRelease, follower.Callbacks());
  ASSERT_TRUE(quiet.ok());
  EXPECT_TRUE(quiet->lease_id.empty());
  EXPECT_FALSE(quiet->wait_id.empty());
  EXPECT_EQ(quiet->holder.client.name, "raw (pid 7)");
  EXPECT_TRUE(holder.asked_by.empty()) << "the holder is not asked";

  const LeaseClient editor{"acp", "raw-acp", 11};
  ASSERT_TRUE(leases_.Acquire("s1", editor, WhenHeld::kRequestHandover, asker.Callbacks()).ok());
  EXPECT_THAT(holder.asked_by, ::testing::ElementsAre("acp"));
  auto declined = leases_.Decline("s1", held->lease_id);
  ASSERT_TRUE(declined.ok());
  EXPECT_EQ(*declined, 1);
  EXPECT_EQ(asker.declined.size(), 1u);
  EXPECT_TRUE(follower.declined.empty()) << "a decline leaves a quiet wait in place";

  // A new request asks again; the holder releases to it, not to the
  // follower that waited longer.
  Seen second_asker;
  ASSERT_TRUE(
      leases_.Acquire("s1", editor, WhenHeld::kRequestHandover, second_asker.Callbacks()).ok());
  leases_.Release("s1", held->lease_id);
  ASSERT_EQ(second_asker.granted.size(), 1u);
  EXPECT_TRUE(follower.granted.empty());
  EXPECT_TRUE(second_asker.asked_by.empty()) << "the new holder hears only of requests";
  EXPECT_THAT(follower.new_holders, ::testing::ElementsAre("acp"))
      << "the follower hears who writes now";

  // The editor leaves: the follower takes the session.
  leases_.Release("s1", second_asker.granted[0]);
  ASSERT_EQ(follower.granted.size(), 1u);
  EXPECT_TRUE(leases_.CheckWrite("s1", follower.granted[0]).ok());
  EXPECT_EQ(leases_.Holder("s1")->client.name, "dashboard");
}

TEST_F(WriteLeasesTest, EndingARemovedSessionEndsItsLeaseAndEveryWaitingRequest) {
  Seen holder, first, second;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(leases_.Acquire("s1", browser_, WhenHeld::kRequestHandover, first.Callbacks()).ok());
  ASSERT_TRUE(
      leases_.Acquire("s1", {"acp", "raw-acp", 11}, WhenHeld::kRequestHandover, second.Callbacks())
          .ok());
  leases_.EndSession("s1", absl::NotFoundError("session s1 was deleted"));
  EXPECT_FALSE(leases_.InUse("s1"));
  ASSERT_EQ(holder.ended.size(), 1u);
  EXPECT_EQ(holder.ended[0].code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(first.declined.size(), 1u);
  EXPECT_THAT(first.declined[0].message(), HasSubstr("was deleted"));
  ASSERT_EQ(second.declined.size(), 1u);
  EXPECT_TRUE(first.granted.empty());
  // The old holder's release, arriving late, grants nothing to anyone.
  leases_.Release("s1", held->lease_id);
  EXPECT_TRUE(first.granted.empty());
  EXPECT_TRUE(second.granted.empty());
  EXPECT_FALSE(leases_.InUse("s1"));
}

TEST_F(WriteLeasesTest, AWithdrawnRequestIsNeverGrantedAndTheNextWaiterIs) {
  Seen holder, gone, next;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  auto w1 = leases_.Acquire("s1", browser_, WhenHeld::kRequestHandover, gone.Callbacks());
  auto w2 = leases_.Acquire("s1", {"acp", "raw-acp", 11}, WhenHeld::kRequestHandover,
                            next.Callbacks());
  ASSERT_TRUE(w1.ok() && w2.ok());
  leases_.CancelWait("s1", w1->wait_id);
  leases_.Release("s1", held->lease_id);
  EXPECT_TRUE(gone.granted.empty());
  ASSERT_EQ(next.granted.size(), 1u);
  EXPECT_EQ(leases_.Holder("s1")->client.name, "acp");
}

// The holder is told of the oldest request, the one its release grants,
// and hears when that changes: the next one asks, or nobody does. Without
// that, a holder counting down for a client that quit would hand the
// session to a quiet follower nobody asked it for.
TEST_F(WriteLeasesTest, TheHolderHearsWhoAsksUntilTheLastRequestIsWithdrawn) {
  Seen holder, quiet, r1, r2;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  ASSERT_TRUE(leases_.Acquire("s1", browser_, WhenHeld::kWaitForRelease, quiet.Callbacks()).ok());
  EXPECT_TRUE(holder.asked_by.empty());
  auto w1 = leases_.Acquire("s1", {"R1", "raw", 11}, WhenHeld::kRequestHandover, r1.Callbacks());
  auto w2 = leases_.Acquire("s1", {"R2", "raw", 12}, WhenHeld::kRequestHandover, r2.Callbacks());
  ASSERT_TRUE(w1.ok() && w2.ok());
  // A second request names the oldest again: R1 is the one a release grants.
  EXPECT_THAT(holder.asked_by, ::testing::ElementsAre("R1", "R1"));
  // The newer request withdraws: the oldest is unchanged, nothing is said.
  leases_.CancelWait("s1", w2->wait_id);
  EXPECT_THAT(holder.asked_by, ::testing::ElementsAre("R1", "R1"));
  EXPECT_EQ(holder.withdrawn, 0);
  auto w3 = leases_.Acquire("s1", {"R3", "raw", 13}, WhenHeld::kRequestHandover, r2.Callbacks());
  ASSERT_TRUE(w3.ok());
  // The oldest withdraws: the holder hears of the next.
  leases_.CancelWait("s1", w1->wait_id);
  EXPECT_THAT(holder.asked_by, ::testing::ElementsAre("R1", "R1", "R1", "R3"));
  EXPECT_EQ(holder.withdrawn, 0);
  // The last one withdraws: nobody asks.
  leases_.CancelWait("s1", w3->wait_id);
  EXPECT_EQ(holder.withdrawn, 1);
  // Withdrawing a quiet wait says nothing to the holder.
  EXPECT_TRUE(leases_.CheckWrite("s1", held->lease_id).ok());
}

// A decline ends every request, including one the holder heard of only
// after it chose to keep the lease: the holder is told nobody asks, so its
// client does not count down for that request.
TEST_F(WriteLeasesTest, ADeclineTellsTheHolderThatNobodyAsksAnyMore) {
  Seen holder, asker;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  ASSERT_EQ(*leases_.Decline("s1", held->lease_id), 0);
  EXPECT_EQ(holder.withdrawn, 0) << "nothing was declined, nothing to say";
  ASSERT_TRUE(leases_.Acquire("s1", browser_, WhenHeld::kRequestHandover, asker.Callbacks()).ok());
  ASSERT_EQ(*leases_.Decline("s1", held->lease_id), 1);
  EXPECT_EQ(asker.declined.size(), 1u);
  EXPECT_EQ(holder.withdrawn, 1);
}

TEST_F(WriteLeasesTest, TheNewHolderHearsOfTheRequestsStillWaiting) {
  Seen holder, first, second;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, holder.Callbacks());
  ASSERT_TRUE(leases_.Acquire("s1", browser_, WhenHeld::kRequestHandover, first.Callbacks()).ok());
  ASSERT_TRUE(leases_.Acquire("s1", {"acp", "raw-acp", 11}, WhenHeld::kRequestHandover,
                              second.Callbacks())
                  .ok());
  leases_.Release("s1", held->lease_id);
  ASSERT_EQ(first.granted.size(), 1u);
  EXPECT_THAT(first.asked_by, ::testing::ElementsAre("acp"));
  EXPECT_THAT(second.new_holders, ::testing::ElementsAre("dashboard"))
      << "the request still waiting hears whom it waits for now";
  EXPECT_TRUE(first.new_holders.empty()) << "the new holder is granted, not told";
  EXPECT_TRUE(holder.new_holders.empty());
}

// Whoever waits hears of every new holder while it waits, and nothing once
// it holds the lease or has withdrawn.
TEST_F(WriteLeasesTest, AWaitingRequestHearsOfEveryNewHolderUntilItsWaitEnds) {
  Seen a, b, c, follower, gone;
  auto held = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, a.Callbacks());
  auto quiet = leases_.Acquire("s1", browser_, WhenHeld::kWaitForRelease, follower.Callbacks());
  auto withdrawn =
      leases_.Acquire("s1", {"gone", "raw", 3}, WhenHeld::kWaitForRelease, gone.Callbacks());
  ASSERT_TRUE(held.ok() && quiet.ok() && withdrawn.ok());
  leases_.CancelWait("s1", withdrawn->wait_id);
  ASSERT_TRUE(
      leases_.Acquire("s1", {"acp", "raw-acp", 11}, WhenHeld::kRequestHandover, b.Callbacks())
          .ok());
  ASSERT_TRUE(
      leases_.Acquire("s1", {"raw run", "raw run", 12}, WhenHeld::kRequestHandover, c.Callbacks())
          .ok());
  EXPECT_TRUE(follower.new_holders.empty()) << "requests alone change no holder";

  leases_.Release("s1", held->lease_id);  // to acp, the older request
  ASSERT_EQ(b.granted.size(), 1u);
  leases_.Release("s1", b.granted[0]);  // to raw run
  ASSERT_EQ(c.granted.size(), 1u);
  EXPECT_THAT(follower.new_holders, ::testing::ElementsAre("acp", "raw run"));
  EXPECT_THAT(c.new_holders, ::testing::ElementsAre("acp"));
  EXPECT_TRUE(b.new_holders.empty());
  EXPECT_TRUE(gone.new_holders.empty()) << "a withdrawn wait hears nothing";

  leases_.Release("s1", c.granted[0]);  // to the follower
  ASSERT_EQ(follower.granted.size(), 1u);
  EXPECT_THAT(follower.new_holders, ::testing::ElementsAre("acp", "raw run"));
}

// After a restart, a follower that comes back first waits on the free lease
// for the writer of before, which takes it at once; the follower gets it
// when that writer lets go.
TEST_F(WriteLeasesTest, ARejoiningFollowerLeavesTheFreeLeaseToTheWriterThatComesBack) {
  leases_.SetRestartGrace(clock_.NowUnixMs() + 10'000);
  Seen follower, writer;
  auto waiting = leases_.Acquire("s1", browser_, WhenHeld::kRejoinFollowing, follower.Callbacks());
  ASSERT_TRUE(waiting.ok());
  EXPECT_TRUE(waiting->lease_id.empty());
  EXPECT_FALSE(waiting->wait_id.empty());
  EXPECT_TRUE(waiting->holder.client.name.empty()) << "nobody holds it";
  EXPECT_FALSE(leases_.Holder("s1").has_value());
  EXPECT_THAT(leases_.CheckWrite("s1", "").message(), HasSubstr("is not open for writing"));
  EXPECT_EQ(leases_.ReservedSessions(), std::vector<std::string>{"s1"});

  auto back = leases_.Acquire("s1", terminal_, WhenHeld::kRefuse, writer.Callbacks());
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_FALSE(back->lease_id.empty());
  EXPECT_EQ(leases_.Holder("s1")->client.name, "raw (pid 7)");
  EXPECT_TRUE(writer.asked_by.empty()) << "a quiet wait asks nothing";
  EXPECT_THAT(follower.new_holders, ::testing::ElementsAre("raw (pid 7)"))
      << "the follower hears that the writer of before is back";
  EXPECT_TRUE(leases_.ReservedSessions().empty());
  leases_.EndReservation("s1");  // the grace's end changes nothing now
  EXPECT_TRUE(follower.granted.empty());

  leases_.Release("s1", back->lease_id);
  ASSERT_EQ(follower.granted.size(), 1u);
  EXPECT_TRUE(leases_.CheckWrite("s1", follower.granted[0]).ok());
}

TEST_F(WriteLeasesTest, AtTheGracesEndTheRejoiningFollowerGetsTheLeaseNobodyTookBack) {
  leases_.SetRestartGrace(clock_.NowUnixMs() + 10'000);
  Seen first, second, gone;
  auto a = leases_.Acquire("s1", browser_, WhenHeld::kRejoinFollowing, first.Callbacks());
  auto b =
      leases_.Acquire("s1", {"other", "raw", 8}, WhenHeld::kRejoinFollowing, second.Callbacks());
  auto c = leases_.Acquire("s2", terminal_, WhenHeld::kRejoinFollowing, gone.Callbacks());
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  // A waiter that goes away leaves nothing behind.
  leases_.CancelWait("s2", c->wait_id);
  EXPECT_FALSE(leases_.InUse("s2"));
  EXPECT_EQ(leases_.ReservedSessions(), std::vector<std::string>{"s1"});
  // Only the end of the grace (or a holder) grants it; a release or a
  // decline naming no lease does nothing.
  leases_.Release("s1", "");
  EXPECT_EQ(leases_.Decline("s1", "").status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(first.granted.empty());

  leases_.SetRestartGrace(0);
  leases_.EndReservation("s1");
  ASSERT_EQ(first.granted.size(), 1u) << "the oldest waiter";
  EXPECT_TRUE(second.granted.empty());
  EXPECT_EQ(leases_.Holder("s1")->client.name, "dashboard");
  // After the grace a rejoining follower is a quiet wait like any other.
  Seen late;
  auto free_now = leases_.Acquire("s3", browser_, WhenHeld::kRejoinFollowing, late.Callbacks());
  ASSERT_TRUE(free_now.ok());
  EXPECT_FALSE(free_now->lease_id.empty());
}

TEST_F(WriteLeasesTest, AHandoverRequestInTheGraceTakesTheFreeLeaseAtOnce) {
  leases_.SetRestartGrace(clock_.NowUnixMs() + 10'000);
  Seen follower, asker;
  ASSERT_TRUE(
      leases_.Acquire("s1", browser_, WhenHeld::kRejoinFollowing, follower.Callbacks()).ok());
  auto asked = leases_.Acquire("s1", terminal_, WhenHeld::kRequestHandover, asker.Callbacks());
  ASSERT_TRUE(asked.ok());
  EXPECT_FALSE(asked->lease_id.empty()) << "nobody held it";
  // Removing the session ends the follower's wait.
  leases_.EndSession("s1", absl::NotFoundError("gone"));
  EXPECT_EQ(follower.declined.size(), 1u);
  EXPECT_EQ(asker.ended.size(), 1u);
}

}  // namespace
}  // namespace raw::loop
