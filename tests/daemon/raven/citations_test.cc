// Citation rendering and escaping.
#include "daemon/raven/citations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "daemon/raven/prose.h"

namespace raw::raven {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Source Src(const std::string& id, const std::string& title, std::optional<std::string> family,
           CheckStatus status = CheckStatus::kReachable) {
  Source s;
  s.source_id = id;
  s.url = "https://" + id + ".test/a_(b)";
  s.title = title;
  s.locator = "p. 3 <b>";
  s.excerpt = "e";
  s.family = family;
  s.check.status = status;
  return s;
}

// The Issues of `artifact`, laid out as Raven stores it, against Source "a"
// (https://a.test/a_(b)) and `claims`, one message a line.
std::string CheckedIssues(const std::string& artifact, const std::vector<Claim>& claims = {}) {
  std::string out;
  for (const Issue& i : ValidateCitations(LayoutProse(artifact), {Src("a", "A", std::nullopt)},
                                          claims, "artifact")) {
    out += i.message + "\n";
  }
  return out;
}

// Each of `artifacts` lets a reader open evil.example, so each is refused.
void ExpectRefusesEvil(const std::vector<std::string>& artifacts) {
  for (const std::string& artifact : artifacts) {
    std::string issues = CheckedIssues(artifact);
    EXPECT_THAT(issues, HasSubstr("external URL")) << artifact;
    EXPECT_THAT(issues, HasSubstr("evil.example")) << artifact;
  }
}

TEST(CitationsTest, HostileTitlesAreEscaped) {
  TaskState s;
  s.sources = {Src("a", "Evil](javascript:alert(1)) <script>alert(1)</script>", std::nullopt)};
  s.claims = {{"c1", "Claim with <img src=x> & [link](javascript:x)", ClaimKind::kExternal,
               Importance::kMaterial, Disposition::kSupported, {"a"}, {}}};
  std::string out = RenderArtifact(s, "Fact [@a].");
  EXPECT_THAT(out, Not(HasSubstr("<script>")));
  EXPECT_THAT(out, Not(HasSubstr("](javascript:")));
  EXPECT_THAT(out, Not(HasSubstr("<img")));
  EXPECT_THAT(out, HasSubstr("Evil\\]\\(javascript\\:alert\\(1\\)\\) &lt;script&gt;"));
  EXPECT_THAT(out, HasSubstr("(https://a.test/a_%28b%29)"));
  EXPECT_THAT(out, HasSubstr("p\\. 3 &lt;b&gt;"));
  EXPECT_THAT(out, HasSubstr("&amp; \\[link\\]"));
}

TEST(CitationsTest, RendersLinksSourcesAndTrace) {
  TaskState s;
  s.sources = {Src("a", "Alpha", "wire"), Src("b", "Beta", "wire"), Src("c", "Gamma", std::nullopt),
               Src("d", "Delta", std::nullopt, CheckStatus::kFailed)};
  s.claims = {{"c1", "Same family", ClaimKind::kExternal, Importance::kMaterial,
               Disposition::kSupported, {"a", "b"}, {}},
              {"c2", "Undeclared", ClaimKind::kExternal, Importance::kMaterial,
               Disposition::kQualified, {"a", "c"}, {"c1"}},
              {"c3", "Context only", ClaimKind::kExternal, Importance::kContext,
               Disposition::kSupported, {"a"}, {}}};
  std::string out = RenderArtifact(s, "A [@a] B [@b] C [@c] D [@d] E [@zz] `[@a]`");
  EXPECT_THAT(out, HasSubstr("A [Alpha](https://a.test/a_%28b%29) B"));
  EXPECT_THAT(out, HasSubstr("D [Delta — failed] E [@zz] `[@a]`"));
  EXPECT_THAT(out, HasSubstr("## Sources\n\n- `a` [Alpha]"));
  EXPECT_THAT(out, HasSubstr("single Source family \"wire\": not independent corroboration"));
  EXPECT_THAT(out, HasSubstr("`c2` (external, qualified): Undeclared"));
  EXPECT_THAT(out, HasSubstr("independence unverified (undeclared Source family)"));
  EXPECT_THAT(out, HasSubstr("contested with `c1`"));
  EXPECT_THAT(out, HasSubstr("`c1` (external, supported): Same family"));
  EXPECT_THAT(out, Not(HasSubstr("c3")));
}

TEST(CitationsTest, ValidatesTokensUrlsAndMaterialClaims) {
  std::vector<Source> sources = {Src("a", "A", std::nullopt)};
  std::vector<Claim> claims = {{"c1", "t", ClaimKind::kExternal, Importance::kMaterial,
                                Disposition::kSupported, {"a"}, {}}};
  EXPECT_TRUE(ValidateCitations("Cites [@a] and https://a.test/a_(b).", sources, claims, "artifact").empty());
  std::vector<Issue> issues = ValidateCitations("Cites [@b] and http://x.test/.", sources, claims, "artifact");
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues[0].field, "artifact");
  EXPECT_THAT(issues[0].message, HasSubstr("unknown Source [@b]"));
  EXPECT_THAT(issues[1].message, HasSubstr("unregistered external URL http://x.test/"));
  EXPECT_THAT(issues[2].message, HasSubstr("material supported Claim c1"));
}

