// The excerpt of a variable command's standard error that errors quote: the
// last line, bounded, and valid UTF-8 whatever the command printed.
#include "daemon/vars/command_output.h"

#include <string>

#include "common/utf8.h"
#include "gtest/gtest.h"

namespace raw::vars {
namespace {

bool Valid(const std::string& s) { return ValidUtf8Prefix(s) == s.size(); }

TEST(StderrExcerptTest, TheLastNonBlankLine) {
  EXPECT_EQ(StderrExcerpt("warming up\nerror: no token\n  \n"), ": error: no token");
  EXPECT_EQ(StderrExcerpt(" \n\t\n"), "");
}

TEST(StderrExcerptTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const std::string excerpt = StderrExcerpt("Fehler: ung\xfcltig\n");  // Latin-1 ü
  EXPECT_TRUE(Valid(excerpt)) << excerpt;
  EXPECT_EQ(excerpt, ": Fehler: ung\xef\xbf\xbdltig");
}

TEST(StderrExcerptTest, ACutNeverSplitsACharacter) {
  // 199 ASCII bytes, then a 3-byte character across the 200-byte cut.
  const std::string line = std::string(199, 'a') + "\xe2\x82\xac" + "tail";
  const std::string excerpt = StderrExcerpt(line);
  EXPECT_TRUE(Valid(excerpt));
  EXPECT_EQ(excerpt, ": " + std::string(199, 'a') + "...");
}

TEST(StripOneLineBreakTest, OneBreakOnly) {
  std::string value = "token\r\n\n";
  StripOneLineBreak(value);
  EXPECT_EQ(value, "token\r\n");
  StripOneLineBreak(value);
  EXPECT_EQ(value, "token");
}

}  // namespace
}  // namespace raw::vars
