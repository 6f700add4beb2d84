#include "clients/tui/text_width.h"

#include <clocale>
#include <cwchar>

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

std::vector<std::string> Plain(const Lines& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l.PlainText());
  return out;
}

TEST(TextWidthTest, MeasuresGraphemeClusters) {
  EXPECT_EQ(DisplayWidth("hello"), 5);
  EXPECT_EQ(DisplayWidth("日本語"), 6);                  // wide
  EXPECT_EQ(DisplayWidth("😀"), 2);                      // emoji
  EXPECT_EQ(DisplayWidth("e\xCC\x81"), 1);              // e + combining acute
  EXPECT_EQ(DisplayWidth("👩‍👩‍👧"), 6);  // ZWJ sequence: one cluster, drawn per member
  EXPECT_EQ(DisplayWidth("🇫🇷"), 2);                  // a flag: two regional indicators
  // Heart + VS16: drawn without the selector, as the one-column heart.
  EXPECT_EQ(DisplayWidth("\xE2\x9D\xA4\xEF\xB8\x8F"), 1);
  EXPECT_EQ(TerminalForm("\xE2\x9D\xA4\xEF\xB8\x8F"), "\xE2\x9D\xA4");
  EXPECT_EQ(DisplayWidth("a\x1b[31mb"), 6);             // ESC itself takes no column
}

// The columns ncursesw advances for `text`: the sum of wcwidth over its code
// points, under the process's locale.
int CursesColumns(const std::string& text) {
  std::mbstate_t state{};
  int width = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    wchar_t wc = 0;
    size_t n = std::mbrtowc(&wc, text.data() + pos, text.size() - pos, &state);
    if (n == 0 || n > text.size()) return -1;
    int w = wcwidth(wc);
    if (w < 0) return -1;
    width += w;
    pos += n;
  }
  return width;
}

TEST(TextWidthTest, MeasuresWhatCursesDraws) {
  const char* previous = std::setlocale(LC_CTYPE, nullptr);
  std::string saved = previous == nullptr ? "C" : previous;
  ASSERT_NE(std::setlocale(LC_CTYPE, "C.UTF-8"), nullptr);
  for (std::string text : {"कि", "हिंदी भाषा", "👍🏽", "👨‍👩‍👧", "䷀", "㉈",
                           "e\xCC\x81", "日本語", "\xE2\x9D\xA4\xEF\xB8\x8F", "🇫🇷",
                           "a\xCD\xB8"
                           "b",
                           "/tmp/\u202Ex", "a\U000E0041\U000E0042b", "x\u200B\u2066y\u00AD"}) {
    std::string drawn;
    ForEachGrapheme(text,
                    [&drawn](std::string_view cluster, int) { drawn += TerminalForm(cluster); });
    EXPECT_EQ(DisplayWidth(text), CursesColumns(drawn)) << text;
  }
  // A ZWJ sequence is sent without its joiners: tmux 3.3 draws a character
  // after a ZWJ in the cell before it (a family in two columns where
  // ncursesw advances six), and some terminals join emoji sequences, so
  // only the members side by side are as wide everywhere as counted here.
  EXPECT_EQ(TerminalForm("👩‍💻"), "👩💻");
  EXPECT_EQ(TerminalForm("👨‍👩‍👧"), "👨👩👧");
  EXPECT_EQ(DisplayWidth("👩‍💻x"), 5);
  std::string joined = "क्\u200dष";  // Devanagari half form, joined
  EXPECT_EQ(TerminalForm(joined), "क्ष");
  EXPECT_EQ(DisplayWidth(joined), 2);
  // An unassigned code point (U+0378) is drawn as U+FFFD.
  EXPECT_EQ(TerminalForm("\xCD\xB8"), "\xEF\xBF\xBD");
  std::setlocale(LC_CTYPE, saved.c_str());
}

// The last filter before the terminal: an invisible character in text no
// surface sanitized (a session's cwd in the header, a status) is drawn as
// its marker, laid out as wide as the marker, never applied.
TEST(TextWidthTest, InvisibleCharactersAreDrawnAsMarkers) {
  auto drawn = [](std::string_view text) {
    std::string out;
    ForEachGrapheme(text, [&out](std::string_view cluster, int) { out += TerminalForm(cluster); });
    return out;
  };
  EXPECT_EQ(drawn("/tmp/\u202Ex"), "/tmp/\u27E8U+202E\u27E9x");
  EXPECT_EQ(DisplayWidth("/tmp/\u202Ex"), 5 + 8 + 1);
  EXPECT_EQ(drawn("a\U000E0041b"), "a\u27E8U+E0041\u27E9b");  // a tag, joined to the "a"
  EXPECT_EQ(DisplayWidth("a\U000E0041b"), 1 + 9 + 1);
  EXPECT_EQ(drawn("x\u200By\u2066z"), "x\u27E8U+200B\u27E9y\u27E8U+2066\u27E9z");
  // Each marker is a cluster of its own.
  std::vector<std::string> clusters;
  ForEachGrapheme("a\U000E0041b", [&](std::string_view c, int) { clusters.emplace_back(c); });
  EXPECT_EQ(clusters.size(), 3u);
  // What SanitizeForTerminal keeps to shape an emoji is drawn as before.
  EXPECT_EQ(drawn("\u263A\uFE0E"), "\u263A\uFE0E");
  EXPECT_EQ(drawn("\U0001F469\u200D\U0001F4BB"), "\U0001F469\U0001F4BB");
  // One row for text that must stay on one.
  EXPECT_EQ(SanitizeLine("/tmp/a\nb\x1b[2J"), "/tmp/a\u27E8U+000A\u27E9b\uFFFD[2J");
}

