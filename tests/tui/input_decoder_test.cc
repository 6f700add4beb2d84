#include "clients/tui/input_decoder.h"

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

std::vector<Key> Keys(const std::vector<InputEvent>& events) {
  std::vector<Key> keys;
  for (const auto& e : events) keys.push_back(e.key);
  return keys;
}

TEST(InputDecoderTest, TextControlAndEditingKeys) {
  InputDecoder d;
  auto events = d.Feed("a\xC3\xA9\r\n\t\x7f\x03");
  EXPECT_EQ(Keys(events), (std::vector<Key>{Key::kChar, Key::kChar, Key::kEnter, Key::kNewline,
                                            Key::kTab, Key::kBackspace, Key::kCtrl}));
  EXPECT_EQ(events[1].text, "\xC3\xA9");
  EXPECT_EQ(events[6].ctrl, 'c');
}

TEST(InputDecoderTest, CursorKeysWithModifiers) {
  InputDecoder d;
  auto events = d.Feed("\x1b[A\x1bOB\x1b[1;5A\x1b[5~\x1b[6~\x1b[3~\x1b[H\x1b[1;5F\x1b[Z");
  EXPECT_EQ(Keys(events), (std::vector<Key>{Key::kUp, Key::kDown, Key::kUp, Key::kPageUp,
                                            Key::kPageDown, Key::kDelete, Key::kHome, Key::kEnd,
                                            Key::kBackTab}));
  EXPECT_TRUE(events[2].ctrl_mod);
  EXPECT_TRUE(events[7].ctrl_mod);
}

TEST(InputDecoderTest, AltEnterIsANewlineAndAltLettersCarryAlt) {
  InputDecoder d;
  auto events = d.Feed("\x1b\r\x1b" "b");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].key, Key::kNewline);
  EXPECT_EQ(events[1].key, Key::kChar);
  EXPECT_TRUE(events[1].alt);
}

TEST(InputDecoderTest, ALoneEscapeWaitsForFlush) {
  InputDecoder d;
  EXPECT_TRUE(d.Feed("\x1b").empty());
  EXPECT_TRUE(d.pending());
  EXPECT_EQ(Keys(d.Flush()), (std::vector<Key>{Key::kEscape}));
  EXPECT_FALSE(d.pending());
  // A sequence split across reads is completed by the next read.
  EXPECT_TRUE(d.Feed("\x1b[").empty());
  EXPECT_EQ(Keys(d.Feed("B")), (std::vector<Key>{Key::kDown}));
}

TEST(InputDecoderTest, BracketedPasteIsOneEventAcrossReads) {
  InputDecoder d;
  EXPECT_TRUE(d.Feed("\x1b[200~line one\r\nline").empty());
  EXPECT_TRUE(d.Feed(" two\x1b[20").empty());
  auto events = d.Feed("1~x");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].key, Key::kPaste);
  EXPECT_EQ(events[0].text, "line one\r\nline two");
  EXPECT_EQ(events[1].text, "x");
}

TEST(InputDecoderTest, LargePastesKeepEveryByte) {
  InputDecoder d;
  std::string big(200000, 'x');
  std::vector<InputEvent> events;
  for (const char* piece : {"\x1b[200~", big.c_str(), "\x1b[201~"}) {
    for (auto& e : d.Feed(piece)) events.push_back(e);
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].text.size(), big.size());
}

TEST(InputDecoderTest, MouseWheelAndClicks) {
  InputDecoder d;
  auto events = d.Feed("\x1b[<64;10;5M\x1b[<65;10;5M\x1b[<0;3;7M\x1b[<0;3;7m");
  EXPECT_EQ(Keys(events), (std::vector<Key>{Key::kWheelUp, Key::kWheelDown, Key::kClick}));
  EXPECT_EQ(events[2].row, 6);
  EXPECT_EQ(events[2].col, 2);
}

}  // namespace
}  // namespace raw::tui
