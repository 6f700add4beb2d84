// ApprovalBroker: answers per call and for the whole batch, refusals of bad
// answers, the timeout and cancellation, without sleeps.
#include "daemon/loop/approval_broker.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::loop {
namespace {

using events::ApprovalAnswer;
using events::ApprovalDecision;
using events::ApprovalResolution;

TEST(ApprovalBrokerTest, PerCallAnswersInSeveralResponsesCompleteTheRequest) {
  ApprovalBroker broker;
  ASSERT_TRUE(broker.Open("apr_1", {"a", "b"}).ok());
  ASSERT_TRUE(broker.Respond("apr_1", {{"b", ApprovalDecision::kDeny, "no"}}, std::nullopt).ok());
  std::thread client([&] {
    EXPECT_TRUE(
        broker.Respond("apr_1", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt).ok());
  });
  CancelToken cancel;
  ApprovalOutcome out = broker.Wait(absl::Seconds(30), cancel);
  client.join();
  EXPECT_EQ(out.resolution, ApprovalResolution::kAnswered);
  ASSERT_EQ(out.answers.size(), 2u);
  EXPECT_EQ(out.answers[0].call_id, "a");  // in the order the calls were opened
  EXPECT_EQ(out.answers[0].decision, ApprovalDecision::kAllowOnce);
  EXPECT_EQ(out.answers[1].message, "no");
  EXPECT_TRUE(out.unanswered.empty());
  EXPECT_EQ(broker.open_request(), "");
}

// A writer's "deny all" covers every call its client showed waiting: after
// the lease changed hands (a handover, a reloaded page), an "allow" the
// earlier writer gave to one call, which no event showed, is dropped.
TEST(ApprovalBrokerTest, ANewWritersAnswersReplaceTheEarlierWritersPartialOnes) {
  ApprovalBroker broker;
  ASSERT_TRUE(broker.Open("apr_1", {"a", "b"}).ok());
  ASSERT_TRUE(
      broker.Respond("apr_1", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt, "lease_1")
          .ok());
  ASSERT_TRUE(
      broker.Respond("apr_1", {}, ApprovalAnswer{"", ApprovalDecision::kDeny, "no"}, "lease_2")
          .ok());
  CancelToken cancel;
  ApprovalOutcome out = broker.Wait(absl::Seconds(30), cancel);
  ASSERT_EQ(out.answers.size(), 2u);
  EXPECT_EQ(out.answers[0].call_id, "a");
  EXPECT_EQ(out.answers[0].decision, ApprovalDecision::kDeny);
  EXPECT_EQ(out.answers[1].decision, ApprovalDecision::kDeny);

  // The same writer's "all" covers only what it left open.
  ASSERT_TRUE(broker.Open("apr_2", {"a", "b"}).ok());
  ASSERT_TRUE(
      broker.Respond("apr_2", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt, "lease_2")
          .ok());
  ASSERT_TRUE(
      broker.Respond("apr_2", {}, ApprovalAnswer{"", ApprovalDecision::kDeny, "no"}, "lease_2")
          .ok());
  out = broker.Wait(absl::Seconds(30), cancel);
  ASSERT_EQ(out.answers.size(), 2u);
  EXPECT_EQ(out.answers[0].decision, ApprovalDecision::kAllowOnce);
  EXPECT_EQ(out.answers[1].decision, ApprovalDecision::kDeny);

  // A new writer's response that is refused drops nothing.
  ASSERT_TRUE(broker.Open("apr_4", {"a", "b"}).ok());
  ASSERT_TRUE(
      broker.Respond("apr_4", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt, "lease_2")
          .ok());
  EXPECT_EQ(
      broker.Respond("apr_4", {{"x", ApprovalDecision::kDeny, ""}}, std::nullopt, "lease_3").code(),
      absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(
      broker.Respond("apr_4", {{"b", ApprovalDecision::kDeny, ""}}, std::nullopt, "lease_2").ok());
  out = broker.Wait(absl::Seconds(30), cancel);
  EXPECT_EQ(out.answers[0].decision, ApprovalDecision::kAllowOnce);

  // A new writer may answer a call the earlier one answered.
  ASSERT_TRUE(broker.Open("apr_3", {"a", "b"}).ok());
  ASSERT_TRUE(
      broker.Respond("apr_3", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt, "lease_2")
          .ok());
  ASSERT_TRUE(broker
                  .Respond("apr_3",
                           {{"a", ApprovalDecision::kDeny, ""}, {"b", ApprovalDecision::kDeny, ""}},
                           std::nullopt, "lease_3")
                  .ok());
  out = broker.Wait(absl::Seconds(30), cancel);
  ASSERT_EQ(out.answers.size(), 2u);
  EXPECT_EQ(out.answers[0].decision, ApprovalDecision::kDeny);
}

TEST(ApprovalBrokerTest, AnIdPendingTwiceOpensNothing) {
  ApprovalBroker broker;
  absl::Status opened = broker.Open("apr_1", {"a", "b", "a"});
  EXPECT_EQ(opened.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(opened.message(), ::testing::HasSubstr("call id a is pending twice"));
  EXPECT_EQ(broker.open_request(), "");
  EXPECT_EQ(broker.Respond("apr_1", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt).code(),
            absl::StatusCode::kNotFound);
}

TEST(ApprovalBrokerTest, OneAnswerCoversEveryPendingCall) {
  ApprovalBroker broker;
  ASSERT_TRUE(broker.Open("apr_1", {"a", "b", "c"}).ok());
  ASSERT_TRUE(broker
                  .Respond("apr_1", {{"a", ApprovalDecision::kDeny, ""}},
                           ApprovalAnswer{"", ApprovalDecision::kAllowSession, ""})
                  .ok());
  CancelToken cancel;
  ApprovalOutcome out = broker.Wait(absl::Seconds(30), cancel);
  ASSERT_EQ(out.answers.size(), 3u);
  EXPECT_EQ(out.answers[0].decision, ApprovalDecision::kDeny);
  EXPECT_EQ(out.answers[1].decision, ApprovalDecision::kAllowSession);
  EXPECT_EQ(out.answers[2].call_id, "c");
}

TEST(ApprovalBrokerTest, BadAnswersAreRefusedAndChangeNothing) {
  ApprovalBroker broker;
  EXPECT_EQ(broker.Respond("apr_1", {}, ApprovalAnswer{}).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(broker.Open("apr_1", {"a"}).ok());
  EXPECT_EQ(broker.Respond("apr_2", {}, ApprovalAnswer{}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(broker.Respond("apr_1", {{"zz", ApprovalDecision::kAllowOnce, ""}}, std::nullopt)
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(broker
                .Respond("apr_1",
                         {{"a", ApprovalDecision::kAllowOnce, ""},
                          {"a", ApprovalDecision::kDeny, ""}},
                         std::nullopt)
                .code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(
      broker.Respond("apr_1", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt).ok());
  EXPECT_EQ(broker.Respond("apr_1", {{"a", ApprovalDecision::kDeny, ""}}, std::nullopt).code(),
            absl::StatusCode::kInvalidArgument);  // answered already
}

TEST(ApprovalBrokerTest, TimeoutDeniesUnansweredCallsAndKeepsEarlierAnswers) {
  ApprovalBroker broker;
  ASSERT_TRUE(broker.Open("apr_1", {"a", "b"}).ok());
  ASSERT_TRUE(
      broker.Respond("apr_1", {{"a", ApprovalDecision::kAllowOnce, ""}}, std::nullopt).ok());
  CancelToken cancel;
  ApprovalOutcome out = broker.Wait(absl::Milliseconds(1), cancel);
  EXPECT_EQ(out.resolution, ApprovalResolution::kTimedOut);
  EXPECT_EQ(out.answers[0].decision, ApprovalDecision::kAllowOnce);
  EXPECT_EQ(out.answers[1].decision, ApprovalDecision::kDeny);
  EXPECT_THAT(out.answers[1].message, ::testing::HasSubstr("no answer"));
  EXPECT_EQ(out.unanswered, std::set<std::string>{"b"});
  // The request is closed: late answers are refused.
  EXPECT_EQ(broker.Respond("apr_1", {}, ApprovalAnswer{}).code(), absl::StatusCode::kNotFound);
}

TEST(ApprovalBrokerTest, CancellationEndsTheWaitAtOnce) {
  ApprovalBroker broker;
  ASSERT_TRUE(broker.Open("apr_1", {"a"}).ok());
  CancelToken cancel;
  std::thread canceller([&] { cancel.Cancel("interrupted"); });
  ApprovalOutcome out = broker.Wait(absl::Hours(1), cancel);
  canceller.join();
  EXPECT_EQ(out.resolution, ApprovalResolution::kCancelled);
  EXPECT_THAT(out.answers[0].message, ::testing::HasSubstr("interrupted"));
}

}  // namespace
}  // namespace raw::loop
