#include "daemon/raven/web/page_text.h"

#include <string>

#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

std::string TextOf(const std::string& html) {
  absl::StatusOr<PageText> t = ExtractPageText(html);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? t->text : "";
}

TEST(RavenPageTextTest, InlineMarkupAddsNothingAndBlocksOneSeparator) {
  EXPECT_EQ(TextOf("<p>The <b>re</b>sponsible <em>par</em><i>ty</i> was 50<sup>th</sup>.</p>"
                   "<p>Second <a href='/x'>paragraph</a>.</p><div><div><p>Nested</p></div></div>"),
            "The responsible party was 50th.\nSecond paragraph.\nNested");
}

TEST(RavenPageTextTest, BreaksTablesAndListsAtTheirBoundaries) {
  EXPECT_EQ(TextOf("<ul><li>one</li><li>two<br>lines</li></ul>"
                   "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>"),
            "one\ntwo\nlines\na\tb\nc\td");
}

TEST(RavenPageTextTest, DropsScriptsStylesHiddenAndHead) {
  EXPECT_EQ(TextOf("<html><head><title>T</title><style>p{}</style></head><body>"
                   "<script>var x = 'secret';</script><p>Shown</p><p hidden>gone</p>"
                   "<div style='display: none'>gone</div><span aria-hidden='true'>gone</span>"
                   "<noscript>gone</noscript><template><p>gone</p></template></body></html>"),
            "Shown");
}

TEST(RavenPageTextTest, DecodesNamedNumericAndLegacyEntities) {
  EXPECT_EQ(TextOf("<p>AT&amp;T &amp AT&T &copy 2024 &check; &NotEqualTilde; &#8212; &#x2019; "
                   "&nbsp;x</p>"),
            "AT&T & AT&T \u00A9 2024 \u2713 \u2242\u0338 \u2014 \u2019 \u00A0x");
}

TEST(RavenPageTextTest, CollapsesWhiteSpaceExceptInPre) {
  EXPECT_EQ(TextOf("<p>  a \n\n  b\t c </p><pre>x  y\n  z</pre>"), "a b c\nx  y\n  z");
}

TEST(RavenPageTextTest, KeepsCjkWrappedInInlineMarkupContiguous) {
  EXPECT_EQ(TextOf("<p>\u6771\u4EAC<span>\u90FD</span>\u306E<b>\u4EBA\u53E3</b></p>"),
            "\u6771\u4EAC\u90FD\u306E\u4EBA\u53E3");
}

TEST(RavenPageTextTest, MapsTextBackToThePage) {
  std::string html = "<p>alpha</p><p>beta &amp; gamma</p>";
  absl::StatusOr<PageText> t = ExtractPageText(html);
  ASSERT_TRUE(t.ok());
  size_t beta = t->text.find("beta");
  EXPECT_EQ(html.substr(t->PageOffset(beta), 4), "beta");
  EXPECT_EQ(html.substr(t->PageOffset(0), 5), "alpha");
}

// Found by raven_page_fuzz: text trimmed off the end left a segment that
// pointed past it.
TEST(RavenPageTextTest, NoSegmentPointsPastTheTrimmedText) {
  for (const std::string& html :
       {std::string("<p>Cookies <button>x</button></p><p> \n\t </p><b>  </b>"),
        std::string("<p>C") + std::string(100, '\0') + "ookies <butl<odi> l\x01<t"}) {
    absl::StatusOr<PageText> t = ExtractPageText(html);
    ASSERT_TRUE(t.ok());
    for (const TextSegment& s : t->segments) EXPECT_LE(s.text_offset, t->text.size()) << html;
  }
}

TEST(RavenPageTextTest, RefusesPagesNestedTooDeep) {
  std::string html;
  for (size_t i = 0; i < kMaxDepth + 10; ++i) html += "<div>";
  absl::StatusOr<PageText> t = ExtractPageText(html);
  EXPECT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("nests"), std::string::npos);
}

TEST(RavenPageTextTest, RefusesATagWithTooManyAttributes) {
  // Both parsers would compare each name with every earlier one.
  std::string html = "<p";
  for (size_t i = 0; i < 100000; ++i) html += " a" + std::to_string(i);
  html += ">text</p>";
  absl::StatusOr<PageText> t = ExtractPageText(html);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("more than 256 attributes"), std::string::npos);
  // Even when the streaming parser gave up earlier, for another reason.
  t = ExtractPageText("<svg></svg>" + html);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("more than 256 attributes"), std::string::npos);
  // A tag with many attributes, within the limit, is read.
  std::string many = "<p";
  for (size_t i = 0; i < kMaxAttributes - 1; ++i) many += " a" + std::to_string(i);
  EXPECT_TRUE(ExtractPageText(many + ">text</p>").ok());
}

}  // namespace
}  // namespace raw::raven::web
