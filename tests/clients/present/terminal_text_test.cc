#include "clients/present/terminal_text.h"

#include "absl/strings/str_cat.h"
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
  EXPECT_EQ(IncompleteUtf8Tail("x\xE2\x82"), 2u);
}

// What follows an emoji decides how its selector or joiner is shown, so a
// stream holds the emoji back with them.
TEST(TerminalTextTest, IncompleteUtf8TailHoldsBackATrailingEmoji) {
  EXPECT_EQ(IncompleteUtf8Tail("ok \xF0\x9F\x99\x82"), 4u);                  // 🙂
  EXPECT_EQ(IncompleteUtf8Tail("ok \xE2\x9A\xA0\xEF\xB8\x8F"), 6u);          // ⚠️
  EXPECT_EQ(IncompleteUtf8Tail("ok \xF0\x9F\x91\xA8\xE2\x80\x8D"), 7u);      // 👨 ZWJ
  EXPECT_EQ(IncompleteUtf8Tail("ok \xF0\x9F\x91\xA9\xF0\x9F\x8F\xBD"), 8u);  // 👩🏽
  EXPECT_EQ(IncompleteUtf8Tail("x\xE2\x80\x8D"), 3u);                        // a joiner alone
  // 👩🏽‍💻 whole, and 👩 before a modifier's first bytes.
  EXPECT_EQ(IncompleteUtf8Tail("ok \U0001F469\U0001F3FD\u200D\U0001F4BB"), 15u);
  EXPECT_EQ(IncompleteUtf8Tail("ok \U0001F469\xF0\x9F"), 6u);
  // One emoji after another: only the last waits.
  EXPECT_EQ(IncompleteUtf8Tail("\u26A0\uFE0F\U0001F642"), 4u);
  EXPECT_EQ(IncompleteUtf8Tail("caf\xC3\xA9"), 0u);
}

// Bidi controls, zero-width and other invisible characters are shown as
// markers, as the dashboard shows them: in an approval they could reorder
// a command's text ("rm -rf ~ #" shown reversed) or hide text in it.
TEST(TerminalTextTest, InvisibleCharactersAreShownAsMarkers) {
  struct Case {
    const char* text;
    const char* shown;
  };
  const Case cases[] = {
      {"a\u202Eb", "a\u27E8U+202E\u27E9b"},  // right-to-left override
      {"\u202A\u202B\u202C\u202D",
       "\u27E8U+202A\u27E9\u27E8U+202B\u27E9\u27E8U+202C\u27E9"
       "\u27E8U+202D\u27E9"},
      {"\u2066x\u2067\u2068\u2069",
       "\u27E8U+2066\u27E9x\u27E8U+2067\u27E9\u27E8U+2068\u27E9"
       "\u27E8U+2069\u27E9"},
      {"\u200E\u200F\u061C", "\u27E8U+200E\u27E9\u27E8U+200F\u27E9\u27E8U+061C\u27E9"},
      {"r\u200Bm", "r\u27E8U+200B\u27E9m"},
      {"\u200C\u2060\u2062\u2064\uFEFF",
       "\u27E8U+200C\u27E9\u27E8U+2060\u27E9\u27E8U+2062\u27E9\u27E8U+2064\u27E9"
       "\u27E8U+FEFF\u27E9"},
      {"a\u2028b\u2029c", "a\u27E8U+2028\u27E9b\u27E8U+2029\u27E9c"},
      {"x\U000E0041\U000E007F", "x\u27E8U+E0041\u27E9\u27E8U+E007F\u27E9"},  // tags
      {"soft\u00ADhyphen \u3164 \u034F",
       "soft\u27E8U+00AD\u27E9hyphen \u27E8U+3164\u27E9 "
       "\u27E8U+034F\u27E9"},
      // A joiner that joins no emoji, and a selector after another or
      // after an invisible character.
      {"a\u200Db", "a\u27E8U+200D\u27E9b"},
      {"x\uFE0F\uFE0F", "x\uFE0F\u27E8U+FE0F\u27E9"},
      {"\u200B\uFE0F", "\u27E8U+200B\u27E9\u27E8U+FE0F\u27E9"},
      {"\u6F22\U000E0100 x\uFE00", "\u6F22\u27E8U+E0100\u27E9 x\u27E8U+FE00\u27E9"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SanitizeForTerminal(c.text), c.shown) << c.text;
    EXPECT_EQ(SanitizeForStream(c.text), c.shown) << c.text;
  }
  // A marker counts for the tab stops after it.
  EXPECT_EQ(SanitizeForTerminal("\u200B\tx"), "\u27E8U+200B\u27E9    x");
}

