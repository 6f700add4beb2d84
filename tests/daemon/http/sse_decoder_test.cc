#include "daemon/http/sse_decoder.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::http {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

SseFrame Data(std::string data, std::string event = "", std::string id = "") {
  SseFrame frame;
  frame.data = std::move(data);
  frame.event = std::move(event);
  frame.id = std::move(id);
  return frame;
}

std::vector<SseFrame> FeedAll(const std::vector<std::string>& chunks, bool* pending = nullptr) {
  SseDecoder decoder;
  std::vector<SseFrame> frames;
  for (const std::string& chunk : chunks) {
    for (SseFrame& frame : decoder.Feed(chunk)) frames.push_back(std::move(frame));
  }
  bool was_pending = decoder.Finish();
  if (pending != nullptr) *pending = was_pending;
  return frames;
}

TEST(SseDecoderTest, DispatchesOnBlankLine) {
  SseDecoder decoder;
  EXPECT_THAT(decoder.Feed("data: one\n"), IsEmpty());
  EXPECT_THAT(decoder.Feed("\n"), ElementsAre(Data("one")));
  EXPECT_THAT(decoder.Feed("data: two\n\ndata: three\n\n"),
              ElementsAre(Data("two"), Data("three")));
  EXPECT_FALSE(decoder.Finish());
}

TEST(SseDecoderTest, AcceptsEveryLineEnding) {
  for (std::string eol : {"\n", "\r\n", "\r"}) {
    std::string stream = "event: e" + eol + "data: a" + eol + "data: b" + eol + eol;
    EXPECT_THAT(FeedAll({stream}), ElementsAre(Data("a\nb", "e"))) << "line end " << eol.size();
  }
}

TEST(SseDecoderTest, CarriageReturnAtChunkEndIsNotASecondLineEnd) {
  // Taking the '\n' of the split "\r\n" as a blank line would dispatch "a"
  // on its own.
  EXPECT_THAT(FeedAll({"data: a\r", "\ndata: b\r\n\r\n"}), ElementsAre(Data("a\nb")));
  // A lone '\r' followed by a new line in the next chunk still ends a line.
  EXPECT_THAT(FeedAll({"data: a\r", "data: b\r", "\r"}), ElementsAre(Data("a\nb")));
  // "\r" then "\r\n" across three chunks: line end, then a blank line.
  EXPECT_THAT(FeedAll({"data: a\r", "\r", "\n"}), ElementsAre(Data("a")));
}

TEST(SseDecoderTest, IgnoresComments) {
  EXPECT_THAT(FeedAll({": keep-alive\n\n:another\ndata: x\n: inside\n\n"}),
              ElementsAre(Data("x")));
}

TEST(SseDecoderTest, DropsExactlyOneSpaceAfterTheColon) {
  EXPECT_THAT(FeedAll({"data:x\n\ndata: x\n\ndata:  x\n\ndata:\n\n"}),
              ElementsAre(Data("x"), Data("x"), Data(" x"), Data("")));
}

TEST(SseDecoderTest, LineWithoutColonIsAFieldWithEmptyValue) {
  EXPECT_THAT(FeedAll({"data\ndata\n\n"}), ElementsAre(Data("\n")));
}

TEST(SseDecoderTest, ValueMayContainColons) {
  EXPECT_THAT(FeedAll({"data: {\"a\":\"b:c\"}\n\n"}), ElementsAre(Data("{\"a\":\"b:c\"}")));
}

TEST(SseDecoderTest, EventWithoutDataIsNotDispatched) {
  EXPECT_THAT(FeedAll({"event: ping\n\ndata: x\n\n"}), ElementsAre(Data("x")));
}

TEST(SseDecoderTest, EventNameAppliesToOneEventOnly) {
  EXPECT_THAT(FeedAll({"event: error\ndata: a\n\ndata: b\n\n"}),
              ElementsAre(Data("a", "error"), Data("b")));
}

TEST(SseDecoderTest, LastEventIdPersistsAcrossEvents) {
  EXPECT_THAT(FeedAll({"id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"}),
              ElementsAre(Data("a", "", "7"), Data("b", "", "7"), Data("c", "", "")));
  std::string with_nul = std::string("id: 1\ndata: a\n\nid: x") + '\0' + "y\ndata: b\n\n";
  EXPECT_THAT(FeedAll({with_nul}), ElementsAre(Data("a", "", "1"), Data("b", "", "1")));
}

