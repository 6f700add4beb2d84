#include "daemon/raven/web/excerpt_match.h"

#include <iostream>
#include <string>
#include <vector>

#include "daemon/raven/web/page_content.h"
#include "daemon/raven/web/page_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

using ::testing::HasSubstr;

ExcerptMatch Match(const std::string& html, const std::string& excerpt) {
  absl::StatusOr<PageText> t = ExtractPageText(html);
  EXPECT_TRUE(t.ok()) << t.status();
  NormalizedText key = Normalize(t->text);
  return MatchExcerpt(t->text, key, excerpt);
}

// Real-world-shaped pages: each with an excerpt copied as a reader sees it
// (honest) and the same excerpt with one word changed (doctored).
struct Fixture {
  const char* name;
  std::string html;
  std::string honest;
  std::string doctored;
};

std::vector<Fixture> Fixtures() {
  return {
      {"nested inline markup",
       "<article><h1>Report</h1><p>The <a href='/c'><b>committee</b></a> found that "
       "<span class='x'><em>re</em>sponsible</span> disclosure <strong>reduced</strong> incidents "
       "by 40%.</p></article>",
       "The committee found that responsible disclosure reduced incidents by 40%.",
       "The committee found that responsible disclosure increased incidents by 40%."},
      {"entities and NBSP",
       "<p>Revenue rose to &euro;1,000&nbsp;million in Q3&nbsp;2024 &mdash; AT&amp;T &amp "
       "partners said.</p>",
       "Revenue rose to \u20AC1,000 million in Q3 2024 \u2014 AT&T & partners said.",
       "Revenue rose to \u20AC1,000 billion in Q3 2024 \u2014 AT&T & partners said."},
      {"curly quotes against straight ones",
       "<blockquote><p>\u201CWe don\u2019t expect a recession,\u201D the minister said.</p>"
       "</blockquote>",
       "\"We don't expect a recession,\" the minister said.",
       "\"We do expect a recession,\" the minister said."},
      {"soft hyphens and zero-width spaces",
       "<p>Inter\u00ADnational co\u00ADoper\u00ADation re\u200Bmains es\u00ADsen\u00ADtial for "
       "climate policy.</p>",
       "International cooperation remains essential for climate policy.",
       "International cooperation remains optional for climate policy."},
      {"excerpt split across em and br",
       "<p>The results were <em>statistically</em><br>significant in every cohort we "
       "examined.</p>",
       "The results were statistically significant in every cohort we examined.",
       "The results were statistically insignificant in every cohort we examined."},
      {"excerpt across two paragraphs",
       "<div><p>Phase one ended in March.</p><p>Phase two began in April.</p></div>",
       "Phase one ended in March. Phase two began in April.",
       "Phase one ended in March. Phase two began in May."},
      {"CJK wrapped in inline markup",
       "<p>\u6771\u4EAC<span>\u90FD</span>\u306E<b>\u4EBA\u53E3</b>\u306F\u7D04\u5343\u56DB\u767E"
       "\u4E07\u4EBA\u3067\u3059\u3002</p>",
       "\u6771\u4EAC\u90FD\u306E\u4EBA\u53E3\u306F\u7D04\u5343\u56DB\u767E\u4E07\u4EBA\u3067\u3059",
       "\u6771\u4EAC\u90FD\u306E\u4EBA\u53E3\u306F\u7D04\u5343\u4E94\u767E\u4E07\u4EBA\u3067\u3059"},
      {"table cells",
       "<table><tr><td>Country</td><td>Population</td></tr><tr><td>Iceland</td><td>387,758</td>"
       "</tr></table>",
       "Iceland 387,758", "Iceland 387.758"},
      {"ellipsis and dashes",
       "<p>Wait\u2026 the 2019\u20132020 season \u2212 they said \u2014 was cancelled.</p>",
       "Wait... the 2019-2020 season - they said - was cancelled.",
       "Wait... the 2019-2021 season - they said - was cancelled."},
  };
}

TEST(RavenExcerptMatchTest, HonestExcerptsPassAndDoctoredOnesDoNot) {
  int honest_found = 0, doctored_rejected = 0;
  std::vector<Fixture> fixtures = Fixtures();
  for (const Fixture& f : fixtures) {
    ExcerptMatch honest = Match(f.html, f.honest);
    ExcerptMatch doctored = Match(f.html, f.doctored);
    EXPECT_EQ(honest.kind, MatchKind::kFound) << f.name;
    EXPECT_NE(doctored.kind, MatchKind::kFound) << f.name;
    honest_found += honest.kind == MatchKind::kFound;
    doctored_rejected += doctored.kind != MatchKind::kFound;
  }
  std::cout << "[raven fixtures] honest-excerpt acceptance " << honest_found << "/"
            << fixtures.size() << ", doctored-excerpt rejection " << doctored_rejected << "/"
            << fixtures.size() << "\n";
}

