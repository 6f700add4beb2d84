// StepTimeline's phases and SessionState's overhead summary, with the
// clock readings given.
#include "daemon/loop/step_timeline.h"

#include "daemon/loop/session_state.h"
#include "gtest/gtest.h"

namespace raw::loop {
namespace {

constexpr int64_t kUs = 1000;  // ns

TEST(StepTimelineTest, PhasesRunFromMarkToMarkLessTheTimeOutsideRaw) {
  StepTimeline t;
  t.Begin(1'000 * kUs);
  t.AddOutside(50 * kUs);  // a hook before the request
  t.RecordAt(StepTimeline::kRequest, 1'080 * kUs);
  t.request_times().body_built_ns = 1'100 * kUs;
  t.request_times().first_byte_sent_ns = 1'400 * kUs;
  t.request_times().network_setup_ns = 250 * kUs;  // a new connection
  t.RecordAt(StepTimeline::kResponseEnd, 9'000 * kUs);
  t.RecordAt(StepTimeline::kCommitted, 9'070 * kUs);
  t.AddOutside(5'000 * kUs);  // the tools ran
  t.RecordAt(StepTimeline::kResultsCommitted, 14'200 * kUs);

  StepTiming r = t.Result();
  EXPECT_EQ(r.pre_us, 30);
  EXPECT_EQ(r.build_us, 20);
  EXPECT_EQ(r.send_us, 50);  // 300 less the connection's 250
  EXPECT_EQ(r.commit_us, 70);
  EXPECT_EQ(r.tools_us, 130);
  EXPECT_EQ(r.total_us(), 300);
}

TEST(StepTimelineTest, AStepWithoutCallsOrProviderTimesHasThosePhasesAtZero) {
  StepTimeline t;
  t.Begin(10 * kUs);
  t.RecordAt(StepTimeline::kRequest, 20 * kUs);
  t.RecordAt(StepTimeline::kResponseEnd, 900 * kUs);
  t.RecordAt(StepTimeline::kCommitted, 940 * kUs);
  StepTiming r = t.Result();
  EXPECT_EQ(r.pre_us, 10);
  EXPECT_EQ(r.build_us, 0);
  EXPECT_EQ(r.send_us, 0);
  EXPECT_EQ(r.commit_us, 40);
  EXPECT_EQ(r.tools_us, 0);
}

TEST(StepTimelineTest, BeginForgetsThePreviousStep) {
  StepTimeline t;
  t.Begin(0 + 1);
  t.AddOutside(7 * kUs);
  t.request_times().body_built_ns = 5;
  t.RecordAt(StepTimeline::kResultsCommitted, 100 * kUs);
  t.Begin(200 * kUs);
  t.RecordAt(StepTimeline::kRequest, 210 * kUs);
  t.RecordAt(StepTimeline::kResponseEnd, 300 * kUs);
  t.RecordAt(StepTimeline::kCommitted, 301 * kUs);
  StepTiming r = t.Result();
  EXPECT_EQ(r.pre_us, 10);
  EXPECT_EQ(r.build_us, 0);
  EXPECT_EQ(r.tools_us, 0);
}

TEST(SessionOverheadTest, PercentilesCoverTheStepsOfEveryTurnAndLastTurnIsTheLatest) {
  SessionState state;
  EXPECT_EQ(state.overhead().steps, 0);
  std::vector<StepTiming> first;
  for (int i = 1; i <= 99; ++i) first.push_back(StepTiming{.pre_us = i});
  state.RecordTurnTimings(first);
  state.RecordTurnTimings({StepTiming{.pre_us = 1000, .tools_us = 500}});
  OverheadSummary o = state.overhead();
  EXPECT_EQ(o.steps, 100);
  EXPECT_EQ(o.p50_us, 50);
  EXPECT_EQ(o.p99_us, 99);
  ASSERT_EQ(o.last_turn.size(), 1u);
  EXPECT_EQ(o.last_turn[0].total_us(), 1500);
}

TEST(SessionOverheadTest, OnlyTheLatestSamplesCount) {
  SessionState state;
  state.RecordTurnTimings(std::vector<StepTiming>(kOverheadSamples, StepTiming{.pre_us = 9000}));
  state.RecordTurnTimings(std::vector<StepTiming>(kOverheadSamples, StepTiming{.pre_us = 3}));
  OverheadSummary o = state.overhead();
  EXPECT_EQ(o.steps, static_cast<int64_t>(2 * kOverheadSamples));
  EXPECT_EQ(o.p99_us, 3);
}

}  // namespace
}  // namespace raw::loop
