#include "common/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace raw {
namespace {

TEST(Utf8Test, AppendUtf8EncodesEachLengthAtItsBoundaries) {
  std::string out;
  for (char32_t c : {U'\x7F', U'\x80', U'\x7FF', U'\x800', U'\xFFFF', U'\x10000', U'\x10FFFF'}) {
    AppendUtf8(c, out);
  }
  EXPECT_EQ(out,
            "\x7F"
            "\xC2\x80"
            "\xDF\xBF"
            "\xE0\xA0\x80"
            "\xEF\xBF\xBF"
            "\xF0\x90\x80\x80"
            "\xF4\x8F\xBF\xBF");
  EXPECT_EQ(ValidUtf8Prefix(out), out.size());
}

}  // namespace
}  // namespace raw