TEST(RavenExcerptMatchTest, FoundReportsThePageRange) {
  std::string html = "<p>Alpha beta <b>gamma</b> delta.</p>";
  absl::StatusOr<PageText> t = ExtractPageText(html);
  ASSERT_TRUE(t.ok());
  ExcerptMatch m = MatchExcerpt(t->text, Normalize(t->text), "BETA gamma");
  ASSERT_EQ(m.kind, MatchKind::kFound);
  EXPECT_EQ(t->text.substr(m.text_begin, m.text_end - m.text_begin), "beta gamma");
}

TEST(RavenExcerptMatchTest, OneChangedWordIsAPartialDivergenceWithPrefixAndPassage) {
  ExcerptMatch m = Match(Fixtures()[0].html, Fixtures()[0].doctored);
  ASSERT_EQ(m.kind, MatchKind::kPartial);
  EXPECT_EQ(m.matched_prefix, "The committee found that responsible disclosure ");
  EXPECT_THAT(m.nearest_passage, HasSubstr("responsible disclosure reduced incidents"));
  EXPECT_THAT(DescribeMismatch(m), HasSubstr("partial divergence"));
}

TEST(RavenExcerptMatchTest, AChangedFirstWordIsStillPartialThroughTheSuffix) {
  ExcerptMatch m = Match(Fixtures()[0].html,
                         "A committee found that responsible disclosure reduced incidents by 40%.");
  EXPECT_EQ(m.kind, MatchKind::kPartial);
  EXPECT_THAT(m.nearest_passage, HasSubstr("committee found that"));
}

// However short the matching stretch is against the whole excerpt, a
// divergence after a real start is an anchor defect, reported with the
// prefix and the passage to repair it from, never as a fabrication.
TEST(RavenExcerptMatchTest, ALongExcerptWithAShortMatchingStartIsPartial) {
  ExcerptMatch m = Match(Fixtures()[0].html,
                         "The committee found that the board should publish every audit report it "
                         "receives within a month of filing.");
  ASSERT_EQ(m.kind, MatchKind::kPartial);
  EXPECT_EQ(m.matched_prefix, "The committee found that ");
  EXPECT_THAT(m.nearest_passage, HasSubstr("committee found that responsible disclosure"));
  const std::string described = DescribeMismatch(m);
  EXPECT_THAT(described, HasSubstr("partial divergence"));
  EXPECT_THAT(described, HasSubstr("only as far as \"The committee found that \""));
  EXPECT_THAT(described, HasSubstr("the nearest passage on the page reads \"The committee found "
                                   "that responsible disclosure"));
}

TEST(RavenExcerptMatchTest, AStartShorterThanSixteenCharactersIsNoMatch) {
  // "The committee " (14 characters) is on the page; nothing longer is.
  ExcerptMatch m = Match(Fixtures()[0].html,
                         "The committee of auditors disputed each finding in its annual review.");
  EXPECT_EQ(m.kind, MatchKind::kAbsent);
  EXPECT_THAT(DescribeMismatch(m), HasSubstr("not even its first or last 16 characters occur"));
}

TEST(RavenExcerptMatchTest, AnInventedQuotationIsAbsent) {
  ExcerptMatch m = Match(Fixtures()[0].html,
                         "Independent auditors confirmed the savings exceeded two billion dollars.");
  EXPECT_EQ(m.kind, MatchKind::kAbsent);
  EXPECT_THAT(DescribeMismatch(m), HasSubstr("absent from the page entirely"));
}

TEST(RavenExcerptMatchTest, TheLongestStretchIsFoundAmongManyThatStartAlike) {
  // Many places share the excerpt's first and last eight bytes; the longest
  // prefix is the third paragraph's, the longest suffix the first's.
  std::string html;
  for (int i = 0; i < 50; ++i) html += "<p>the court held that nothing applies here</p>";
  html += "<p>the court held that the statute applies to all contracts</p>"
          "<p>the court held that the statute applies to some, but the rule applies only to sales</p>"
          "<p>a ruling says it applies only to sales</p>";
  ExcerptMatch m = Match(html, "the court held that the statute applies to every contract it applies only to sales");
  ASSERT_EQ(m.kind, MatchKind::kPartial);
  EXPECT_EQ(m.matched_prefix, "the court held that the statute applies to ");
  EXPECT_THAT(m.nearest_passage, HasSubstr("the statute applies to all contracts"));

  ExcerptMatch s = Match(html, "a court never said anything about it, and the rule applies only to sales");
  ASSERT_EQ(s.kind, MatchKind::kPartial);
  EXPECT_THAT(s.nearest_passage, HasSubstr("but the rule applies only to sales"));
}

