#include "daemon/raven/web/page_content.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

using ::testing::HasSubstr;

TEST(RavenPageContentTest, HonoursTheHeaderCharsetThenTheBom) {
  absl::StatusOr<PageContent> latin = DecodePage("text/plain; charset=ISO-8859-1", "na\xEFve");
  ASSERT_TRUE(latin.ok());
  EXPECT_EQ(latin->text.text, "na\u00EFve");
  absl::StatusOr<PageContent> bom =
      DecodePage("text/html; charset=iso-8859-1", "\xEF\xBB\xBF<p>na\xC3\xAFve</p>");
  ASSERT_TRUE(bom.ok());
  EXPECT_EQ(bom->text.text, "na\u00EFve");
}

// Labels are decoded as browsers decode them: a page that says Latin-1 or
// ASCII but uses windows-1252 quotes and dashes reads as its author wrote it.
TEST(RavenPageContentTest, LatinAndAsciiLabelsAreDecodedAsWindows1252) {
  for (const char* label : {"iso-8859-1", "us-ascii", "latin1", "ASCII"}) {
    absl::StatusOr<PageContent> p = DecodePage(std::string("text/html; charset=") + label,
                                               "<p>It\x92s \x93so\x94 \x96 yes</p>");
    ASSERT_TRUE(p.ok()) << label << ": " << p.status();
    EXPECT_EQ(p->text.text, "It\u2019s \u201Cso\u201D \u2013 yes") << label;
  }
  absl::StatusOr<PageContent> meta =
      DecodePage("text/html", "<meta charset=\"iso-8859-1\"><p>It\x92s</p>");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->text.text, "It\u2019s");
}

// A <meta> that says UTF-16 on a page whose markup was readable as ASCII is
// wrong (HTML's prescan reads it as UTF-8); a header that says UTF-16 with
// no byte-order mark loses no character.
TEST(RavenPageContentTest, Utf16IsTrustedOnlyWhereItCanBeTrue) {
  absl::StatusOr<PageContent> meta =
      DecodePage("text/html", "<meta charset=\"utf-16\"><p>Hello world</p>");
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(meta->text.text, "Hello world");
  absl::StatusOr<PageContent> le =
      DecodePage("text/plain; charset=utf-16le", std::string("h\0i\0", 4));
  ASSERT_TRUE(le.ok()) << le.status();
  EXPECT_EQ(le->text.text, "hi");
  absl::StatusOr<PageContent> bom =
      DecodePage("text/plain; charset=utf-16be", std::string("\xFF\xFEh\0i\0", 6));
  ASSERT_TRUE(bom.ok()) << bom.status();
  EXPECT_EQ(bom->text.text, "hi") << "the byte-order mark overrides the header";
}

TEST(RavenPageContentTest, PlainTextIsUsedAsItIs) {
  absl::StatusOr<PageContent> p = DecodePage("text/plain", "line one\n<b>not markup</b>");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->text.text, "line one\n<b>not markup</b>");
}

TEST(RavenPageContentTest, HtmlWithoutAContentTypeIsSniffed) {
  absl::StatusOr<PageContent> p = DecodePage("", "<!DOCTYPE html><p>x &amp; y</p>");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->text.text, "x & y");
}

TEST(RavenPageContentTest, PdfAndBinaryTypesAreUnsupportedNotFailed) {
  absl::StatusOr<PageContent> pdf = DecodePage("application/pdf", "%PDF-1.7 ...");
  ASSERT_FALSE(pdf.ok());
  EXPECT_TRUE(absl::IsUnimplemented(pdf.status()));
  EXPECT_THAT(pdf.status().message(), HasSubstr("PDF"));
  absl::StatusOr<PageContent> image = DecodePage("image/png", "\x89PNG");
  ASSERT_FALSE(image.ok());
  EXPECT_THAT(image.status().message(), HasSubstr("image/png"));
}

TEST(RavenPageContentTest, BlockStatusesAreBlocked) {
  for (int status : {401, 402, 403, 407, 429, 451}) {
    EXPECT_TRUE(BlockReason(status, "", "").has_value()) << status;
  }
  EXPECT_FALSE(BlockReason(404, "<p>Not found</p>", "Not found").has_value());
  EXPECT_FALSE(BlockReason(200, "<p>An article</p>", "An article").has_value());
}

TEST(RavenPageContentTest, DetectsChallengesWallsAndPaywalls) {
  EXPECT_THAT(BlockReason(200,
                          "<html><head><title>Just a moment...</title></head><body>"
                          "<div id='cf-chl-widget'></div></body></html>",
                          "Just a moment..."),
              ::testing::Optional(HasSubstr("challenge")));
  EXPECT_THAT(BlockReason(200, "<div class='consent'>We use cookies. Accept all</div>",
                          "We use cookies to improve your experience. Accept all"),
              ::testing::Optional(HasSubstr("cookie")));
  EXPECT_THAT(BlockReason(200,
                          "<script type='application/ld+json'>{\"@type\":\"NewsArticle\", "
                          "\"isAccessibleForFree\": false}</script><p>Teaser</p>",
                          "Teaser"),
              ::testing::Optional(HasSubstr("paywall")));
  EXPECT_THAT(BlockReason(200, "<p>Subscribe to continue reading</p>",
                          "Subscribe to continue reading"),
              ::testing::Optional(HasSubstr("paywall")));
}

TEST(RavenPageContentTest, ALongArticleWithACookieBannerIsNotAWall) {
  std::string text(5000, 'x');
  text += " We use cookies.";
  EXPECT_FALSE(BlockReason(200, "<p>...</p>", text).has_value());
}

}  // namespace
}  // namespace raw::raven::web
