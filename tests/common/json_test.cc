// ParseJson: errors instead of exceptions, and a depth limit so that no
// later walk over a parsed value can overflow the stack.
#include "common/json.h"
#include "common/utf8.h"

#include <string>

#include "common/json_strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Nested(int depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(ParseJsonTest, NestingUpToTheLimitParsesAndBeyondIsASpecificError) {
  auto ok = ParseJson(Nested(kMaxJsonDepth));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(DumpJson(*ok).size(), static_cast<size_t>(2 * kMaxJsonDepth));

  auto deep = ParseJson(Nested(200000));
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(deep.status().message(),
              HasSubstr("nested more than 512 levels deep (at byte 512)"));
  std::string objects;
  for (int i = 0; i <= kMaxJsonDepth; ++i) objects += R"({"a":)";
  objects += "1" + std::string(kMaxJsonDepth + 1, '}');
  EXPECT_FALSE(ParseJson(objects).ok());
  EXPECT_FALSE(ParseOrderedJson(Nested(kMaxJsonDepth + 1)).ok());
}

TEST(ParseJsonTest, BracketsInStringsAndCommentsDoNotCount) {
  std::string in_string = R"({"s": ")" + std::string(10000, '[') + R"(\"[[["})";
  auto parsed = ParseJson(in_string);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ((*parsed)["s"].get<std::string>().size(), 10004u);
  std::string commented = "// " + std::string(1000, '{') + "\n/* " + std::string(1000, '[') +
                          " */ {\"a\": 1}";
  EXPECT_TRUE(ParseJson(commented, /*allow_comments=*/true).ok());
}

TEST(ParseJsonTest, AStringEndingInAnEscapedBackslashDoesNotHideTheNesting) {
  // "x\\" closes after the escaped backslash; the brackets after it count.
  std::string deep = R"([["x\\", )" + Nested(kMaxJsonDepth) + "]]";
  auto parsed = ParseJson(deep);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("nested more than 512 levels deep"));
  // "x\"..." does not close at the escaped quote: those brackets are text.
  std::string text = R"([["x\")" + Nested(kMaxJsonDepth) + R"("]])";
  EXPECT_TRUE(ParseJson(text).ok()) << ParseJson(text).status();
}

TEST(ParseJsonTest, InvalidJsonNamesWhere) {
  auto bad = ParseJson("{\n  \"a\": }");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("line 2"));
}

// The parser's message for a token it cannot read quotes the token: an
// unterminated string from its opening quote on, a secret pasted there.
TEST(ParseJsonTest, AnErrorNeverQuotesTheText) {
  for (const char* text :
       {"{\"k\": \"sk-SECRETVALUE\n\"}", "{\"k\": \"sk-SECRETVALUE", "{sk-SECRETVALUE: 1}",
        "[1e99999999999SECRETVALUE]", "[1, tSECRETVALUE]"}) {
    absl::StatusOr<Json> parsed = ParseJson(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr("SECRET"))) << parsed.status();
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr("last read"))) << parsed.status();
  }
  EXPECT_THAT(ParseJson("{sk-SECRETVALUE: 1}").status().message(),
              HasSubstr("line 1, column 2: syntax error while parsing object key - invalid "
                        "literal; expected string literal"));
  EXPECT_THAT(ParseJson("[1e99999]").status().message(), HasSubstr("out of range"));
}

TEST(ParseJsonTest, ANulByteIsAnErrorWhereverItIs) {
  using std::string_literals::operator""s;
  EXPECT_EQ(ParseJson("{}\n \0{not json"s).status().message(),
            "invalid JSON: a NUL byte at line 2, column 2 (JSON text holds none; in a string it "
            "is written \\u0000)");
  EXPECT_FALSE(ParseJson("[\"a\0b\"]"s).ok());
  EXPECT_FALSE(ParseOrderedJson("{}\0"s).ok());
  EXPECT_EQ(ParseJson("[\"a\\u0000b\"]").value()[0].get<std::string>(), "a\0b"s);
}

// Found by config_fuzz: the parser's message quotes the bytes it last read,
// which were not UTF-8, and the message went to the API's string fields.
TEST(ParseJsonTest, AnErrorQuotingBytesThatAreNotUtf8IsStillUtf8) {
  for (std::string text : {std::string("{\"a\": 1}},\xa6"), std::string("{\"a\": \xff\xfe}"),
                           std::string("[1, 2\xc3")}) {
    absl::StatusOr<Json> parsed = ParseJson(text, /*allow_comments=*/true);
    ASSERT_FALSE(parsed.ok()) << text;
    const std::string message(parsed.status().message());
    EXPECT_EQ(ValidUtf8Prefix(message), message.size()) << message;
    EXPECT_THAT(message, ::testing::StartsWith("invalid JSON: "));
  }
}

TEST(JsonTest, MapJsonStringsReachesEveryStringAndKey) {
  Json doc = Json::parse(R"({"a": "x-s", "s-k": ["s", 1, {"b": "s"}], "n": null})");
  MapJsonStrings(doc, [](const std::string& s) {
    std::string out = s;
    for (size_t at; (at = out.find('s')) != std::string::npos;) out.replace(at, 1, "S");
    return out;
  });
  EXPECT_EQ(doc, Json::parse(R"({"a": "x-S", "S-k": ["S", 1, {"b": "S"}], "n": null})"));
}

}  // namespace
}  // namespace raw