TEST(TextWidthTest, SanitizeRemovesControlSequences) {
  EXPECT_EQ(SanitizeForTerminal("a\x1b[2Jb"), "a\xEF\xBF\xBD[2Jb");
  EXPECT_EQ(SanitizeForTerminal("x\ty"), "x   y");
  EXPECT_EQ(SanitizeForTerminal("line\r\nnext"), "line\nnext");
  EXPECT_EQ(SanitizeForTerminal("bad \xFF byte"), "bad \xEF\xBF\xBD byte");
  EXPECT_EQ(SanitizeForTerminal("c1 \xC2\x9B" "31m"), "c1 \xEF\xBF\xBD" "31m");
}

TEST(TextWidthTest, TruncatesToColumnsNotBytes) {
  EXPECT_EQ(TruncateToWidth("abcdef", 4, "…"), "abc…");
  EXPECT_EQ(TruncateToWidth("日本語テキスト", 7, "…"), "日本語…");
  EXPECT_EQ(TruncateToWidth("short", 10, "…"), "short");
}

TEST(TextWidthTest, WrapsWordsWithPrefixes) {
  Lines lines = WrapSpans(StyledLine("the quick brown fox jumps over the lazy dog"), 16,
                          StyledLine("> "), StyledLine("  "));
  EXPECT_EQ(Plain(lines), (std::vector<std::string>{"> the quick", "  brown fox", "  jumps over the",
                                                     "  lazy dog"}));
  for (const auto& l : lines) EXPECT_LE(l.Width(), 16);
}

TEST(TextWidthTest, BreaksLongWordsAndNeverSplitsWideCharacters) {
  Lines lines = WrapSpans(StyledLine("abcdefghijkl"), 5);
  EXPECT_EQ(Plain(lines), (std::vector<std::string>{"abcde", "fghij", "kl"}));
  Lines wide = WrapSpans(StyledLine("日本語日本語"), 5);
  EXPECT_EQ(Plain(wide), (std::vector<std::string>{"日本", "語日", "本語"}));
  for (const auto& l : wide) EXPECT_LE(l.Width(), 5);
  Lines emoji = WrapSpans(StyledLine("ok 😀😀😀 done"), 6);
  for (const auto& l : emoji) EXPECT_LE(l.Width(), 6) << l.PlainText();
}

TEST(TextWidthTest, KeepsStylesAcrossWrappedWords) {
  StyledLine text;
  text.Add("plain ").Add("bold words here", Style{Role::kDefault, kAttrBold});
  Lines lines = WrapSpans(text, 11);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].PlainText(), "plain bold");
  EXPECT_EQ(lines[0].spans.back().style.attrs, kAttrBold);
  EXPECT_EQ(lines[1].PlainText(), "words here");
}

TEST(TextWidthTest, KeepingSpacesAtBreaksLosesNoCharacter) {
  const std::string text = "git  commit -m 'fix   the  build'    now";
  for (int width = 4; width <= 16; ++width) {
    Lines lines = WrapSpans(StyledLine(text), width, StyledLine("> "), StyledLine("  "),
                            SpacesAtBreaks::kKeep);
    std::string joined;
    for (const auto& l : lines) {
      EXPECT_LE(l.Width(), width) << l.PlainText();
      joined += l.PlainText().substr(2);
    }
    EXPECT_EQ(joined, text) << "width " << width;
  }
  // Words still move whole to the next line; the spaces stay behind them.
  EXPECT_EQ(Plain(WrapSpans(StyledLine("alpha beta  gamma"), 11, {}, {}, SpacesAtBreaks::kKeep)),
            (std::vector<std::string>{"alpha beta ", " gamma"}));
  EXPECT_EQ(Plain(WrapSpans(StyledLine("alpha beta  gamma"), 11)),
            (std::vector<std::string>{"alpha beta", "gamma"}));
}

TEST(TextWidthTest, ForcedBreaksAndHardWrap) {
  EXPECT_EQ(Plain(WrapSpans(StyledLine("one\ntwo"), 20)),
            (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(Plain(HardWrap(StyledLine("int main() { return 0; }"), 10)),
            (std::vector<std::string>{"int main()", " { return ", "0; }"}));
}

TEST(TextWidthTest, FitToWidthPadsAndCuts) {
  EXPECT_EQ(FitToWidth(StyledLine("abc"), 5).PlainText(), "abc  ");
  EXPECT_EQ(FitToWidth(StyledLine("日本語"), 5).PlainText(), "日本 ");
}

}  // namespace
}  // namespace raw::tui
