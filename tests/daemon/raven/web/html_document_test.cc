// HtmlDocument's budget: a parse past its memory, its deadline or a
// cancellation is abandoned with an error, and the next parse is unharmed.
#include "daemon/raven/web/html_document.h"

#include <string>

#include "common/time.h"
#include "daemon/raven/web/fast_page_text.h"
#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

// `unit` repeated to at least `bytes`.
std::string RepeatedTo(const std::string& unit, size_t bytes) {
  std::string out;
  while (out.size() < bytes) out += unit;
  return out;
}

// Formatting elements closed across a block: gumbo's adoption agency clones
// them over and over (seconds for a few hundred KB, superlinear).
std::string SlowHtml() { return RepeatedTo("<a><div>x</a>", 100 * 1024); }
// Misnested formatting that makes gumbo take about 70 bytes per byte.
std::string BigHtml() { return RepeatedTo("<b><p>x</b>", 100 * 1024); }

constexpr char kSmallArticle[] = "<p>The <b>trial</b> enrolled 1,204 patients.</p><p>Second.</p>";

void ExpectGumboParsesAsUsual() {
  absl::StatusOr<PageText> text = GumboPageText(kSmallArticle);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->text, "The trial enrolled 1,204 patients.\nSecond.");
}

TEST(HtmlDocumentTest, AParsePastItsDeadlineIsStopped) {
  ParseBudget budget;
  budget.deadline_ns = SteadyNowNs();  // already reached at the first look
  absl::StatusOr<std::unique_ptr<HtmlDocument>> doc = HtmlDocument::Parse(SlowHtml(), budget);
  ASSERT_EQ(doc.status().code(), absl::StatusCode::kDeadlineExceeded) << doc.status();
  EXPECT_NE(doc.status().message().find("ran past its time"), std::string::npos);
  ExpectGumboParsesAsUsual();
}

TEST(HtmlDocumentTest, ACancelledParseIsStopped) {
  CancelToken cancel;
  cancel.Cancel();
  ParseBudget budget;
  budget.cancel = &cancel;
  EXPECT_EQ(HtmlDocument::Parse(SlowHtml(), budget).status().code(), absl::StatusCode::kCancelled);
  ExpectGumboParsesAsUsual();
}

TEST(HtmlDocumentTest, APageThatNeedsMoreMemoryThanItsBudgetIsNotParsed) {
  ParseBudget budget;
  budget.max_bytes = size_t{2} << 20;
  absl::StatusOr<std::unique_ptr<HtmlDocument>> doc = HtmlDocument::Parse(BigHtml(), budget);
  ASSERT_EQ(doc.status().code(), absl::StatusCode::kResourceExhausted) << doc.status();
  EXPECT_NE(doc.status().message().find("more than 2 MiB"), std::string::npos);
  // Within a budget that holds it, the same page parses.
  budget.max_bytes = size_t{64} << 20;
  doc = HtmlDocument::Parse(BigHtml(), budget);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_LE((*doc)->arena_bytes(), budget.max_bytes);
  EXPECT_GT((*doc)->arena_bytes(), size_t{2} << 20);
}

TEST(HtmlDocumentTest, TheBudgetReachesThePageTextParse) {
  ParseBudget budget;
  budget.deadline_ns = SteadyNowNs();
  EXPECT_EQ(ExtractPageText(SlowHtml(), budget).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  // A page the streaming parser reads never meets gumbo, nor its budget.
  absl::StatusOr<PageText> fast = ExtractPageText(kSmallArticle, budget);
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_EQ(fast->text, "The trial enrolled 1,204 patients.\nSecond.");
}

}  // namespace
}  // namespace raw::raven::web
