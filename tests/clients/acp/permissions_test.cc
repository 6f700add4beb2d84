// PermissionAnswer: the client's answer to session/request_permission
// becomes the call's ApprovalAnswer; anything but a well-formed choice of an
// offered option denies the call.
#include "clients/acp/permissions.h"

#include "gtest/gtest.h"

namespace raw::acp {
namespace {

v1::ApprovalCall Call() {
  v1::ApprovalCall call;
  call.set_call_id("c1");
  call.set_name("bash");
  return call;
}

RpcResponse Result(Json result) {
  RpcResponse r;
  r.ok = true;
  r.result = std::move(result);
  return r;
}

TEST(PermissionAnswerTest, TheChosenOptionDecides) {
  v1::ApprovalAnswer a = PermissionAnswer(
      Call(), Result(Json::parse(R"({"outcome":{"outcome":"selected","optionId":"allow_once"}})")));
  EXPECT_EQ(a.call_id(), "c1");
  EXPECT_EQ(a.decision(), v1::APPROVAL_DECISION_ALLOW_ONCE);
}

TEST(PermissionAnswerTest, WronglyTypedAnswersDenyTheCall) {
  for (const char* text : {
           R"({"outcome":{"outcome":1}})",
           R"({"outcome":{"outcome":"selected","optionId":7}})",
           R"({"outcome":{"outcome":null,"optionId":"allow_once"}})",
           R"({"outcome":{"outcome":["selected"],"optionId":"allow_once"}})",
           R"({"outcome":"selected"})",
           R"({"outcome":[]})",
           R"([])",
           R"(null)",
       }) {
    v1::ApprovalAnswer a;
    ASSERT_NO_THROW(a = PermissionAnswer(Call(), Result(Json::parse(text)))) << text;
    EXPECT_EQ(a.decision(), v1::APPROVAL_DECISION_DENY) << text;
    EXPECT_EQ(a.call_id(), "c1");
  }
}

TEST(PermissionAnswerTest, AnErrorDeniesTheCall) {
  RpcResponse r;
  r.error = {-32603, "the client answered with a malformed error", nullptr};
  v1::ApprovalAnswer a = PermissionAnswer(Call(), r);
  EXPECT_EQ(a.decision(), v1::APPROVAL_DECISION_DENY);
}

}  // namespace
}  // namespace raw::acp
