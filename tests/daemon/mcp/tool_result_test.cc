#include "daemon/mcp/tool_result.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::mcp {
namespace {

using ::testing::EndsWith;

CallToolResult Parse(const char* json) {
  absl::StatusOr<Json> value = ParseJson(json);
  EXPECT_TRUE(value.ok());
  absl::StatusOr<CallToolResult> result = ParseCallToolResult(*value);
  EXPECT_TRUE(result.ok()) << result.status();
  return *result;
}

TEST(ToolResultTest, JoinsTextParts) {
  CallToolResult result =
      Parse(R"({"content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]})");
  EXPECT_EQ(RenderToolResult(result), "one\ntwo");
  EXPECT_FALSE(result.is_error);
}

TEST(ToolResultTest, DescribesMediaInsteadOfInliningIt) {
  // 12 base64 characters = 9 bytes; 8 with one '=' = 5 bytes.
  CallToolResult result = Parse(R"({"content":[
      {"type":"image","data":"iVBORw0KGgoA","mimeType":"image/png"},
      {"type":"audio","data":"UklGRgA=","mimeType":"audio/wav"}]})");
  std::string text = RenderToolResult(result);
  EXPECT_EQ(text, "[image (image/png, 9 bytes) not shown]\n[audio (audio/wav, 5 bytes) not shown]");
  EXPECT_EQ(text.find("iVBOR"), std::string::npos);
}

TEST(ToolResultTest, SummarizesResources) {
  CallToolResult result = Parse(R"({"content":[
      {"type":"resource_link","uri":"file:///a.txt","name":"a.txt","mimeType":"text/plain",
       "size":12,"description":"a file"},
      {"type":"resource","resource":{"uri":"mem://t","mimeType":"text/plain","text":"hello"}},
      {"type":"resource","resource":{"uri":"mem://b","mimeType":"text/plain","blob":"aGk="}},
      {"type":"resource","resource":{"uri":"mem://z","mimeType":"application/zip","blob":"AAECAw=="}},
      {"type":"widget"}]})");
  EXPECT_EQ(RenderToolResult(result),
            "[resource link: a.txt <file:///a.txt> (text/plain, 12 bytes)] a file\n"
            "[resource mem://t (text/plain)]\nhello\n"
            "[resource mem://b (text/plain)]\nhi\n"
            "[resource mem://z (application/zip, 4 bytes of binary data, not shown)]\n"
            "[widget content not shown]");
}

TEST(ToolResultTest, StructuredContentOnlyWhenNoTextSaysTheSame) {
  // The same JSON as text: shown once.
  CallToolResult same =
      Parse(R"({"content":[{"type":"text","text":"{\"t\": 33, \"c\": \"Cloudy\"}"}],
                                 "structuredContent":{"c":"Cloudy","t":33}})");
  EXPECT_EQ(RenderToolResult(same), "{\"t\": 33, \"c\": \"Cloudy\"}");
  // The text holds every value (server-filesystem's shape): shown once.
  CallToolResult values = Parse(R"({"content":[{"type":"text","text":"line 1\nline 2"}],
                                   "structuredContent":{"content":"line 1\nline 2"}})");
  EXPECT_EQ(RenderToolResult(values), "line 1\nline 2");
  // Different: appended.
  CallToolResult differ = Parse(R"({"content":[{"type":"text","text":"see data"}],
                                   "structuredContent":{"answer":42}})");
  EXPECT_EQ(RenderToolResult(differ), "see data\n{\"answer\":42}");
  // No content at all.
  CallToolResult only = Parse(R"({"content":[],"structuredContent":{"answer":42}})");
  EXPECT_EQ(RenderToolResult(only), "{\"answer\":42}");
}

TEST(ToolResultTest, KeepsTheErrorFlagAndSaysWhenEmpty) {
  CallToolResult result = Parse(R"({"content":[],"isError":true})");
  EXPECT_TRUE(result.is_error);
  EXPECT_EQ(RenderToolResult(result), "(the tool returned no content)");
  EXPECT_FALSE(ParseCallToolResult(Json::array()).ok());
  EXPECT_FALSE(ParseCallToolResult(Json{{"content", "text"}}).ok());
}

TEST(ToolResultTest, CutsHugeResultsAndSaysHowMuch) {
  CallToolResult result;
  result.content = Json::array({{{"type", "text"}, {"text", std::string(250000, 'x')}}});
  std::string text = RenderToolResult(result);
  EXPECT_LE(text.size(), kMaxToolResultBytes + 100);
  EXPECT_NE(text.find("[output truncated: 147600 of 250000 bytes left out]"), std::string::npos)
      << text.substr(text.size() - 80);
}

