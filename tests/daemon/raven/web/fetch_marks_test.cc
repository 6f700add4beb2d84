#include "daemon/raven/web/fetch_marks.h"

#include <string>

#include "daemon/raven/normalizer.h"
#include "daemon/raven/web/excerpt_match.h"
#include "daemon/raven/web/page_text.h"
#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

TEST(FetchMarksTest, LinkTargetsImagesListAndHeadingMarkersAndCellBarsGo) {
  EXPECT_EQ(WithoutFetchMarks("the committee (https://example.org/c) found"),
            "the committee found");
  EXPECT_EQ(WithoutFetchMarks("see Foo (https://en.wikipedia.org/wiki/Foo_(bar)) here"),
            "see Foo here");
  EXPECT_EQ(WithoutFetchMarks("write to us (mailto:a@example.org) today"), "write to us today");
  EXPECT_EQ(WithoutFetchMarks("a chart [image: rates by year] shows"), "a chart  shows");
  EXPECT_EQ(WithoutFetchMarks("## Findings\n- first item\n  - nested item"),
            "Findings\nfirst item\nnested item");
  EXPECT_EQ(WithoutFetchMarks("Year | Rate | Source"), "Year Rate Source");
}

TEST(FetchMarksTest, ProseThatOnlyLooksLikeAMarkIsKept) {
  for (const char* prose :
       {"a remark (see below) stays", "the ratio (3:1) stays", "a note (https: not a link) stays",
        "1 - 2 stays", "#1 stays", "####### seven stays", "a|b stays", "[image] stays"}) {
    EXPECT_EQ(WithoutFetchMarks(prose), prose);
  }
}

// A page as the verifier reads it, and sentences quoted from web_fetch's
// view of it (marks included).
constexpr char kPage[] =
    "<h2>Findings of the review</h2><p>The <a href='https://example.org/c'>review committee</a> "
    "found that responsible disclosure reduced incidents by forty percent.</p>"
    "<ul><li>Incidents fell in every region that adopted the policy.</li>"
    "<li>Reporting times halved within the first two years.</li></ul>";

ExcerptMatch Quote(const std::string& excerpt) {
  absl::StatusOr<PageText> text = ExtractPageText(kPage);
  EXPECT_TRUE(text.ok()) << text.status();
  return MatchExcerpt(text->text, Normalize(text->text), excerpt);
}

TEST(FetchMarksTest, AQuoteFromWebFetchsViewIsFoundOnThePage) {
  EXPECT_EQ(Quote("The review committee (https://example.org/c) found that responsible "
                  "disclosure reduced incidents by forty percent.")
                .kind,
            MatchKind::kFound);
  EXPECT_EQ(Quote("- Incidents fell in every region that adopted the policy.\n- Reporting times "
                  "halved within the first two years.")
                .kind,
            MatchKind::kFound);
}

TEST(FetchMarksTest, WhatIsLeftMustStillBeOnThePageWordForWord) {
  // One word changed besides the marks: not found, and the mismatch tells
  // where the words diverge, not where the marks were.
  ExcerptMatch m = Quote(
      "The review committee (https://example.org/c) found that responsible disclosure "
      "increased incidents by forty percent.");
  EXPECT_EQ(m.kind, MatchKind::kPartial);
  EXPECT_EQ(m.matched_prefix, "The review committee found that responsible disclosure ");
}

TEST(FetchMarksTest, MarksLeaveNoExcerptShorterThanTheFloor) {
  // Without its link target the quote is "The review committee found" (26
  // code points): below an excerpt's floor, so it is not looked for again.
  EXPECT_NE(
      Quote("The review committee (https://example.org/this/is/a/rather/long/path) found").kind,
      MatchKind::kFound);
}

}  // namespace
}  // namespace raw::raven::web