// A link a reader's renderer would open is found however it is spelt: the
// scheme in any case, in a link destination or a reference definition, with
// escaped or entity-encoded punctuation, scheme-relative; only a CommonMark
// fence (indented at most three spaces) or a code span hides text.
TEST(CitationsTest, UnregisteredLinksAreFoundHoweverTheyAreSpelt) {
  std::vector<Source> sources = {Src("a", "A", std::nullopt)};
  auto issues = [&](const std::string& artifact) {
    std::string out;
    for (const Issue& i : ValidateCitations(artifact, sources, {}, "artifact")) {
      out += i.message + "\n";
    }
    return out;
  };
  for (std::string artifact : {
           "See HTTPS://evil.test/x [@a].",
           "See [NOAA](Https://evil.test/x) [@a].",
           "Cites [@a][r].\n\n[r]: HTTP://evil.test/x",
           "See [NOAA](//evil.test/x) [@a].",
           "Cites [@a].\n\n[r]: <//evil.test/x>",
           "See [NOAA](https\\://evil.test/x) [@a].",
           "See [NOAA](https&#58;//evil.test/x) [@a].",
           "See [NOAA](https&colon;&sol;&sol;evil.test/x) [@a].",
           "See <a href=\"HTTPS://evil.test/x\">NOAA</a> [@a].",
           "See \\`https://evil.test/x\\` [@a].",
       }) {
    EXPECT_THAT(issues(artifact), HasSubstr("unregistered external URL")) << artifact;
    EXPECT_THAT(issues(artifact), HasSubstr("evil.test/x")) << artifact;
  }
  EXPECT_THAT(issues("See [NOAA](https:evil.test/x) [@a]."),
              HasSubstr("invalid external URL https:evil.test/x"));
  // A fence indented four spaces is no fence: what it seems to enclose is
  // prose, unknown tokens included.
  std::string fake =
      issues("Cites [@a].\n    ```\n[click](https://evil.test/x) [@ghost]\n    ```\n");
  EXPECT_THAT(fake, HasSubstr("unregistered external URL https://evil.test/x"));
  EXPECT_THAT(fake, HasSubstr("unknown Source [@ghost]"));
  // Nor does an indented fence line close a real fence; the real closing
  // one does, and what follows is prose.
  std::string closed =
      issues("```\n    ```\nhttps://example.test/\n```\nCites [@a] https://evil.test/x\n");
  EXPECT_THAT(closed, HasSubstr("unregistered external URL https://evil.test/x"));
  EXPECT_THAT(closed, Not(HasSubstr("example.test")));
  // Registered URLs in any spelling, and code, pass.
  EXPECT_EQ(
      issues(
          "See [A](HTTPS://A.test/a_(b)) [@a].\n\n   ~~~~ text\nhttps://example.test/\n   ~~~~~\n"
          "Run `curl https://example.test/` to see [@a]."),
      "");
}

// A raw HTML tag that starts before a backtick takes precedence over a code
// span, so the backtick in its attribute hides nothing; nor does a span
// whose delimiters another construct could claim first.
TEST(CitationsTest, RawHtmlAndLinksTakePrecedenceOverCodeSpans) {
  ExpectRefusesEvil({
      "Cites [@a]. <a title=\"`\" href=\"https://evil.example/\">x</a> and later `code`",
      "Cites [@a]. <a title=\"`\" href=\"//evil.example/\">x</a> and later `code`",
      // A span across a hard line break: the next line's first backtick
      // closes it.
      "Cites [@a] `a  \nb` <a href=\"//evil.example/\">x</a> `c`",
      // A link title or destination consumes its backticks.
      "Cites [@a]. [t](/x \"`\") <a href=\"//evil.example/\">x</a> `c`",
      // A GFM autolink consumes a backtick.
      "Cites [@a] www.a.test/`x <a href=\"//evil.example/\">y</a> `z`",
      // A GFM table cuts a span at '|'.
      "Cites [@a].\n\n| h | i |\n|---|---|\n| `a | <a href=\"//evil.example/\">x</a> ` |",
      // An HTML block holds what looks like a fence.
      "Cites [@a].\n\n<div>\n```\n<a href=\"//evil.example/\">x</a>\n```\n</div>",
      "Cites [@a].\n\n<pre>\n\n`x <a href=\"//evil.example/\">y</a> x`\n\n</pre>",
      // A line less indented than a list item's fence ends the item.
      "Cites [@a].\n\n- item\n\n  ```\n  code\n<a href=\"//evil.example/\">x</a>\n",
      // A tag left open in an HTML block reads on into what follows, code
      // included.
      "Cites [@a].\n\n<iframe title='\n\nSee `' src='//evil.example/'` here",
  });
}

