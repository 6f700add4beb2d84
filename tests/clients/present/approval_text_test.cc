#include "clients/present/approval_text.h"

#include "gtest/gtest.h"

namespace raw::present {
namespace {

TEST(ApprovalTextTest, DecisionNotes) {
  v1::ApprovalAnswer answer;
  answer.set_decision(v1::APPROVAL_DECISION_ALLOW_ONCE);
  EXPECT_EQ(DecisionNote(answer, v1::APPROVAL_RESOLUTION_ANSWERED), "allowed once");
  answer.set_decision(v1::APPROVAL_DECISION_DENY);
  answer.set_message("not now");
  EXPECT_EQ(DecisionNote(answer, v1::APPROVAL_RESOLUTION_ANSWERED), "denied: not now");
  EXPECT_EQ(DecisionNote(answer, v1::APPROVAL_RESOLUTION_TIMED_OUT), "timed out: denied: not now");
  EXPECT_EQ(DecisionNote(answer, v1::APPROVAL_RESOLUTION_CANCELLED), "cancelled");
}

TEST(ApprovalTextTest, RequestListsEveryCall) {
  v1::ApprovalRequested request;
  v1::ApprovalCall* call = request.add_calls();
  call->set_tool("builtin/bash");
  call->set_arguments(R"({"command":"ls"})");
  call->set_state(v1::APPROVAL_STATE_PENDING);
  call->set_reason("ask rule");
  EXPECT_EQ(DescribeApprovalRequest(request),
            "The agent wants to run 1 tool call:\n  - builtin/bash {\"command\":\"ls\"}\n"
            "    needs approval: ask rule\n");
}

}  // namespace
}  // namespace raw::present
