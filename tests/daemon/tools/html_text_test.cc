#include "daemon/tools/builtin/html_text.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "common/cancel_token.h"
#include "common/time.h"
#include "daemon/raven/normalizer.h"
#include "daemon/raven/web/excerpt_match.h"
#include "daemon/raven/web/page_text.h"
#include "gtest/gtest.h"

namespace raw::tools::builtin {
namespace {

TEST(HtmlTextTest, KeepsTheTitleAndDropsTheRestOfTheHead) {
  EXPECT_EQ(HtmlToText("<html><head><title> The  Page </title><meta charset=utf-8>"
                       "<style>body{color:red}</style><script>var x=1;</script></head>"
                       "<body><p>Hello</p></body></html>"),
            "Title: The Page\n\nHello");
}

TEST(HtmlTextTest, DropsScriptsStylesAndTemplates) {
  EXPECT_EQ(HtmlToText("<body>a<script>alert(1)</script>b<style>p{}</style>c"
                       "<noscript>enable JS</noscript>d<template><p>t</p></template>e"
                       "<svg><text>drawn</text></svg>f</body>"),
            "abcdef");
}

TEST(HtmlTextTest, BlocksBecomeLinesAndParagraphsAreSetOff) {
  EXPECT_EQ(HtmlToText("<div>one</div><div>two</div><p>three</p><p>four<br>five</p>"),
            "one\ntwo\n\nthree\n\nfour\nfive");
}

TEST(HtmlTextTest, HeadingsGetHashes) {
  EXPECT_EQ(HtmlToText("<h1>Top</h1><p>text</p><h3>Deep <em>part</em></h3>"),
            "# Top\n\ntext\n\n### Deep part");
}

TEST(HtmlTextTest, ListItemsGetDashesAndNestedListsIndent) {
  EXPECT_EQ(HtmlToText("<p>Before</p><ul><li>one</li><li>two<ul><li>two.a</li></ul></li>"
                       "</ul><ol><li>first</li></ol><p>After</p>"),
            "Before\n\n- one\n- two\n  - two.a\n\n- first\n\nAfter");
}

TEST(HtmlTextTest, LinksShowTheirTarget) {
  EXPECT_EQ(HtmlToText("<p>See <a href=\"https://example.com/doc\">the docs</a>.</p>"),
            "See the docs (https://example.com/doc).");
  // Fragment-only and javascript: links, links whose text is the URL, and
  // links without text show no target.
  EXPECT_EQ(HtmlToText("<p><a href=\"#top\">up</a> <a href=\"javascript:go()\">go</a> "
                       "<a href=\"https://x.org/\">https://x.org/</a> <a href=\"/y\"></a></p>"),
            "up go https://x.org/");
}

TEST(HtmlTextTest, LinkTargetsGoThroughTheResolver) {
  HtmlTextOptions options;
  options.link_target = [](std::string_view href) {
    return "https://site.test/base/" + std::string(href);
  };
  EXPECT_EQ(HtmlToText("<a href=\"page.html\">next</a>", options),
            "next (https://site.test/base/page.html)");
}

TEST(HtmlTextTest, CollapsesWhitespaceButKeepsPre) {
  EXPECT_EQ(HtmlToText("<p>  lots   of\n\n  space&nbsp;&nbsp;here  </p>"
                       "<pre>  keep\n    this</pre>"),
            "lots of space here\n\n  keep\n    this");
}

TEST(HtmlTextTest, DecodesEntitiesAndShowsImageAltText) {
  EXPECT_EQ(HtmlToText("<p>a &lt; b &amp;&amp; c &gt; d &eacute;</p><img src=x.png alt=\"a cat\">"),
            "a < b && c > d \xC3\xA9\n\n[image: a cat]");
}

TEST(HtmlTextTest, TableCellsAreSeparated) {
  EXPECT_EQ(HtmlToText("<table><tr><th>Name</th><th>Size</th></tr>"
                       "<tr><td>a.cc</td><td>10</td></tr></table>"),
            "Name | Size\na.cc | 10");
}

TEST(HtmlTextTest, ToleratesBrokenMarkupAndEmptyInput) {
  EXPECT_EQ(HtmlToText(""), "");
  EXPECT_EQ(HtmlToText("<p>unclosed <b>bold <i>both</p>after"), "unclosed bold both\n\nafter");
  EXPECT_EQ(HtmlToText("<<<>>> </div></div> text"), "<<<>>> text");
}

TEST(HtmlTextTest, DeepNestingUnderTheLimitIsParsed) {
  std::string html;
  for (int i = 0; i < 900; ++i) html += "<div>";
  html += "<p>deep <b>text</b></p>";
  EXPECT_EQ(HtmlToText(html), "deep text");
}

TEST(HtmlTextTest, HostileNestingIsStrippedInsteadOfParsed) {
  // Two MiB of unclosed <div>s: the parser would need minutes; the fallback
  // takes one linear pass.
  std::string html;
  for (int i = 0; i < 400000; ++i) html += "<div>";
  html += "<h1>still</h1> readable &amp; complete";
  EXPECT_EQ(HtmlToText(html),
            "[the page nests elements more than 1000 deep, so it was not parsed; this is its "
            "text with the markup stripped]\n\nstill\nreadable & complete");
}

TEST(HtmlTextTest, ATagWithHostileManyAttributesIsStrippedInsteadOfParsed) {
  // The parser compares each attribute with every earlier one of its tag:
  // two MiB of attributes would take it minutes.
  std::string html = "<p";
  for (int i = 0; i < 200000; ++i) html += " a" + std::to_string(i);
  html += ">still readable</p>";
  EXPECT_EQ(HtmlToText(html),
            "[the page has a tag with more than 256 attributes, so it was not parsed; this is "
            "its text with the markup stripped]\n\nstill readable");
}

// gumbo has no way to stop, and formatting elements closed across blocks
// make it superlinear: the parse stops at its budget and the page comes back
// as its text with the markup stripped, after a note.
TEST(HtmlTextTest, APageWhoseParseRunsPastItsBudgetIsStripped) {
  std::string html = "<p>start</p>";
  while (html.size() < 100 * 1024) html += "<a><div>x</a>";
  HtmlTextOptions options;
  options.budget.deadline_ns = SteadyNowNs();  // reached at the parser's first look
  std::string text = HtmlToText(html, options);
  EXPECT_EQ(text.rfind("[the page was not parsed (parsing the page (", 0), 0u)
      << text.substr(0, 200);
  EXPECT_NE(text.find("ran past its time and was stopped); this is its text with the markup "
                      "stripped]\n\nstart"),
            std::string::npos)
      << text.substr(0, 300);

  CancelToken cancel;
  cancel.Cancel();
  options.budget = {};
  options.budget.cancel = &cancel;
  EXPECT_EQ(HtmlToText(html, options)
                .rfind("[the page was not parsed (the parse of the page was "
                       "cancelled)",
                       0),
            0u);
  // Within its budget the same kind of page is parsed as before.
  options.budget = {};
  EXPECT_EQ(HtmlToText("<p>one <a>two<div>three</a></div></p>", options), "one two\n\nthree");
}

// Raven checks a Source's excerpt against its page's own text: a line the
// model copies from web_fetch's view of the page, marks and all, is found
// there (daemon/raven/web/excerpt_match.h).
TEST(HtmlTextTest, EveryLineWebFetchShowsIsFoundByTheExcerptCheck) {
  const std::string page =
      "<html><head><title>Review</title></head><body><h2>Findings of the annual review</h2>"
      "<p>The <a href='/committee'>review committee</a> found that <em>responsible</em> "
      "disclosure reduced incidents by forty percent.</p><ul><li>Incidents fell in every region "
      "that adopted the <a href='https://example.org/policy'>disclosure policy</a>.</li>"
      "<li>Reporting times halved within the <b>first</b> two years of the programme.</li></ul>"
      "<table><tr><th>Region of the study</th><th>Incidents before and after</th></tr>"
      "<tr><td>Northern coastal districts</td><td>1,200 before and 700 after</td></tr></table>"
      "</body></html>";
  HtmlTextOptions options;
  options.link_target = [](std::string_view href) {
    return href.starts_with("/") ? "https://example.org" + std::string(href) : std::string(href);
  };
  const std::string shown = HtmlToText(page, options);
  absl::StatusOr<raven::web::PageText> text = raven::web::ExtractPageText(page);
  ASSERT_TRUE(text.ok()) << text.status();
  const raven::NormalizedText key = raven::Normalize(text->text);
  int checked = 0;
  for (absl::string_view line : absl::StrSplit(shown, '\n')) {
    if (line.size() < 40 || absl::StartsWith(line, "Title: ")) continue;
    ++checked;
    EXPECT_EQ(raven::web::MatchExcerpt(text->text, key, std::string(line)).kind,
              raven::web::MatchKind::kFound)
        << line;
  }
  EXPECT_EQ(checked, 5) << shown;
  // Two lines at once too.
  size_t list = shown.find("- Incidents");
  ASSERT_NE(list, std::string::npos) << shown;
  size_t end = shown.find("programme.", list);
  ASSERT_NE(end, std::string::npos) << shown;
  const std::string both = shown.substr(list, end + 10 - list);
  EXPECT_EQ(raven::web::MatchExcerpt(text->text, key, both).kind, raven::web::MatchKind::kFound)
      << both;
}

}  // namespace
}  // namespace raw::tools::builtin