// A quote that starts or ends inside a word or number says something the
// page does not: "1,000" is not "21,000", "effective" is not "ineffective".
TEST(RavenExcerptMatchTest, AnExcerptCuttingAWordOrNumberIsNotFound) {
  const std::string evacuated =
      "<p>Officials said 21,000 residents were evacuated from the coastal towns before the "
      "storm.</p>";
  ExcerptMatch number = Match(evacuated, "1,000 residents were evacuated from the coastal towns");
  EXPECT_EQ(number.kind, MatchKind::kPartial);
  EXPECT_TRUE(number.cuts_word);
  EXPECT_THAT(number.nearest_passage, HasSubstr("21,000 residents"));
  EXPECT_THAT(DescribeMismatch(number), HasSubstr("inside a longer word or number"));
  EXPECT_EQ(Match(evacuated, "21,000 residents were evacuated from the coastal towns").kind,
            MatchKind::kFound);

  const std::string antibiotics =
      "<p>Antibiotics are ineffective against viral infections of the upper respiratory tract "
      "in adults.</p>";
  EXPECT_EQ(
      Match(antibiotics, "effective against viral infections of the upper respiratory tract").kind,
      MatchKind::kPartial);
  EXPECT_EQ(
      Match(antibiotics, "are ineffective against viral infections of the upper respiratory").kind,
      MatchKind::kFound);
  // The end too: "adult" is not "adults".
  EXPECT_EQ(
      Match(antibiotics, "against viral infections of the upper respiratory tract in adult").kind,
      MatchKind::kPartial);
  // Nor a base letter without its accent.
  EXPECT_EQ(Match("<p>They met at the old caf\u00E9 near the station every morning.</p>",
                  "They met at the old cafe")
                .kind,
            MatchKind::kPartial);
}

TEST(RavenExcerptMatchTest, ALaterWholeWordOccurrenceIsFound) {
  ExcerptMatch m = Match(
      "<p>In May 21,000 residents were evacuated from the coastal towns; in June 1,000 residents "
      "were evacuated from the coastal towns.</p>",
      "1,000 residents were evacuated from the coastal towns");
  ASSERT_EQ(m.kind, MatchKind::kFound);
  EXPECT_EQ(m.text_begin,
            std::string("In May 21,000 residents were evacuated from the coastal towns; in June ")
                .size());
}

TEST(RavenExcerptMatchTest, ScriptsWithoutSpacesMatchAnywhere) {
  EXPECT_EQ(Match("<p>\u4ECA\u5E74\u7684\u7814\u7A76\u8868\u660E\u6C14\u5019\u53D8\u5316"
                  "\u52A0\u5FEB\u4E86\u3002</p>",
                  "\u7684\u7814\u7A76\u8868\u660E\u6C14\u5019")
                .kind,
            MatchKind::kFound);
}

// Pages and excerpts that repeat themselves cost the search linear work:
// a search restarting at each place the excerpt's start occurs makes
// (page x excerpt) comparisons on them.
TEST(RavenExcerptMatchTest, TheSearchIsLinearOnRepetitivePages) {
  std::string page;
  while (page.size() < (1u << 18)) page += "ab";
  std::string excerpt;
  while (excerpt.size() < 20000) excerpt += "ab";
  excerpt += "c";
  const NormalizedText key = Normalize(page);
  ExcerptMatch m = MatchExcerpt(page, key, excerpt);
  EXPECT_EQ(m.kind, MatchKind::kPartial);
  EXPECT_EQ(m.matched_prefix, excerpt.substr(0, 20000));
  EXPECT_LE(m.steps, 6 * (page.size() + excerpt.size()));

  // Every place holds the whole excerpt, each inside a longer word.
  const std::string letters(1u << 20, 'a');
  const std::string run(20000, 'a');
  ExcerptMatch inside = MatchExcerpt(letters, Normalize(letters), run);
  EXPECT_EQ(inside.kind, MatchKind::kPartial);
  EXPECT_TRUE(inside.cuts_word);
  EXPECT_LE(inside.steps, 6 * (letters.size() + run.size()));

  // The same run as a word of its own, at the end of the page.
  const std::string ended = letters + " " + run;
  ExcerptMatch found = MatchExcerpt(ended, Normalize(ended), run);
  ASSERT_EQ(found.kind, MatchKind::kFound);
  EXPECT_EQ(found.text_begin, letters.size() + 1);
  EXPECT_LE(found.steps, 6 * (ended.size() + run.size()));
}

TEST(RavenExcerptMatchTest, AnEmptyExcerptIsAbsent) {
  EXPECT_EQ(Match("<p>text</p>", " \u200B ").kind, MatchKind::kAbsent);
}

TEST(RavenExcerptMatchTest, ALegacyCharsetPageMatchesAfterConversion) {
  // windows-1252, declared only in <meta>: curly apostrophe 0x92, e-acute 0xE9.
  std::string body =
      "<html><head><meta charset=\"windows-1252\"></head><body><p>It\x92s a caf\xE9 "
      "institution.</p></body></html>";
  absl::StatusOr<PageContent> page = DecodePage("text/html", body);
  ASSERT_TRUE(page.ok()) << page.status();
  const std::string& text = page->text.text;
  EXPECT_EQ(MatchExcerpt(text, Normalize(text), "It's a caf\u00E9 institution.").kind,
            MatchKind::kFound);
}

}  // namespace
}  // namespace raw::raven::web
