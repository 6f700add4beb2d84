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

}  // namespace
}  // namespace raw::raven