TEST(ToolResultTest, NeverCutsInsideACharacter) {
  std::string text = "ab";
  for (int i = 0; i < 10; ++i) text += "\xc3\xa9";  // é
  std::string cut = TruncateForModel(text, 5);
  EXPECT_EQ(cut.substr(0, 4), "ab\xc3\xa9");
  EXPECT_EQ(cut[4], '\n');
  EXPECT_EQ(TruncateForModel("short", 10), "short");
}

// A server may send millions of small blocks (63 MiB of them once drove the
// daemon to gigabytes, each block's text kept before the join): the result
// is the same text as cutting the whole, and no more than max_bytes + 1
// bytes of it are ever kept.
TEST(ToolResultTest, ManyBlocksAreCutWithoutKeepingTheWhole) {
  CallToolResult result;
  std::string whole;
  for (int i = 0; i < 100000; ++i) {
    std::string text = absl::StrCat("block ", i);
    bool odd = i % 3 == 2;
    result.content.push_back(odd ? Json(1) : Json{{"type", "text"}, {"text", text}});
    absl::StrAppend(&whole, i > 0 ? "\n" : "",
                    odd ? "[a content block that is not an object]" : text);
  }
  RenderStats stats;
  std::string text = RenderToolResult(result, 1000, &stats);
  EXPECT_EQ(text, TruncateForModel(whole, 1000));
  EXPECT_THAT(text, EndsWith(absl::StrCat(" of ", whole.size(), " bytes left out]")));
  EXPECT_LE(stats.buffer_bytes, 1001u);
}

// Cut at every length, the result is the whole cut as TruncateForModel
// cuts it (never inside a character, the note counting every byte).
TEST(ToolResultTest, EveryCutMatchesCuttingTheWhole) {
  CallToolResult result = Parse(R"({"content":[{"type":"text","text":"ab\u00e9\u00e9"},
      {"type":"image","data":"iVBORw0KGgoA","mimeType":"image/png"},
      {"type":"text","text":""},{"type":"text","text":"z"}],
      "structuredContent":{"answer":42}})");
  std::string whole = RenderToolResult(result, SIZE_MAX);
  for (size_t max = 0; max <= whole.size() + 1; ++max) {
    EXPECT_EQ(RenderToolResult(result, max), TruncateForModel(whole, max)) << max;
  }
  CallToolResult empty = Parse(R"({"content":[{"type":"text","text":""}]})");
  EXPECT_EQ(RenderToolResult(empty, 10), TruncateForModel("(the tool returned no content)", 10));
  CallToolResult two_empty =
      Parse(R"({"content":[{"type":"text","text":""},{"type":"text","text":""}]})");
  EXPECT_EQ(RenderToolResult(two_empty), "\n");
}

// The server picks the text and the values; comparing them must stay cheap
// (the naive check is values x text, and a long value's search can be
// value x text on its own). The first result has more values than may be
// checked, which its output shows; the second, checked, would cost a naive
// search past 10^13 byte comparisons, hours of work: the test ends within
// its timeout only when the search is linear.
TEST(ToolResultTest, StructuredDedupIsBounded) {
  CallToolResult many;
  many.content = Json::array({{{"type", "text"}, {"text", std::string(4 << 20, 'a') + "b"}}});
  many.structured_content = Json::array();
  for (int i = 0; i < 100000; ++i) many.structured_content.push_back("b");
  // Each value is found at the end of the text; a naive search first
  // matches 4 MiB of it at each of the 4 Mi positions before.
  CallToolResult long_value;
  long_value.content = Json::array({{{"type", "text"}, {"text", std::string(8 << 20, 'a') + "b"}}});
  long_value.structured_content = Json::array();
  for (int i = 0; i < 4; ++i) {
    long_value.structured_content.push_back(std::string(4 << 20, 'a') + "b");
  }
  std::string shown = RenderToolResult(many, size_t{64} << 20);
  std::string said = RenderToolResult(long_value, size_t{64} << 20);
  // Too many values to check: the structured content follows the text.
  EXPECT_NE(shown.find("ab\n[\"b\",\"b\""), std::string::npos);
  // Checked, and the text holds each value.
  EXPECT_EQ(said.find("[\""), std::string::npos);
}

}  // namespace
}  // namespace raw::mcp