TEST(TerminalTextTest, LongRunsOfBlanksAreShownAsMarkers) {
  EXPECT_EQ(ShowBlankRuns("a b  c   d"), "a b  c   d");
  EXPECT_EQ(ShowBlankRuns("a    b"), "a\u27E84 spaces\u27E9b");
  EXPECT_EQ(ShowBlankRuns("x \ny  "), "x\u27E81 space\u27E9\ny\u27E82 spaces\u27E9");
  EXPECT_EQ(ShowBlankRuns("   \nz"), "\u27E83 spaces\u27E9\nz");  // a blank line
  // Indentation up to 16 columns is code; more is padding.
  EXPECT_EQ(ShowBlankRuns("if x:\n    y\n\t\tz"), "if x:\n    y\n\t\tz");
  EXPECT_EQ(ShowBlankRuns(std::string(17, ' ') + "z"), "\u27E817 spaces\u27E9z");
  EXPECT_EQ(ShowBlankRuns("\t\t\tz"), "\u27E83 tabs\u27E9z");
  // Tabs and other spaces between words: a tab stretches to the edge, a
  // no-break space looks like a space and is not one.
  EXPECT_EQ(ShowBlankRuns("a\tb"), "a\u27E81 tab\u27E9b");
  EXPECT_EQ(ShowBlankRuns("a \t b"), "a\u27E81 space\u27E9\u27E81 tab\u27E9\u27E81 space\u27E9b");
  EXPECT_EQ(ShowBlankRuns("rm a\u00A0b"), "rm a\u27E8U+00A0\u27E9b");
  EXPECT_EQ(ShowBlankRuns("a\u3000\u3000b"), "a\u27E82 \u00D7 U+3000\u27E9b");
  EXPECT_EQ(ShowBlankRuns("bad \xFF  byte"), "bad \xFF  byte");
}

TEST(TerminalTextTest, EmojiKeepTheirSelectorsModifiersAndJoiners) {
  for (const char* emoji : {
           "\u26A0\uFE0F",                                // ⚠️
           "\U0001F468\u200D\U0001F469\u200D\U0001F467",  // 👨‍👩‍👧
           "\U0001F3F3\uFE0F\u200D\U0001F308",            // 🏳️‍🌈
           "\U0001F469\U0001F3FD\u200D\U0001F4BB",        // 👩🏽‍💻
           "\u2764\uFE0F\u200D\U0001F525",                // ❤️‍🔥
           "1\uFE0F\u20E3",                               // 1️⃣
           "\u2603\uFE0E",                                // ☃︎
       }) {
    const std::string text = absl::StrCat("a ", emoji, " b");
    EXPECT_EQ(SanitizeForTerminal(text), text);
  }
}

// `raw run` prints a stream piece by piece, holding back what
// IncompleteUtf8Tail counts: wherever the pieces are cut, what it prints is
// what the whole text shows.
TEST(TerminalTextTest, AStreamCutAnywhereShowsWhatTheWholeTextShows) {
  const std::string text =
      "ok \u26A0\uFE0F go \U0001F469\U0001F3FD\u200D\U0001F4BB and \u2764\uFE0F\u200D\U0001F525"
      " a\u202Eb x\uFE0F\uFE0F \U0001F642\n";
  const std::string whole = SanitizeForStream(text);
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    std::string printed, held;
    for (const std::string& piece : {text.substr(0, cut), text.substr(cut)}) {
      std::string now = held + piece;
      size_t tail = IncompleteUtf8Tail(now);
      held = now.substr(now.size() - tail);
      now.resize(now.size() - tail);
      printed += SanitizeForStream(now);
    }
    printed += SanitizeForStream(held);
    EXPECT_EQ(printed, whole) << "cut at byte " << cut;
  }
}

}  // namespace
}  // namespace raw::present
