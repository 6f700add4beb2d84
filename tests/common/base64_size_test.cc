#include "common/base64_size.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/escaping.h"

namespace raw {
namespace {

TEST(Base64SizeTest, IsTheDecodedSizeWithOrWithoutPaddingAndTrailingSpace) {
  for (size_t n = 0; n < 40; ++n) {
    const std::string bytes(n, '\xa5');
    const std::string padded = absl::Base64Escape(bytes);
    std::string unpadded = padded;
    while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
    EXPECT_EQ(Base64DecodedSize(padded), n) << padded;
    EXPECT_EQ(Base64DecodedSize(unpadded), n) << unpadded;
    EXPECT_EQ(Base64DecodedSize(padded + "\r\n"), n);
  }
}

}  // namespace
}  // namespace raw
