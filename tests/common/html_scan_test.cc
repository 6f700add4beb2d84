#include "common/html_scan.h"

#include <string>

#include "gtest/gtest.h"

namespace raw {
namespace {

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(HtmlScanTest, CountsOnlyElementsThatStayOpen) {
  EXPECT_FALSE(ExceedsNestingDepth(Repeat("<div>", 10), 10));
  EXPECT_TRUE(ExceedsNestingDepth(Repeat("<div>", 11), 10));
  // Closed siblings, implicitly closed and void elements do not add up.
  EXPECT_FALSE(ExceedsNestingDepth(Repeat("<div>x</div>", 1000), 10));
  EXPECT_FALSE(ExceedsNestingDepth(Repeat("<p>x", 1000), 10));
  EXPECT_FALSE(ExceedsNestingDepth(Repeat("<li>x<br><img src=a>", 1000), 10));
  // An end tag closes what is inside its element; a stray one closes nothing.
  EXPECT_FALSE(ExceedsNestingDepth("<section>" + Repeat("<span>", 9) + "</section>" +
                                       Repeat("<span>", 9),
                                   10));
  EXPECT_TRUE(ExceedsNestingDepth(Repeat("<div></span>", 11), 10));
  // Markup inside scripts and comments is not markup.
  EXPECT_FALSE(ExceedsNestingDepth("<script>" + Repeat("<div>", 50) + "</SCRIPT>"
                                   "<!--" + Repeat("<div>", 50) + "-->", 10));
  // Self-closing counts only in SVG and MathML.
  EXPECT_FALSE(ExceedsNestingDepth("<svg>" + Repeat("<path d='m0 0'/>", 50) + "</svg>", 10));
  EXPECT_TRUE(ExceedsNestingDepth(Repeat("<div/>", 11), 10));
}

TEST(HtmlScanTest, CountsTheAttributesOfEachTag) {
  EXPECT_FALSE(HasTagWithMoreAttributes("<p a b=1 c='x y' d=\"p q\">" + Repeat("<i x y>", 500), 4));
  EXPECT_TRUE(HasTagWithMoreAttributes("<p a b=1 c='x y' d=\"p q\" e>", 4));
  EXPECT_TRUE(HasTagWithMoreAttributes("<p" + Repeat(" a", 300) + "/>", 256));
  // Comments and raw text hold no tags; a quoted '>' does not end a tag.
  EXPECT_FALSE(HasTagWithMoreAttributes("<!--<p" + Repeat(" a", 300) + ">-->", 256));
  EXPECT_FALSE(HasTagWithMoreAttributes("<script>x='<p" + Repeat(" a", 300) + ">'</script>", 256));
  EXPECT_TRUE(HasTagWithMoreAttributes("<p t='>'" + Repeat(" a", 300) + ">", 256));
}

TEST(HtmlScanTest, StripTagsKeepsTheText) {
  EXPECT_EQ(StripTags("<html><head><style>p{}</style><script>if (a<b) x();</script></head>"
                      "<body><h1>Title</h1><p>Some <b>bold</b>   text &amp; more&#33;"
                      "&#x263A;</p><!-- hidden --><div>next &nbsp; line</div></body></html>"),
            "Title\n\nSome bold text & more!\xE2\x98\xBA\n\nnext line");
  EXPECT_EQ(StripTags("a < b && c > d"), "a < b && c > d");
  EXPECT_EQ(StripTags("<p>unterminated &amp"), "unterminated &amp");
}

}  // namespace
}  // namespace raw
