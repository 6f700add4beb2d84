#include "daemon/events/image_part.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "tests/support/test_images.h"

namespace raw::events {
namespace {

using raw::test_images::JpegBytes;
using raw::test_images::PngBytes;
using ::testing::HasSubstr;

std::string ErrorOf(const std::vector<ImageUpload>& uploads) {
  absl::StatusOr<std::vector<ImagePart>> images = CheckPromptImages(uploads);
  EXPECT_FALSE(images.ok());
  EXPECT_EQ(images.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(images.status().message());
}

TEST(CheckPromptImagesTest, ImagesAreTypedByTheirBytesAndEncodedOnce) {
  const std::string png = PngBytes(640, 480);
  const std::string jpeg = JpegBytes(10, 20);
  absl::StatusOr<std::vector<ImagePart>> images =
      CheckPromptImages({{"", png}, {"image/jpeg", jpeg}});
  ASSERT_TRUE(images.ok()) << images.status();
  ASSERT_EQ(images->size(), 2u);
  EXPECT_EQ((*images)[0], (ImagePart{"image/png", absl::Base64Escape(png), 640, 480}));
  EXPECT_EQ((*images)[1], (ImagePart{"image/jpeg", absl::Base64Escape(jpeg), 10, 20}));
  EXPECT_EQ(ImageByteSize((*images)[0]), png.size());
  EXPECT_EQ(ImageByteSize((*images)[1]), jpeg.size());
  EXPECT_TRUE(CheckPromptImages({})->empty());
}

TEST(CheckPromptImagesTest, WhatIsNotAnAcceptedImageIsRefusedNamingWhichOne) {
  const std::string png = PngBytes(1, 1);
  EXPECT_THAT(ErrorOf({{"", png}, {"image/svg+xml", "<svg onload='x()'/>"}}),
              HasSubstr("image 2 is not an image Raw can send"));
  EXPECT_THAT(ErrorOf({{"image/jpeg", png}}),
              HasSubstr("image 1 is declared \"image/jpeg\" but its bytes are image/png"));
  EXPECT_THAT(ErrorOf({{"image/png", ""}}), HasSubstr("image 1 is empty"));
}

TEST(CheckPromptImagesTest, AnImageKeepsTheNameItCameWithWithinLimits) {
  const std::string png = PngBytes(2, 2);
  absl::StatusOr<std::vector<ImagePart>> images =
      CheckPromptImages({{"", png, "shots/\u00e9cran.png"}, {"", png, ""}});
  ASSERT_TRUE(images.ok()) << images.status();
  EXPECT_EQ((*images)[0].name, "shots/\u00e9cran.png");
  EXPECT_EQ((*images)[1].name, "");
  EXPECT_TRUE(CheckPromptImages({{"", png, std::string(kMaxImageNameBytes, 'a')}}).ok());
  EXPECT_THAT(ErrorOf({{"", png, std::string(kMaxImageNameBytes + 1, 'a')}}),
              HasSubstr("image 1 has a name of 1025 bytes; at most 1024"));
  EXPECT_THAT(ErrorOf({{"", png}, {"", png, "a\nb.png"}}),
              HasSubstr("image 2's name is not UTF-8 text without control characters"));
  EXPECT_THAT(ErrorOf({{"", png, "bad \xFF.png"}}), HasSubstr("image 1's name is not UTF-8"));
}

TEST(CheckPromptImagesTest, TheLimitsOfOneImageAndOfAPromptHold) {
  EXPECT_THAT(ErrorOf({{"", PngBytes(1, 1, kMaxImageBytes)}}),
              HasSubstr("an image may have at most 5242880"));
  EXPECT_TRUE(CheckPromptImages({{"", PngBytes(1, 1, kMaxImageBytes - 64)}}).ok());
  const std::string big = PngBytes(1, 1, 4 * 1024 * 1024);
  EXPECT_THAT(ErrorOf({{"", big}, {"", big}, {"", big}}),
              HasSubstr("at most 10485760 bytes together"));
  std::vector<ImageUpload> many(kMaxImagesPerPrompt + 1, ImageUpload{"", PngBytes(1, 1)});
  EXPECT_THAT(ErrorOf(many), HasSubstr("at most 10 images; this one has 11"));
  many.pop_back();
  EXPECT_TRUE(CheckPromptImages(many).ok());
}

}  // namespace
}  // namespace raw::events
