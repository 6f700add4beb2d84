// Patterns RE2 cannot compile (lookaround, backreferences) run on PCRE2
// within matching limits, for "pattern" and "patternProperties" alike; what
// a limit stops is refused, never let through.
#include "daemon/tools/schema_regex.h"

#include <memory>
#include <string>

#include "daemon/tools/schema_validator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools {
namespace {

using ::testing::HasSubstr;

// The schema an MCP server might publish, and arguments that keep a
// backtracking engine busy for 2^39 steps.
constexpr char kPathological[] = "^(?=a)(a|a)*b$";

std::shared_ptr<const SchemaValidator> CompileSchema(const Json& schema) {
  auto validator = SchemaValidator::Compile(schema);
  EXPECT_TRUE(validator.ok()) << validator.status();
  return validator.ok() ? *validator : nullptr;
}

// The error message for `instance`, or "" when it is valid.
std::string Probe(const SchemaValidator& validator, const Json& instance) {
  absl::Status status = validator.Validate(instance, "probe");
  if (status.ok()) return "";
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  return std::string(status.message());
}

TEST(SchemaRegexTest, PathologicalPatternIsRefusedAtTheMatchingLimit) {
  auto validator =
      CompileSchema({{"type", "object"},
                     {"properties", {{"s", {{"type", "string"}, {"pattern", kPathological}}}}}});
  ASSERT_NE(validator, nullptr);
  // No "b" at all: PCRE2 knows without backtracking (std::regex never ended).
  EXPECT_THAT(Probe(*validator, {{"s", std::string(39, 'a') + "c"}}),
              HasSubstr("- /s: expected a string matching the pattern"));
  // A "b" after the "c": every way of matching the a's is tried, up to the limit.
  EXPECT_THAT(Probe(*validator, {{"s", std::string(39, 'a') + "cb"}}),
              HasSubstr("- /s: could not be checked against \"^(?=a)(a|a)*b$\" within Raw's "
                        "matching limit"));
  EXPECT_EQ(Probe(*validator, {{"s", "aaab"}}), "");
}

TEST(SchemaRegexTest, PathologicalPropertyNameIsRefusedAtTheMatchingLimit) {
  Json schema = {{"type", "object"},
                 {"patternProperties", {{kPathological, {{"type", "integer"}}}}}};
  std::string name = std::string(39, 'a') + "cb";
  auto open = CompileSchema(schema);
  ASSERT_NE(open, nullptr);
  EXPECT_THAT(Probe(*open, {{name, 1}}),
              HasSubstr("- /" + name + ": property name could not be checked against \"" +
                        kPathological + "\" within Raw's matching limit"));
  EXPECT_EQ(Probe(*open, {{"ab", 1}}), "");
  EXPECT_THAT(Probe(*open, {{"ab", "x"}}), HasSubstr("- /ab: expected type integer, got string"));

  schema["additionalProperties"] = false;
  auto closed = CompileSchema(schema);
  ASSERT_NE(closed, nullptr);
  EXPECT_THAT(Probe(*closed, {{name, 1}}), HasSubstr("within Raw's matching limit"));
  EXPECT_EQ(Probe(*closed, {{"aab", 1}}), "");
  EXPECT_THAT(Probe(*closed, {{"x", 1}}), HasSubstr("- /: property \"x\" is not allowed"));
}

TEST(SchemaRegexTest, LookaroundAndBackreferencesStillWork) {
  auto validator = CompileSchema({{"properties",
                                   {{"code", {{"pattern", "^(?=.*\\d)(?!.*_)[a-z0-9]+$"}}},
                                    {"pair", {{"pattern", "^(\\w)\\1$"}}},
                                    {"after", {{"pattern", "(?<=x)y"}}}}}});
  ASSERT_NE(validator, nullptr);
  EXPECT_EQ(Probe(*validator, {{"code", "abc1"}, {"pair", "aa"}, {"after", "xy"}}), "");
  EXPECT_THAT(Probe(*validator, {{"code", "abc"}}),
              HasSubstr("- /code: expected a string matching the pattern"));
  EXPECT_THAT(Probe(*validator, {{"code", "ab_1"}}), HasSubstr("- /code: expected a string"));
  EXPECT_THAT(Probe(*validator, {{"pair", "ab"}}), HasSubstr("- /pair: expected a string"));
  EXPECT_THAT(Probe(*validator, {{"after", "zy"}}), HasSubstr("- /after: expected a string"));
}

TEST(SchemaRegexTest, BacktrackingPatternsFollowEcmaScript) {
  std::string error;
  auto search = [&](const char* pattern, const std::string& subject) {
    auto regex = schema_keywords::SchemaRegex::Compile(pattern, &error);
    EXPECT_TRUE(regex.has_value()) << error;
    return regex && regex->Search(subject, &error);
  };
  // "$" is the very end, not before a final newline.
  EXPECT_TRUE(search("^(?=a)a$", "a"));
  EXPECT_FALSE(search("^(?=a)a$", "a\n"));
  // \d is ASCII: ARABIC-INDIC DIGIT THREE is not a digit.
  EXPECT_TRUE(search("^(?=.)\\d$", "3"));
  EXPECT_FALSE(search("^(?=.)\\d$", "\u0663"));
  // \uhhhh (which RE2 refuses) names a code point; "." is one code point.
  EXPECT_TRUE(search("^\\u00e9.$", "\u00e9\u00e9"));
  EXPECT_FALSE(search("^(?=.).$", "\n"));
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_FALSE(schema_keywords::SchemaRegex::Compile("(?=", &error).has_value());
  EXPECT_THAT(error, HasSubstr("invalid regular expression \"(?=\""));
}

TEST(SchemaRegexTest, NormalPatternsOnLongStringsStayWithinTheLimits) {
  std::string error;
  auto regex = schema_keywords::SchemaRegex::Compile("^(?:(?!foo).)*$", &error);
  ASSERT_TRUE(regex.has_value()) << error;
  std::string subject(schema_keywords::kMaxBacktrackingSubject, 'a');
  EXPECT_TRUE(regex->Search(subject, &error)) << error;
  EXPECT_FALSE(regex->Search(subject + "a", &error));
  EXPECT_THAT(error, HasSubstr("bytes is too long to check against"));
  // RE2 has no length limit.
  auto linear = schema_keywords::SchemaRegex::Compile("^a+$", &error);
  ASSERT_TRUE(linear.has_value());
  error.clear();
  EXPECT_TRUE(linear->Search(std::string(1 << 20, 'a'), &error));
  EXPECT_TRUE(error.empty());
}

TEST(SchemaRegexTest, PatternPropertiesValidateTheirSubschemas) {
  auto validator = CompileSchema(ParseJson(R"json({
    "definitions": {"count": {"type": "integer", "minimum": 0}},
    "properties": {"name": {"type": "string"}},
    "patternProperties": {
      "^x-(?!y)": {"$ref": "#/definitions/count"},
      "^n": {"minLength": 3}
    },
    "additionalProperties": false
  })json")
                                     .value());
  ASSERT_NE(validator, nullptr);
  EXPECT_EQ(Probe(*validator, {{"name", "abc"}, {"x-a", 1}, {"x-b", 2}}), "");
  EXPECT_THAT(Probe(*validator, {{"x-a", "s"}}),
              HasSubstr("- /x-a: expected type integer, got string"));
  EXPECT_THAT(Probe(*validator, {{"x-a", -1}}), HasSubstr("- /x-a: expected a number >= 0"));
  // "name" is a property and matches "^n": both apply.
  EXPECT_THAT(Probe(*validator, {{"name", "ab"}}), HasSubstr("- /name: expected at least 3"));
  EXPECT_THAT(Probe(*validator, {{"x-y", 1}}), HasSubstr("- /: property \"x-y\" is not allowed"));
  EXPECT_THAT(Probe(*validator, {{"other", 1}}),
              HasSubstr("- /: property \"other\" is not allowed"));
}

