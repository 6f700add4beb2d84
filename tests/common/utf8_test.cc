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

constexpr char kFffd[] = "\xEF\xBF\xBD";

TEST(Utf8Test, SafeDisplayTextReplacesEscapesControlsAndBidiOverrides) {
  // ESC (CSI and OSC), BEL, DEL, C1 CSI (U+009B), RLO (U+202E), RLI (U+2067),
  // LRM (U+200E), ALM (U+061C), an ill-formed byte; newline and tab stay.
  const std::string hostile =
      "\x1b[2J\x1b]0;title\x07 a\x7f b\xC2\x9B c\xE2\x80\xAE"
      "d\xE2\x81\xA7"
      "e\xE2\x80\x8E"
      "f\xD8\x9C"
      "g\xFF\r\nline\ttwo \xE6\x97\xA5\r";
  const std::string safe = SafeDisplayText(hostile, 1000);
  const std::string r = kFffd;
  EXPECT_EQ(safe, r + "[2J" + r + "]0;title" + r + " a" + r + " b" + r + " c" + r + "d" + r + "e" +
                      r + "f" + r + "g" + r + "\nline\ttwo \xE6\x97\xA5" + r);
  EXPECT_EQ(ValidUtf8Prefix(safe), safe.size());
}

TEST(Utf8Test, SafeDisplayTextCutsLongTextAtACharacterBoundary) {
  EXPECT_EQ(SafeDisplayText("0123456789", 10), "0123456789");
  EXPECT_EQ(SafeDisplayText("0123456789a", 10), "0123456...");
  // Three-byte characters: the cut never splits one.
  std::string wide;
  for (int i = 0; i < 10; ++i) wide += "\xE6\x97\xA5";
  std::string cut = SafeDisplayText(wide, 10);
  EXPECT_EQ(cut, "\xE6\x97\xA5\xE6\x97\xA5...");
  // Replacements count towards the bound.
  std::string escapes(100, '\x1b');
  cut = SafeDisplayText(escapes, 12);
  EXPECT_LE(cut.size(), 12u);
  EXPECT_EQ(cut, std::string(kFffd) + kFffd + kFffd + "...");
  // A huge input costs only the bound.
  EXPECT_EQ(SafeDisplayText(std::string(10'000'000, 'x'), 4096).size(), 4096u);
}

}  // namespace
}  // namespace raw