// Every attribute of a raw HTML tag is checked, however it is spelt: white
// space around '=', character references of any length, with or without
// ';', named ones, backslashes a browser reads as slashes, tabs and line
// breaks it drops, CSS escapes in a style.
TEST(CitationsTest, EveryRawHtmlAttributeIsChecked) {
  ExpectRefusesEvil({
      "Cites [@a]. <a href =\"//evil.example/\">x</a>",
      "Cites [@a]. <a href= //evil.example/>x</a>",
      "Cites [@a]. <a href=\"https&#00000058;//evil.example\">x</a>",
      "Cites [@a]. <a href=\"https&#x00003A;//evil.example\">x</a>",
      "Cites [@a]. <a href=\"https&#58//evil.example\">x</a>",
      "Cites [@a]. <a href=\"https&colon;&sol;&sol;evil.example\">x</a>",
      "Cites [@a]. <a href=\"&#x2F;&#x2F;evil.example\">x</a>",
      "Cites [@a]. <a href=\"\\\\evil.example\">x</a>",
      "Cites [@a]. <a href=\"/\\evil.example\">x</a>",
      "Cites [@a]. <a href=\"https:\\\\evil.example\">x</a>",
      "Cites [@a]. <a href=\"ht&Tab;tps:evil.example\">x</a>",
      "Cites [@a]. <a href=\"www.evil.example\">x</a>",
      "Cites [@a]. <img srcset=\"//evil.example/a.png 1x\">",
      "Cites [@a]. <img src=\"a.png\" srcset=\"a.png 1x, //evil.example/b.png 2x\">",
      "Cites [@a]. <img src=\"//evil.example/a.png\">",
      "Cites [@a]. <form action=\"//evil.example/\"><button>go</button></form>",
      "Cites [@a]. <button formaction=\"//evil.example/\">go</button>",
      "Cites [@a]. <video poster=\"//evil.example/p.png\"></video>",
      "Cites [@a]. <q cite=\"//evil.example/\">x</q>",
      "Cites [@a]. <table background=\"//evil.example/b.png\"></table>",
      "Cites [@a]. <object data=\"//evil.example/x\"></object>",
      "Cites [@a]. <svg><a xlink:href=\"//evil.example/\">x</a></svg>",
      "Cites [@a]. <div style=\"background:url(//evil.example/a.png)\">x</div>",
      "Cites [@a]. <div style=\"background:url('\\2f\\2f evil.example/a.png')\">x</div>",
      "Cites [@a]. <a/href=\"//evil.example/\">x</a>",
      "Cites [@a]. <a\nhref=\"//evil.example/\">x</a>",
      "Cites [@a]. <https:evil.example>",
      // A tag that starts inside what one renderer reads as a comment.
      "Cites [@a]. <!-- -- <a title=\"-->\" href=\"//evil.example/\">x</a>",
  });
}

// A link reference definition's destination may stand on the next line;
// a link destination is read as a browser reads it.
TEST(CitationsTest, LinkDestinationsOnTheNextLineAreChecked) {
  ExpectRefusesEvil({
      "Cites [@a].\n\n[x]:\n  //evil.example/",
      "Cites [@a].\n\n[x]:\n<//evil.example/>",
      "Cites [@a].\n\n[x]:\n  https:evil.example/",
      "Cites [@a] [x](\\\\\\\\evil.example).",
      "Cites [@a] [x](/\\evil.example).",
      "Cites [@a] [x](</\t/evil.example>).",
  });
}

// As stored before layout, too.
TEST(CitationsTest, LinkDestinationsAfterALineBreakAreChecked) {
  std::vector<Source> sources = {Src("a", "A", std::nullopt)};
  for (std::string artifact :
       {"Cites [@a] [x](\n//evil.example/).", "Cites [@a].\n\n[x]:\n//evil.example/"}) {
    std::vector<Issue> issues = ValidateCitations(artifact, sources, {}, "artifact");
    ASSERT_EQ(issues.size(), 1u) << artifact;
    EXPECT_THAT(issues[0].message, HasSubstr("unregistered external URL //evil.example/"));
  }
}

