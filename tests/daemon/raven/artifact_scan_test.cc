// How an Artifact's Markdown is cut into code, hidden markup and prose, and
// which URLs it links.
#include "daemon/raven/artifact_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace raw::raven {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// `text`'s Parts, one a line: "c" code, "h" hidden, "r" raw HTML (or "-"
// for plain prose), a space and the Part's text.
std::vector<std::string> PartKinds(std::string_view text) {
  std::vector<std::string> out;
  for (const Part& p : SplitArtifact(text)) {
    std::string kind =
        std::string(p.code ? "c" : "") + (p.hidden ? "h" : "") + (p.raw_html ? "r" : "");
    out.push_back((kind.empty() ? "-" : kind) + " " + std::string(p.text));
  }
  return out;
}

TEST(ArtifactScanTest, CodeIsFencesAndSpansEveryRendererReadsAlike) {
  EXPECT_THAT(PartKinds("A `x` b\n```\nc\n```\nd"),
              ElementsAre("- A ", "c `x`", "-  b\n", "c ```\nc\n```\n", "- d"));
  // A run left open on its line could close on a later one: its paragraph
  // holds no code.
  EXPECT_THAT(PartKinds("A `x` ` b\n`c`"), ElementsAre("- A `x` ` b\n`c`"));
  // Raw HTML and link destinations take the backticks they hold.
  EXPECT_THAT(PartKinds("<b title=\"`\">x</b> `y`"),
              ElementsAre("hr <b title=\"`\">", "r x", "hr </b>", "r  `y`"));
  EXPECT_THAT(PartKinds("[t](/x \"`\") `y`"), ElementsAre("- [t](/x \"`\") `y`"));
  // A fence a reader's renderer may not read as one ends the reading of
  // fences: what follows is prose.
  EXPECT_THAT(PartKinds("> ```\n```\nx\n```"), ElementsAre("- > ```\n```\nx\n```"));
  EXPECT_THAT(PartKinds("<div>\n```\nx\n```"), ElementsAre("hr <div>", "r \n```\nx\n```"));
}

TEST(ArtifactScanTest, CommentsAndTagsAreHidden) {
  EXPECT_THAT(PartKinds("a <!-- [@x] --> b"), ElementsAre("r a ", "hr <!-- [@x] -->", "r  b"));
  EXPECT_THAT(PartKinds("a <!--> b"), ElementsAre("r a ", "hr <!-->", "r  b"));
  EXPECT_THAT(PartKinds("a <!-- x --!> b -->"), ElementsAre("r a ", "hr <!-- x --!>", "r  b -->"));
  // Inline, a tag the text ends before is text; in an HTML block a browser
  // reads on, so everything after it is hidden markup.
  EXPECT_THAT(PartKinds("a <b c"), ElementsAre("r a <b c"));
  EXPECT_THAT(PartKinds("<div title='\n\n`x` y"), ElementsAre("hr <div title='\n\n`x` y"));
  // An element that hides what it holds hides the rest.
  EXPECT_THAT(PartKinds("a <span hidden>b</span>\n\nc `d`"),
              ElementsAre("r a ", "hr <span hidden>b</span>\n", "h \nc ", "ch `d`"));
}

TEST(ArtifactScanTest, LinkedUrlsReadsTextAndRawHtmlAsTheyAreOpened) {
  EXPECT_THAT(LinkedUrls("See `https://example.test/` and\n```\nhttps://example.test/\n```"),
              IsEmpty());
  EXPECT_THAT(LinkedUrls("www.a.test and Https://b.test/x."),
              ElementsAre("Https://b.test/x", "www.a.test"));
  // "\\\\" is an escaped backslash: one, which a browser reads as a slash.
  EXPECT_THAT(LinkedUrls("[r]:\n  <\\\\c.test/x>"), IsEmpty());
  EXPECT_THAT(LinkedUrls("[r]:\n  <\\\\\\\\c.test/x>"), ElementsAre("//c.test/x"));
  EXPECT_THAT(LinkedUrls("<img srcset=\"a.png 1x, //d.test/b.png 2x\">"),
              ElementsAre("//d.test/b.png"));
  EXPECT_THAT(LinkedUrls("<a href=\"h&#x0000074;tps&colon;&sol;&sol;e.test/\">x</a>"),
              ElementsAre("https://e.test/"));
}

}  // namespace
}  // namespace raw::raven
