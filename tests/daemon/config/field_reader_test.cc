// Path rendering, value descriptions and duplicate-key detection.
#include "daemon/config/field_reader.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/config/duplicate_keys.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(FieldReaderTest, JoinPathQuotesKeysThatAreNotPlain) {
  EXPECT_EQ(JoinPath("", "models"), "models");
  EXPECT_EQ(JoinPath("models", "gpt-4.1_x"), "models.gpt-4.1_x");
  EXPECT_EQ(JoinPath("models", "my model"), R"(models["my model"])");
  EXPECT_EQ(JoinPath("models", ""), R"(models[""])");
  EXPECT_EQ(JoinPath("models", "a\"b"), R"(models["a\"b"])");
  EXPECT_EQ(JoinPath("", "$schema"), "$schema");
  EXPECT_EQ(IndexPath("agents.a.tools.use", 3), "agents.a.tools.use[3]");
}

TEST(FieldReaderTest, DescribeValue) {
  EXPECT_EQ(DescribeValue(Json("ten")), "\"ten\"");
  EXPECT_EQ(DescribeValue(Json(5)), "5");
  EXPECT_EQ(DescribeValue(Json(-1.5)), "-1.5");
  EXPECT_EQ(DescribeValue(Json(true)), "true");
  EXPECT_EQ(DescribeValue(Json(nullptr)), "null");
  EXPECT_EQ(DescribeValue(Json::object()), "an object");
  EXPECT_EQ(DescribeValue(Json::array()), "an array");
  EXPECT_EQ(DescribeValue(Json(std::string(100, 'x'))), "\"" + std::string(40, 'x') + "\"...");
  // A long string is cut on a character boundary, never inside one.
  std::string accents;
  for (int i = 0; i < 30; ++i) accents += "\xc3\xa9";  // U+00E9, two bytes each
  EXPECT_EQ(DescribeValue(Json(accents)), "\"" + accents.substr(0, 40) + "\"...");
  std::string odd = "x" + accents;  // boundary falls inside the 20th character
  EXPECT_EQ(DescribeValue(Json(odd)), "\"" + odd.substr(0, 39) + "\"...");
}

TEST(FieldReaderTest, ValidNames) {
  EXPECT_TRUE(IsValidName("flash"));
  EXPECT_TRUE(IsValidName("gpt-4.1_mini"));
  EXPECT_FALSE(IsValidName(""));
  EXPECT_FALSE(IsValidName("a b"));
  EXPECT_FALSE(IsValidName("a/b"));
  EXPECT_FALSE(IsValidName("$x"));
}

TEST(FieldReaderTest, IntegerAcceptsOnlyIntegersInRange) {
  Json doc = Json::parse(R"({"a": 5, "b": 5.0, "c": 18446744073709551615, "d": true})");
  std::vector<ConfigProblem> problems;
  FieldReader r(doc, "x", problems);
  EXPECT_EQ(r.Integer("a", 1, 10), 5);
  EXPECT_EQ(r.Integer("b", 1, 10), std::nullopt);
  EXPECT_EQ(r.Integer("c", 1, 10), std::nullopt);
  EXPECT_EQ(r.Integer("d", 0, 10), std::nullopt);
  EXPECT_EQ(r.Integer("absent", 1, 10), std::nullopt);
  std::vector<std::string> lines;
  for (const auto& p : problems) lines.push_back(p.ToString());
  EXPECT_THAT(lines, ElementsAre("x.b: expected a positive integer, got 5.0",
                                 "x.c: expected an integer from 1 to 10, got 18446744073709551615",
                                 "x.d: expected a non-negative integer, got true"));
}

TEST(FieldReaderTest, NonObjectReaderReportsOnceAndReadsNothing) {
  Json doc = Json::array();
  std::vector<ConfigProblem> problems;
  FieldReader r(doc, "tools", problems);
  EXPECT_FALSE(r.is_object());
  r.RejectUnknownKeys({});
  r.Require("x", "something");
  EXPECT_EQ(r.String("x"), std::nullopt);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].ToString(), "tools: expected an object, got an array");
}

std::vector<std::string> Duplicates(std::string_view text) {
  std::vector<std::string> lines;
  for (const ConfigProblem& p : FindDuplicateKeys(text)) lines.push_back(p.path);
  return lines;
}

TEST(DuplicateKeysTest, ReportsEachRepeatAtItsPath) {
  EXPECT_THAT(Duplicates(R"({"a": 1, "b": {"c": [1, {"d": 1, "d": 2}], "c": 3}, "a": 2})"),
              ElementsAre("b.c[1].d", "b.c", "a"));
  EXPECT_THAT(Duplicates(R"([{"x": 1}, {"x": 2}])"), IsEmpty());  // separate objects
  EXPECT_THAT(Duplicates(R"({"a": {"k": 1}, "b": {"k": 1}})"), IsEmpty());
  EXPECT_THAT(Duplicates("{\"a\": 1, // c\n \"a\": 2}"), ElementsAre("a"));
  EXPECT_THAT(Duplicates(R"({"a": 1, "a": )"), ElementsAre("a"));  // up to a syntax error
}

// A hostile file (a package's manifest) repeats one key thousands of times
// under a long one: the problems stay few and short, whatever their number
// and the keys' length.
TEST(DuplicateKeysTest, ManyRepeatsUnderALongKeyAreSummedUp) {
  const std::string long_key(4000, 'k');
  std::string text = absl::StrCat(R"({"$schema": {")", long_key, R"(": {"x": 0)");
  for (int i = 0; i < 500; ++i) text += R"(, "x": 0)";
  text += "}}}";
  std::vector<ConfigProblem> problems = FindDuplicateKeys(text);
  ASSERT_EQ(problems.size(), 21u);
  EXPECT_EQ(problems[0].path, absl::StrCat("$schema.", std::string(64, 'k'), "....x"));
  EXPECT_THAT(problems[20].ToString(), ::testing::HasSubstr("480 more duplicate keys"));
  size_t bytes = 0;
  for (const ConfigProblem& p : problems) bytes += p.ToString().size();
  EXPECT_LT(bytes, 8u * 1024);
}

}  // namespace
}  // namespace raw::config
