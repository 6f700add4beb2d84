#include "common/json_writer.h"

#include <random>
#include <string>
#include <vector>

#include "common/json.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

std::string Written(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

std::string Dumped(std::string_view text) { return DumpJson(OrderedJson(std::string(text))); }

TEST(JsonWriterTest, EveryByteIsWrittenAsDumpJsonWritesIt) {
  for (int c = 0; c < 256; ++c) {
    const std::string one(1, static_cast<char>(c));
    EXPECT_EQ(Written(one), Dumped(one)) << "byte " << c;
    const std::string framed = "ab" + one + "cd";
    EXPECT_EQ(Written(framed), Dumped(framed)) << "byte " << c;
  }
}

TEST(JsonWriterTest, EveryByteAtEveryPlaceOfALongTextIsWrittenAsDumpJsonWritesIt) {
  // Clean text is passed sixteen bytes at a time (eight without SSE2): a
  // byte that needs escaping must be found wherever it sits in such a
  // block, and next to every byte.
  for (int c = 0; c < 256; ++c) {
    for (size_t at = 0; at < 19; ++at) {
      for (char neighbour : {'a', '\x7f', '\x21', '\x5b'}) {
        std::string text(19, neighbour);
        text[at] = static_cast<char>(c);
        ASSERT_EQ(Written(text), Dumped(text)) << "byte " << c << " at " << at;
      }
    }
  }
}

// The scan that escapes also validates UTF-8: a sequence, well-formed or
// not, is judged the same wherever it sits, across the end of a scanned
// block as well as inside one, and at the very end of the text.
TEST(JsonWriterTest, SequencesAtEveryPlaceAreWrittenAsDumpJsonWritesThem) {
  const std::vector<std::string> sequences = {
      "\xc3\xa9",     "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",  // valid
      "\xc3",         "\xe2\x82",     "\xf0\x9f\x98",     "\x80",              // cut short
      "\xc0\xaf",     "\xe0\x80\xaf", "\xed\xa0\x80",     "\xf4\x90\x80\x80",  // never valid
      "\xc3\xa9\n\"", "\xff",         "\xe2\x82\xac\x80"};
  for (const std::string& sequence : sequences) {
    for (size_t at = 0; at + sequence.size() <= 40; ++at) {
      for (size_t size : {at + sequence.size(), size_t{40}}) {
        std::string text(size, 'q');
        text.replace(at, sequence.size(), sequence);
        ASSERT_EQ(Written(text), Dumped(text)) << "at " << at << " of " << size;
      }
    }
  }
}

TEST(JsonWriterTest, LongTextWithRareEscapesIsWrittenAsDumpJsonWritesIt) {
  const std::string rare = std::string("\x00\x1f\n\"\\", 5);
  const std::string common =
      "abcdefghij klmnopqrstuvwxyz0123456789 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  std::mt19937 random(20261204);
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    const size_t size = random() % 200;
    while (text.size() < size) {
      if (random() % 40 == 0) {
        text.push_back(rare[random() % rare.size()]);
      } else {
        const size_t start = random() % 37;  // ASCII only: the UTF-8 tail is appended whole
        text.push_back(common[start]);
        if (random() % 50 == 0) text += common.substr(37);
      }
    }
    ASSERT_EQ(Written(text), Dumped(text)) << "round " << round;
  }
}

TEST(JsonWriterTest, RandomTextIsWrittenAsDumpJsonWritesIt) {
  // Bytes drawn mostly from the ones that need care: controls, quotes,
  // backslashes, the lead and continuation bytes of every UTF-8 width, and
  // bytes that are never valid.
  const std::string alphabet =
      std::string("\x00\x01\x08\x09\x0a\x0c\x0d\x1f\x20\"\\/aZ~\x7f", 16) +
      "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x80\xbf\xc0\xc1\xed\xa0\xf4\x90\xf5\xff";
  std::mt19937 random(20261203);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const size_t size = random() % 24;
    for (size_t i = 0; i < size; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    ASSERT_EQ(Written(text), Dumped(text)) << "round " << round;
  }
}

TEST(JsonWriterTest, ADocumentIsWhatDumpJsonGivesForTheSameDocument) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject()
      .Key("role").String("assistant")
      .Key("content").Null()
      .Key("empty").BeginArray().EndArray()
      .Key("calls").BeginArray()
      .BeginObject().Key("id").String("c1").Key("ok").Bool(true).EndObject()
      .BeginObject().Key("id").String("c\"2").Key("ok").Bool(false).EndObject()
      .EndArray()
      .Key("input").Raw(R"({"path":"a.cc"})")
      .Key("nested").BeginObject().EndObject()
      .EndObject();
  OrderedJson expected = OrderedJson::object();
  expected["role"] = "assistant";
  expected["content"] = nullptr;
  expected["empty"] = OrderedJson::array();
  expected["calls"] = OrderedJson::array({OrderedJson{{"id", "c1"}, {"ok", true}},
                                          OrderedJson{{"id", "c\"2"}, {"ok", false}}});
  expected["input"] = OrderedJson{{"path", "a.cc"}};
  expected["nested"] = OrderedJson::object();
  EXPECT_EQ(out, DumpJson(expected));

  // Values in a row at the top level are comma-joined, as a history is.
  std::string joined;
  JsonWriter list(joined);
  list.String("a").Null().BeginObject().EndObject();
  EXPECT_EQ(joined, R"("a",null,{})");
}

}  // namespace
}  // namespace raw
