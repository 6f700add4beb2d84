#include "common/image_sniff.h"

#include <gtest/gtest.h>

#include "tests/support/test_images.h"

namespace raw {
namespace {

using test_images::GifBytes;
using test_images::JpegBytes;
using test_images::PngBytes;
using test_images::WebpBytes;

void ExpectImage(const std::string& bytes, std::string_view mime, int64_t w, int64_t h) {
  std::optional<ImageFacts> facts = SniffImage(bytes);
  ASSERT_TRUE(facts.has_value()) << mime;
  EXPECT_EQ(facts->mime_type, mime);
  EXPECT_EQ(facts->width, w) << mime;
  EXPECT_EQ(facts->height, h) << mime;
}

TEST(ImageSniffTest, EachFormatIsKnownByItsBytesWithItsSize) {
  ExpectImage(PngBytes(800, 600), "image/png", 800, 600);
  ExpectImage(JpegBytes(1920, 1080), "image/jpeg", 1920, 1080);
  ExpectImage(GifBytes(32, 16), "image/gif", 32, 16);
  ExpectImage(WebpBytes(4000, 3000), "image/webp", 4000, 3000);
}

TEST(ImageSniffTest, LossyAndLosslessWebpHeadersGiveTheirSize) {
  // VP8 (lossy): frame tag, start code, 14-bit sizes.
  std::string lossy("RIFF\0\0\0\0WEBPVP8 \0\0\0\0", 20);
  lossy += std::string("\x00\x00\x00\x9d\x01\x2a", 6);
  lossy += std::string("\x40\x01\xf0\x00", 4);  // 320 x 240
  lossy.resize(40, '\0');
  ExpectImage(lossy, "image/webp", 320, 240);
  // VP8L (lossless): signature 0x2f, then width-1 and height-1 in 14 bits.
  std::string lossless = std::string("RIFF\0\0\0\0WEBPVP8L\0\0\0\0", 20);
  const uint32_t bits = (100 - 1) | (50 - 1) << 14;
  lossless.push_back('\x2f');
  for (int shift = 0; shift < 32; shift += 8) lossless.push_back(static_cast<char>(bits >> shift));
  lossless.resize(40, '\0');
  ExpectImage(lossless, "image/webp", 100, 50);
}

TEST(ImageSniffTest, AHeaderCutShortKnowsTheTypeButNotTheSize) {
  ExpectImage(PngBytes(10, 10).substr(0, 12), "image/png", 0, 0);
  ExpectImage(JpegBytes(10, 10).substr(0, 30), "image/jpeg", 0, 0);
  ExpectImage("GIF87a", "image/gif", 0, 0);
}

TEST(ImageSniffTest, OtherBytesAreNoImage) {
  EXPECT_FALSE(SniffImage(""));
  EXPECT_FALSE(SniffImage("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>x()</script></svg>"));
  EXPECT_FALSE(SniffImage(std::string("BM6\0\0\0", 6)));  // BMP: not every provider takes it
  EXPECT_FALSE(SniffImage(std::string("RIFF\0\0\0\0WAVEfmt ", 16)));
  EXPECT_FALSE(SniffImage(std::string("\x89PNX\r\n\x1a\n", 8)));
}

TEST(ImageSniffTest, ADamagedJpegSegmentLengthEndsTheWalk) {
  std::string bytes("\xff\xd8\xff\xe0\x00\x01", 6);  // a length below 2
  bytes += std::string(64, '\xff');
  ExpectImage(bytes, "image/jpeg", 0, 0);
  std::string endless("\xff\xd8", 2);
  endless += std::string(1000, '\xff');  // fill bytes only
  ExpectImage(endless, "image/jpeg", 0, 0);
}

}  // namespace
}  // namespace raw
