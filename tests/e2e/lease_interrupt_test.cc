// A lease taken with interrupt_on_release, end to end through a real rawd:
// when it ends, it interrupts the turn its own client started, and leaves
// running a turn that another client started before handing the session
// over to it.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/e2e/lease_holder.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;

class LeaseInterruptTest : public ContractTest {
 protected:
  // Starts a turn under `lease` whose answer is held at the fake provider's
  // gate; returns the turn id once the request is parked there.
  std::string StartHeldTurn(const std::string& session, const std::string& lease) {
    testing::ScriptedResponse held = chat::TextAnswer("the answer");
    held.gate_before_chunk = 0;
    fake_.Enqueue(held);
    raw::v1::StartTurnRequest req;
    req.set_session_id(session);
    req.set_text("go");
    req.set_lease_id(lease);
    raw::v1::StartTurnResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().StartTurn(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_TRUE(fake_.WaitForGate());
    return resp.turn_id();
  }

  // Takes the lease once the current holder lets go: once granted, that
  // holder's release, and any interrupt it posted before it on the
  // session's queue, have run.
  std::unique_ptr<LeaseHolder> TakeOver(const std::string& session, const std::string& name,
                                        bool interrupt_on_release = false) {
    auto next = std::make_unique<LeaseHolder>(stub(), session, name, /*request_handover=*/true,
                                              interrupt_on_release);
    raw::v1::LeaseEvent granted = next->first();
    if (granted.has_waiting()) EXPECT_TRUE(next->Next(&granted));
    EXPECT_TRUE(granted.has_granted());
    if (next->lease_id().empty()) next->set_lease_id(granted.granted().lease_id());
    return next;
  }
};

TEST_F(LeaseInterruptTest, AnEndingLeaseInterruptsOnlyATurnItsClientStarted) {
  StartDaemon("");
  const std::string session = daemon_->CreateSession();
  EventStream stream(stub(), session);

  // A terminal starts a turn, then hands the session to an editor's bridge
  // that asks for interrupt_on_release.
  auto terminal = std::make_unique<LeaseHolder>(stub(), session, "raw");
  ASSERT_FALSE(terminal->lease_id().empty());
  const std::string first = StartHeldTurn(session, terminal->lease_id());
  auto editor = std::make_unique<LeaseHolder>(stub(), session, "editor", /*request_handover=*/true,
                                              /*interrupt_on_release=*/true);
  ASSERT_TRUE(editor->first().has_waiting());
  raw::v1::LeaseEvent asked;
  ASSERT_TRUE(terminal->Next(&asked));
  ASSERT_TRUE(asked.has_handover_requested());
  terminal->Close();
  raw::v1::LeaseEvent granted;
  ASSERT_TRUE(editor->Next(&granted));
  ASSERT_TRUE(granted.has_granted());

  // The editor goes away while the terminal's turn still waits for its
  // answer: that turn is not the editor's, and it completes.
  editor->Close();
  std::unique_ptr<LeaseHolder> next = TakeOver(session, "next");
  fake_.ReleaseGate();
  auto end = stream.WaitForTurnEnd(first);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();

  // A turn the editor started itself ends with its lease, recorded cancelled.
  next->Close();
  editor = TakeOver(session, "editor", /*interrupt_on_release=*/true);
  ASSERT_FALSE(editor->lease_id().empty());
  const std::string second = StartHeldTurn(session, editor->lease_id());
  editor->Close();
  end = stream.WaitForTurnEnd(second);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  fake_.ReleaseGate();
}

}  // namespace
}  // namespace raw::e2e
