#include "common/line_framer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace raw {
namespace {

// What a framer gave for a stream: lines, and "!<bytes>" for an overlong one.
struct Framed {
  std::vector<std::string> lines;
  bool stopped = false;
};

Framed FeedAll(LineFramer& framer, const std::vector<std::string>& chunks,
               bool stop_on_overlong = false) {
  Framed out;
  for (const std::string& chunk : chunks) {
    const bool more = framer.Feed(
        chunk,
        [&](std::string line) {
          out.lines.push_back(std::move(line));
          return true;
        },
        [&](size_t bytes) {
          out.lines.push_back("!" + std::to_string(bytes));
          return !stop_on_overlong;
        });
    if (!more) {
      out.stopped = true;
      break;
    }
  }
  return out;
}

TEST(LineFramerTest, CutsLinesWhereverTheChunksEnd) {
  LineFramer framer(100);
  Framed framed = FeedAll(framer, {"{\"a\"", ":1}\r\n  \t\n\n{\"b\":2}\n{\"c", "\":3}"});
  EXPECT_EQ(framed.lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  // The unfinished line waits for its newline.
  framed = FeedAll(framer, {"\n"});
  EXPECT_EQ(framed.lines, (std::vector<std::string>{"{\"c\":3}"}));
}

TEST(LineFramerTest, AnOverlongLineIsReportedOnceWithItsSizeAndSkipped) {
  LineFramer framer(8);
  Framed framed = FeedAll(framer, {"12345", "6789", "0abc", "\nshort\n"});
  EXPECT_EQ(framed.lines, (std::vector<std::string>{"!13", "short"}));
  EXPECT_FALSE(framer.skipping());
}

TEST(LineFramerTest, SaysWhileTheUnfinishedLineIsAlreadyOverTheLimit) {
  LineFramer framer(8);
  FeedAll(framer, {"12345678"});
  EXPECT_FALSE(framer.skipping()) << "exactly at the limit is allowed";
  FeedAll(framer, {"9"});
  EXPECT_TRUE(framer.skipping()) << "a reader need not wait for a newline that may never come";
}

TEST(LineFramerTest, ACallbackThatReturnsFalseStopsTheChunk) {
  LineFramer framer(4);
  Framed framed = FeedAll(framer, {"toolong\nok\n"}, /*stop_on_overlong=*/true);
  EXPECT_TRUE(framed.stopped);
  EXPECT_EQ(framed.lines, (std::vector<std::string>{"!7"}));
}

}  // namespace
}  // namespace raw