TEST(SseDecoderTest, RetryTakesOnlyDigits) {
  std::vector<SseFrame> frames = FeedAll({"retry: 1500\ndata: a\n\nretry: 1.5\ndata: b\n\n"});
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].retry, 1500);
  EXPECT_EQ(frames[1].retry, std::nullopt);
}

TEST(SseDecoderTest, IgnoresUnknownFields) {
  EXPECT_THAT(FeedAll({"foo: bar\ndata: a\nobfuscation: zz\n\n"}), ElementsAre(Data("a")));
}

TEST(SseDecoderTest, FinishDiscardsHalfReadEvent) {
  bool pending = false;
  EXPECT_THAT(FeedAll({"data: a\n\ndata: b\n"}, &pending), ElementsAre(Data("a")));
  EXPECT_TRUE(pending);
  EXPECT_THAT(FeedAll({"data: a\n\ndata: {\"id\":\"chatcmpl-T1\",\"obj"}, &pending),
              ElementsAre(Data("a")));
  EXPECT_TRUE(pending);
  EXPECT_THAT(FeedAll({"data: a\n\n"}, &pending), ElementsAre(Data("a")));
  EXPECT_FALSE(pending);
  // A trailing comment is not an event.
  EXPECT_THAT(FeedAll({"data: a\n\n: keep-alive\n"}, &pending), ElementsAre(Data("a")));
  EXPECT_FALSE(pending);
  EXPECT_THAT(FeedAll({"data: a\n\n: keep-al"}, &pending), ElementsAre(Data("a")));
  EXPECT_FALSE(pending);
}

TEST(SseDecoderTest, FinishResetsForReuse) {
  SseDecoder decoder;
  decoder.Feed("id: 3\ndata: half");
  EXPECT_TRUE(decoder.Finish());
  EXPECT_THAT(decoder.Feed("data: new\n\n"), ElementsAre(Data("new")));
  EXPECT_FALSE(decoder.Finish());
}

TEST(SseDecoderTest, OversizedEventStopsTheDecoder) {
  SseDecoder decoder(/*max_event_bytes=*/16);
  EXPECT_THAT(decoder.Feed("data: short\n\n"), ElementsAre(Data("short")));
  EXPECT_FALSE(decoder.overflowed());
  // One long unterminated line...
  EXPECT_THAT(decoder.Feed("data: 0123456789abcdefghij"), IsEmpty());
  EXPECT_TRUE(decoder.overflowed());
  EXPECT_THAT(decoder.Feed("\n\ndata: later\n\n"), IsEmpty());
  EXPECT_TRUE(decoder.Finish());
  EXPECT_FALSE(decoder.overflowed());
  // ... or many short data lines.
  EXPECT_THAT(decoder.Feed("data: 0123456789\ndata: 0123456789\ndata: x\n\n"), IsEmpty());
  EXPECT_TRUE(decoder.overflowed());
}

TEST(SseDecoderTest, DropsLeadingByteOrderMark) {
  EXPECT_THAT(FeedAll({"\xEF\xBB", "\xBF" "data: a\n\n"}), ElementsAre(Data("a")));
}

TEST(SseDecoderTest, KeepsMultiByteCharactersSplitAcrossChunks) {
  std::string text = "data: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n\n";
  std::vector<SseFrame> whole = FeedAll({text});
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].data, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    EXPECT_EQ(FeedAll({text.substr(0, cut), text.substr(cut)}), whole) << "cut at " << cut;
  }
}

TEST(SseDecoderTest, EverySplitGivesTheSameFrames) {
  std::string stream =
      ": comment\r\nevent: a\r\ndata: 1\r\ndata: 2\r\n\r\nid: 9\rdata:3\r\rdata: 4\n\ndata";
  bool pending = false;
  std::vector<SseFrame> whole = FeedAll({stream}, &pending);
  EXPECT_TRUE(pending);
  ASSERT_EQ(whole.size(), 3u);
  EXPECT_EQ(whole[0], Data("1\n2", "a"));
  EXPECT_EQ(whole[1], Data("3", "", "9"));
  EXPECT_EQ(whole[2], Data("4", "", "9"));
  for (size_t a = 0; a <= stream.size(); ++a) {
    for (size_t b = a; b <= stream.size(); ++b) {
      bool split_pending = false;
      EXPECT_EQ(FeedAll({stream.substr(0, a), stream.substr(a, b - a), stream.substr(b)},
                        &split_pending),
                whole)
          << "cuts at " << a << " and " << b;
      EXPECT_TRUE(split_pending);
    }
  }
}

}  // namespace
}  // namespace raw::http
