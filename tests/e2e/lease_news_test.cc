// A client waiting for a session's write lease hears who holds it each time
// the lease passes to another client, end to end through a real rawd: a
// follower names the right writer after a handover between two others.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/e2e/lease_holder.h"

namespace raw::e2e {
namespace {

using LeaseNewsTest = ContractTest;

TEST_F(LeaseNewsTest, AFollowerHearsOfEachNewWriterWhileItWaits) {
  StartDaemon("");
  const std::string session = daemon_->CreateSession();
  auto terminal = std::make_unique<LeaseHolder>(stub(), session, "raw (pid 7)");
  ASSERT_FALSE(terminal->lease_id().empty());

  LeaseOptions quiet;
  quiet.wait_for_release = true;
  LeaseHolder dashboard(stub(), session, "dashboard tab", quiet);
  ASSERT_TRUE(dashboard.first().has_waiting()) << dashboard.first().DebugString();
  EXPECT_EQ(dashboard.first().waiting().holder().client_name(), "raw (pid 7)");

  // An editor asks the terminal for the session, and the terminal lets go.
  auto editor = std::make_unique<LeaseHolder>(stub(), session, "raw-acp (pid 9)",
                                              LeaseOptions{.request_handover = true});
  ASSERT_TRUE(editor->first().has_waiting()) << editor->first().DebugString();
  raw::v1::LeaseEvent asked;
  ASSERT_TRUE(terminal->Next(&asked));
  ASSERT_TRUE(asked.has_handover_requested()) << asked.DebugString();
  terminal.reset();
  raw::v1::LeaseEvent granted;
  ASSERT_TRUE(editor->Next(&granted));
  ASSERT_TRUE(granted.has_granted()) << granted.DebugString();

  // The dashboard, still following, hears that the editor writes now.
  raw::v1::LeaseEvent news;
  ASSERT_TRUE(dashboard.Next(&news));
  ASSERT_TRUE(news.has_waiting()) << news.DebugString();
  EXPECT_EQ(news.waiting().holder().client_name(), "raw-acp (pid 9)");
  EXPECT_EQ(news.waiting().holder().client_kind(), "test client");

  // And takes the session when the editor leaves.
  editor.reset();
  ASSERT_TRUE(dashboard.Next(&granted));
  EXPECT_TRUE(granted.has_granted()) << granted.DebugString();
}

}  // namespace
}  // namespace raw::e2e
