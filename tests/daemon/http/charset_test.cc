// Charset labels and their conversion to UTF-8, as browsers decode them.
#include "daemon/http/charset.h"

#include <gtest/gtest.h>

namespace raw::http {
namespace {

TEST(CharsetTest, LabelsMapToTheEncodingBrowsersUse) {
  EXPECT_EQ(EncodingForLabel(" ISO-8859-1 "), "windows-1252");
  EXPECT_EQ(EncodingForLabel("us-ascii"), "windows-1252");
  EXPECT_EQ(EncodingForLabel("latin5"), "windows-1254");
  EXPECT_EQ(EncodingForLabel("gb2312"), "gb18030");
  EXPECT_EQ(EncodingForLabel("euc-kr"), "cp949");
  EXPECT_EQ(EncodingForLabel("Shift_JIS"), "cp932");
  EXPECT_EQ(EncodingForLabel("utf-16"), "utf-16le");
  EXPECT_EQ(EncodingForLabel("UTF8"), "utf-8");
  EXPECT_EQ(EncodingForLabel("koi8-r"), "koi8-r") << "others are iconv's to read";
}

TEST(CharsetTest, Windows1252BytesUnderALatin1LabelAreNotC1Controls) {
  absl::StatusOr<std::string> text = ToUtf8("It\x92s \x80", "iso-8859-1");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "It\u2019s \u20AC");
  absl::StatusOr<std::string> ascii = ToUtf8("\x93q\x94", "us-ascii");
  ASSERT_TRUE(ascii.ok());
  EXPECT_EQ(*ascii, "\u201Cq\u201D");
}

TEST(CharsetTest, AMetaUtf16LabelMeansUtf8) {
  EXPECT_EQ(MetaCharset("<meta charset=\"UTF-16\"><p>x</p>"), "utf-8");
  EXPECT_EQ(
      MetaCharset("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-16be\">"),
      "utf-8");
  EXPECT_EQ(MetaCharset("<meta charset='latin1'>"), "latin1");
}

TEST(CharsetTest, AnUnknownCharsetNamesTheLabel) {
  absl::StatusOr<std::string> text = ToUtf8("x", "no-such-charset");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("\"no-such-charset\""), std::string_view::npos);
}

}  // namespace
}  // namespace raw::http
