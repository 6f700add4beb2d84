#include "clients/tui/footer.h"

#include "gtest/gtest.h"
#include "tests/tui/lines_text.h"

namespace raw::tui {
namespace {

FooterState State() {
  FooterState s;
  s.agent = "coder";
  s.model = "gpt-test";
  s.session_id = "sess_01hx3k7q2m9v8c4d";
  s.turn_state = "idle";
  return s;
}

TEST(FooterTest, ShowsTheEstimateWithAPercentOnlyWithAWindow) {
  FooterState s = State();
  v1::ContextEstimate estimate;
  estimate.set_tokens(12345);
  s.context = estimate;
  std::string text = RenderFooter(s, 120, Glyphs::Unicode()).PlainText();
  EXPECT_NE(text.find("coder · gpt-test · 01hx3k7q · idle · context ~12.3k"), std::string::npos)
      << text;
  EXPECT_EQ(text.find('%'), std::string::npos);
  estimate.set_window_tokens(128000);
  estimate.set_percent(9.64);
  s.context = estimate;
  text = RenderFooter(s, 120, Glyphs::Unicode()).PlainText();
  EXPECT_NE(text.find("context ~12.3k (9.6%)"), std::string::npos) << text;
}

TEST(FooterTest, UnknownUsageIsNeverZero) {
  FooterState s = State();
  s.requests = 2;
  s.usage.set_output_tokens(340);
  std::string text = RenderFooter(s, 120, Glyphs::Unicode()).PlainText();
  EXPECT_NE(text.find("in unknown out 340"), std::string::npos) << text;
  EXPECT_EQ(text.find("cache"), std::string::npos);
  s.cache_read_ratio = 0.45;
  text = RenderFooter(s, 120, Glyphs::Unicode()).PlainText();
  EXPECT_NE(text.find("cache 45%"), std::string::npos) << text;
}

TEST(FooterTest, NarrowFootersDropTheLeastImportantParts) {
  FooterState s = State();
  s.requests = 1;
  s.usage.set_input_tokens(1200);
  s.usage.set_output_tokens(40);
  StyledLine line = RenderFooter(s, 24, Glyphs::Unicode());
  EXPECT_EQ(line.Width(), 24);
  EXPECT_NE(line.PlainText().find("coder"), std::string::npos);
  EXPECT_NE(line.PlainText().find("idle"), std::string::npos);
  EXPECT_EQ(RenderFooter(s, 60, Glyphs::Ascii()).PlainText().find("·"), std::string::npos);
}

TEST(FooterTest, StatsShowCoverageAndUnknowns) {
  v1::GetStatsResponse stats;
  stats.set_requests(3);
  stats.mutable_input_tokens()->set_total(12345);
  stats.mutable_input_tokens()->set_requests_reported(3);
  stats.mutable_output_tokens()->set_total(400);
  stats.mutable_output_tokens()->set_requests_reported(3);
  stats.mutable_cache_read_tokens()->set_requests_reported(0);
  stats.mutable_cache_write_tokens()->set_requests_reported(0);
  stats.mutable_reasoning_tokens()->set_requests_reported(0);
  stats.mutable_context()->set_tokens(2100);
  std::string text = LinesText(RenderStats(stats));
  EXPECT_NE(text.find("Usage this session (3 model requests)"), std::string::npos) << text;
  EXPECT_NE(text.find("  input tokens              12,345   reported by 3 of 3 requests"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  cache read tokens        unknown   reported by 0 of 3 requests"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  cache-read ratio         unknown   no request reported both"), std::string::npos) << text;
  EXPECT_NE(text.find("no context_window_tokens set"), std::string::npos) << text;
  stats.set_cache_read_ratio(0.5);
  stats.set_cache_ratio_requests(2);
  text = LinesText(RenderStats(stats));
  EXPECT_NE(text.find("50.0%   over 2 requests"), std::string::npos) << text;
  // Raw's own overhead shows once the daemon has timed a step.
  EXPECT_EQ(text.find("Raw's own overhead"), std::string::npos) << text;
  stats.mutable_overhead()->set_steps(7);
  stats.mutable_overhead()->set_p50_us(420);
  stats.mutable_overhead()->set_p99_us(2500);
  text = LinesText(RenderStats(stats));
  EXPECT_NE(
      text.find("  Raw's own overhead       0.42 ms   per step (p50; p99 2.50 ms, over 7 steps)"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace raw::tui
