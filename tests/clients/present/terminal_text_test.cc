#include "clients/present/terminal_text.h"

#include "gtest/gtest.h"

namespace raw::present {
namespace {

TEST(TerminalTextTest, ControlCharactersNeverReachTheTerminal) {
  EXPECT_EQ(SanitizeForTerminal("a\x1b[1A\x1b[2Kb"), "a\xEF\xBF\xBD[1A\xEF\xBF\xBD[2Kb");
  EXPECT_EQ(SanitizeForTerminal("bell\a \x9b" "31m \x7f"),
            "bell\xEF\xBF\xBD \xEF\xBF\xBD" "31m \xEF\xBF\xBD");
  EXPECT_EQ(SanitizeForTerminal("over\rwrite\r\n"), "overwrite\n");
  EXPECT_EQ(SanitizeForTerminal("a\tb"), "a   b");
  EXPECT_EQ(SanitizeForTerminal("a\tb", Tabs::kKeep), "a\tb");
  EXPECT_EQ(SanitizeForStream("x\x1b]0;title\x07y\t"), "x\xEF\xBF\xBD]0;title\xEF\xBF\xBDy\t");
  EXPECT_EQ(SanitizeForStream("caf\xC3\xA9 \xF0\x9F\x99\x82"), "caf\xC3\xA9 \xF0\x9F\x99\x82");
}

TEST(TerminalTextTest, IncompleteUtf8TailCountsTheBytesStillToCome) {
  EXPECT_EQ(IncompleteUtf8Tail(""), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("abc"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("caf\xC3"), 1u);
  EXPECT_EQ(IncompleteUtf8Tail("caf\xC3\xA9"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("\xF0\x9F\x99"), 3u);
  EXPECT_EQ(IncompleteUtf8Tail("\xF0\x9F\x99\x82"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("x\xE2\x82"), 2u);
}

}  // namespace
}  // namespace raw::present
