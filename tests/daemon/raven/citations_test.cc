// Citation rendering and escaping.
#include "daemon/raven/citations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace raw::raven
