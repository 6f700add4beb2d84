#include "clients/present/turn_end.h"

#include "gtest/gtest.h"

namespace raw::present {
namespace {

v1::TurnEnded Ended(v1::TurnEndReason reason, int steps, const std::string& message = "") {
  v1::TurnEnded ended;
  ended.set_reason(reason);
  ended.set_steps(steps);
  ended.set_message(message);
  return ended;
}

TEST(TurnEndTextTest, ReasonStepsAndMessage) {
  EXPECT_EQ(TurnEndText(Ended(v1::TURN_END_REASON_COMPLETED, 1)), "turn completed (1 step)");
  EXPECT_EQ(TurnEndText(Ended(v1::TURN_END_REASON_MAX_STEPS, 6)),
            "turn stopped at the agent's max_steps (6 steps)");
  EXPECT_EQ(TurnEndText(Ended(v1::TURN_END_REASON_CANCELLED, 0)), "turn cancelled");
  EXPECT_EQ(TurnEndText(Ended(v1::TURN_END_REASON_ERROR, 2, "HTTP 500\nbody")),
            "turn failed (2 steps): HTTP 500 body");
}

TEST(TurnEndTextTest, Severity) {
  EXPECT_EQ(TurnEndSeverity(Ended(v1::TURN_END_REASON_COMPLETED, 1)), Severity::kInfo);
  EXPECT_EQ(TurnEndSeverity(Ended(v1::TURN_END_REASON_CANCELLED, 1)), Severity::kWarning);
  EXPECT_EQ(TurnEndSeverity(Ended(v1::TURN_END_REASON_MAX_STEPS, 1)), Severity::kWarning);
  EXPECT_EQ(TurnEndSeverity(Ended(v1::TURN_END_REASON_ERROR, 1)), Severity::kError);
  EXPECT_EQ(Capitalized("turn cancelled"), "Turn cancelled");
  EXPECT_EQ(Capitalized(""), "");
}

}  // namespace
}  // namespace raw::present