TEST(SchemaRegexTest, AdditionalPropertiesSkipWhatPatternPropertiesMatch) {
  auto validator = CompileSchema(ParseJson(R"json({
    "properties": {"p": {"type": "boolean"}},
    "patternProperties": {"^(?=i)": {"type": "integer"}},
    "additionalProperties": {"type": "string"}
  })json")
                                     .value());
  ASSERT_NE(validator, nullptr);
  EXPECT_EQ(Probe(*validator, {{"p", true}, {"i1", 1}, {"s", "x"}}), "");
  EXPECT_THAT(Probe(*validator, {{"i1", "x"}}), HasSubstr("- /i1: expected type integer"));
  EXPECT_THAT(Probe(*validator, {{"s", 1}}), HasSubstr("- /s: expected type string"));
  EXPECT_THAT(Probe(*validator, {{"p", "x"}}), HasSubstr("- /p: expected type boolean"));
}

TEST(SchemaRegexTest, NestedAndRecursivePatternProperties) {
  auto validator = CompileSchema(ParseJson(R"json({
    "properties": {"v": {"type": "integer"},
                   "list": {"items": {"anyOf": [{"type": "null"},
                                                {"patternProperties": {"^k": {"type": "string"}}}]}}},
    "patternProperties": {"^c": {"$ref": "#"}}
  })json")
                                     .value());
  ASSERT_NE(validator, nullptr);
  EXPECT_EQ(Probe(*validator, {{"c1", {{"c2", {{"v", 1}}}}}, {"list", {nullptr, {{"k", "s"}}}}}),
            "");
  EXPECT_THAT(Probe(*validator, {{"c1", {{"c2", {{"v", "x"}}}}}}),
              HasSubstr("- /c1/c2/v: expected type integer, got string"));
  EXPECT_THAT(Probe(*validator, {{"list", {{{"k", 1}}}}}),
              HasSubstr("- /list/0/k: expected type string, got integer"));
}

}  // namespace
}  // namespace raw::tools