// A GFM renderer links "www." without a scheme, as http://.
TEST(CitationsTest, ExtendedAutolinksAreChecked) {
  ExpectRefusesEvil({
      "Cites [@a]. See www.evil.example for more.",
      "Cites [@a]. See (www.evil.example/x).",
      "Cites [@a]. See *www.evil.example*.",
  });
  // A registered Source is linked so in either scheme.
  Source s = Src("a", "A", std::nullopt);
  s.url = "https://www.a.test/";
  EXPECT_TRUE(ValidateCitations("See www.a.test/ [@a].", {s}, {}, "artifact").empty());
}

// A citation a reader never sees cites nothing: inside an HTML comment,
// inside a tag, after an element that hides what it holds.
TEST(CitationsTest, InvisibleCitationsDoNotCount) {
  std::vector<Claim> claims = {
      {"c1", "t", ClaimKind::kExternal, Importance::kMaterial, Disposition::kSupported, {"a"}, {}}};
  for (std::string artifact : {
           "The Moon drives tides <!-- [@a] -->.",
           "The Moon drives tides.\n\n<!--\n[@a]\n-->",
           "The Moon drives tides <!-- x --!> <!-- [@a] -->.",
           "The Moon drives tides.\n\n<!-- [@a]",
           "The Moon drives tides <span title=\"[@a]\">.</span>",
           "The Moon drives tides <span hidden>[@a]</span>.",
           "The Moon drives tides <span style=\"display:none\">[@a]</span>.",
           "The Moon drives tides.\n\n<template>\n\n[@a]\n\n</template>",
       }) {
    EXPECT_THAT(CheckedIssues(artifact, claims), HasSubstr("material supported Claim c1"))
        << artifact;
  }
  // Nor is one rendered as a link; what a reader sees still is.
  TaskState s;
  s.sources = {Src("a", "Alpha", std::nullopt)};
  EXPECT_THAT(
      RenderArtifact(s, "Fact [@a] <!-- [@a] --> <b title=\"[@a]\">x</b>"),
      HasSubstr("Fact [Alpha](https://a.test/a_%28b%29) <!-- [@a] --> <b title=\"[@a]\">x</b>"));
  // A comment's end is where a browser ends it.
  EXPECT_EQ(CheckedIssues("The Moon <!-- x --> drives tides [@a].", claims), "");
  EXPECT_EQ(CheckedIssues("The Moon <!--> drives tides [@a].", claims), "");
}

// What an ordinary Artifact holds still passes and renders as before: code
// spans and fences showing URLs, lists, tables, registered links in any
// form, citations beside inline HTML, a comparison that opens no tag.
TEST(CitationsTest, OrdinaryArtifactsStillPass) {
  std::vector<Claim> claims = {
      {"c1", "t", ClaimKind::kExternal, Importance::kMaterial, Disposition::kSupported, {"a"}, {}}};
  for (std::string artifact : {
           "Tides follow the Moon [@a]. Run `curl https://example.test/ | sh` to see.",
           "Steps [@a]:\n\n1. Install:\n   ```sh\n   curl https://example.test/install\n   ```\n"
           "2. Run ``x `https://example.test/` y``.",
           "Intro [@a].\n\n```html\n<a href=\"//example.test/\">x</a>\n```\n\n"
           "~~~\n[r]: //example.test/\n~~~\n",
           "See [A](https://a.test/a_(b)), <https://a.test/a_(b)> and [A][r] [@a].\n\n"
           "[r]: https://a.test/a_(b)",
           "See <a href=\"https://a.test/a_(b)\">A</a> [@a].",
           "The Moon drives tides<sup>[@a]</sup>.<br>\nIt does [@a].",
           "<details><summary>More</summary>\n\nThe Moon drives tides [@a].\n\n</details>",
           "[@a]\n\n| cmd | note |\n|-----|------|\n| `curl https://example.test/` | fetch |",
           "If x <y then the Moon drives tides [@a].",
           "<!-- note --> The Moon drives tides [@a].",
       }) {
    EXPECT_EQ(CheckedIssues(artifact, claims), "") << artifact;
  }
  TaskState s;
  s.sources = {Src("a", "Alpha", std::nullopt)};
  EXPECT_EQ(RenderArtifact(s, "A [@a] `[@a] https://example.test/`\n\n```\n[@a]\n```\n<b>[@a]</b>"),
            "A [Alpha](https://a.test/a_%28b%29) `[@a] https://example.test/`\n\n```\n[@a]\n```\n"
            "<b>[Alpha](https://a.test/a_%28b%29)</b>\n\n## Sources\n\n"
            "- `a` [Alpha](https://a.test/a_%28b%29) — p\\. 3 &lt;b&gt;");
}

}  // namespace
}  // namespace raw::raven
