#include "daemon/tools/schema_validator.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

Json Parse(const std::string& text) {
  auto json = ParseJson(text);
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? *json : Json();
}

std::shared_ptr<const SchemaValidator> Compile(const std::string& schema) {
  auto validator = SchemaValidator::Compile(Parse(schema));
  EXPECT_TRUE(validator.ok()) << validator.status();
  return validator.ok() ? *validator : nullptr;
}

// The error message for `instance`, or "" when it is valid.
std::string Check(const SchemaValidator& validator, const std::string& instance) {
  absl::Status status = validator.Validate(Parse(instance), "read_file");
  if (status.ok()) return "";
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  return std::string(status.message());
}

std::string CompileError(const std::string& schema) {
  auto validator = SchemaValidator::Compile(Parse(schema));
  EXPECT_FALSE(validator.ok()) << schema;
  if (validator.ok()) return "";
  EXPECT_EQ(validator.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(validator.status().message());
}

constexpr char kReadFile[] = R"({
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1},
    "offset": {"type": "integer", "minimum": 1},
    "limit": {"type": "integer", "minimum": 1, "maximum": 2000},
    "mode": {"enum": ["text", "hex"]},
    "options": {
      "type": "object",
      "properties": {"depth": {"type": "integer"}, "tags": {"type": "array",
                     "items": {"type": "string"}, "maxItems": 2}},
      "additionalProperties": false
    }
  },
  "required": ["path"],
  "additionalProperties": false
})";

TEST(SchemaValidatorTest, AcceptsValidArguments) {
  auto validator = Compile(kReadFile);
  ASSERT_NE(validator, nullptr);
  EXPECT_EQ(Check(*validator, R"({"path": "a.txt"})"), "");
  EXPECT_EQ(Check(*validator, R"({"path": "a", "offset": 3, "limit": 2000, "mode": "hex"})"), "");
  // A float with a zero fraction is an integer in Draft 7.
  EXPECT_EQ(Check(*validator, R"({"path": "a", "offset": 3.0})"), "");
  EXPECT_EQ(Check(*validator, R"({"path": "a", "options": {"depth": 1, "tags": ["x"]}})"), "");
}

TEST(SchemaValidatorTest, ReportsEveryViolationWithItsPointer) {
  auto validator = Compile(kReadFile);
  ASSERT_NE(validator, nullptr);
  std::string message = Check(*validator, R"({"offset": "3", "colour": "red"})");
  EXPECT_THAT(message, StartsWith("arguments do not match the schema of read_file:\n"));
  EXPECT_THAT(message, HasSubstr("\n- /offset: expected type integer, got string"));
  EXPECT_THAT(message, HasSubstr("\n- /: missing required property \"path\""));
  EXPECT_THAT(message, HasSubstr("\n- /: property \"colour\" is not allowed (allowed: limit, "
                                 "mode, offset, options, path)"));
  // Only the concise lines: no wrapper lines from valijson's nesting.
  EXPECT_THAT(message, Not(HasSubstr("Failed")));
  EXPECT_THAT(message, Not(HasSubstr("<root>")));
}

TEST(SchemaValidatorTest, TypeMismatch) {
  auto validator = Compile(kReadFile);
  ASSERT_NE(validator, nullptr);
  EXPECT_THAT(Check(*validator, R"({"path": 5})"),
              HasSubstr("- /path: expected type string, got integer"));
  EXPECT_THAT(Check(*validator, R"({"path": "a", "offset": 1.5})"),
              HasSubstr("- /offset: expected type integer, got number"));
  EXPECT_THAT(Check(*validator, R"([1])"), HasSubstr("- /: expected type object, got array"));
  EXPECT_THAT(Check(*validator, R"({"path": null})"),
              HasSubstr("- /path: expected type string, got null"));
}

TEST(SchemaValidatorTest, NestedLocationsAreFullPointers) {
  auto validator = Compile(kReadFile);
  ASSERT_NE(validator, nullptr);
  std::string message = Check(
      *validator, R"({"path": "a", "options": {"depth": "deep", "tags": ["x", 2, "y"], "z": 1}})");
  EXPECT_THAT(message, HasSubstr("- /options/depth: expected type integer, got string"));
  EXPECT_THAT(message, HasSubstr("- /options/tags/1: expected type string, got integer"));
  EXPECT_THAT(message, HasSubstr("- /options/tags: expected at most 2 items, got 3"));
  EXPECT_THAT(message,
              HasSubstr("- /options: property \"z\" is not allowed (allowed: depth, tags)"));
}

TEST(SchemaValidatorTest, PointerTokensAreEscaped) {
  auto validator =
      Compile(R"({"properties": {"a/b": {"properties": {"c~d": {"type": "string"}}}}})");
  ASSERT_NE(validator, nullptr);
  EXPECT_THAT(Check(*validator, R"({"a/b": {"c~d": 1}})"),
              HasSubstr("- /a~1b/c~0d: expected type string, got integer"));
}

TEST(SchemaValidatorTest, EnumConstAndBounds) {
  auto validator = Compile(kReadFile);
  ASSERT_NE(validator, nullptr);
  EXPECT_THAT(Check(*validator, R"({"path": "a", "mode": "bin"})"),
              HasSubstr("- /mode: expected one of \"text\", \"hex\"; got \"bin\""));
  EXPECT_THAT(Check(*validator, R"({"path": "a", "offset": 0})"),
              HasSubstr("- /offset: expected a number >= 1, got 0"));
  EXPECT_THAT(Check(*validator, R"({"path": "a", "limit": 2001})"),
              HasSubstr("- /limit: expected a number <= 2000, got 2001"));
  EXPECT_THAT(Check(*validator, R"({"path": ""})"),
              HasSubstr("- /path: expected at least 1 characters, got 0"));
  auto constant = Compile(R"({"const": {"a": 1}})");
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(Check(*constant, R"({"a": 1.0})"), "");
  EXPECT_THAT(Check(*constant, R"({"a": 2})"),
              HasSubstr("- /: expected the value {\"a\":1}, got {\"a\":2}"));
  auto exclusive = Compile(R"({"exclusiveMaximum": 2.5, "multipleOf": 0.5})");
  ASSERT_NE(exclusive, nullptr);
  EXPECT_THAT(Check(*exclusive, "2.5"), HasSubstr("- /: expected a number < 2.5, got 2.5"));
  EXPECT_THAT(Check(*exclusive, "0.7"), HasSubstr("- /: expected a multiple of 0.5, got 0.7"));
}

TEST(SchemaValidatorTest, AnyOfAlternativesAreMergedAndSummarized) {
  auto validator =
      Compile(R"({"properties": {"n": {"anyOf": [{"type": "string"}, {"type": "null"}]}}})");
  ASSERT_NE(validator, nullptr);
  std::string message = Check(*validator, R"({"n": 3})");
  EXPECT_THAT(message, HasSubstr("- /n: expected type string or null, got integer"));
  EXPECT_THAT(message, HasSubstr("- /n: matches none of the \"anyOf\" alternatives"));
  EXPECT_THAT(message, Not(HasSubstr("alternatives, got")));
  EXPECT_EQ(Check(*validator, R"({"n": null})"), "");
}

TEST(SchemaValidatorTest, PatternsAndFormats) {
  auto validator = Compile(R"({"properties": {"id": {"type": "string", "pattern": "^[a-z]+-\\d+$"},
                                             "day": {"format": "date"}}})");
  ASSERT_NE(validator, nullptr);
  EXPECT_EQ(Check(*validator, R"({"id": "abc-12", "day": "2024-02-29"})"), "");
  EXPECT_THAT(
      Check(*validator, R"({"id": "ABC"})"),
      HasSubstr("- /id: expected a string matching the pattern \"^[a-z]+-\\d+$\", got \"ABC\""));
  EXPECT_THAT(Check(*validator, R"({"day": "2023-02-29"})"), HasSubstr("- /day: expected a date"));
  // A long string cannot exhaust the stack (RE2 does not recurse).
  std::string long_id(500000, 'a');
  EXPECT_THAT(Check(*validator, "{\"id\": \"" + long_id + "\"}"),
              HasSubstr("expected a string matching the pattern"));
}

TEST(SchemaValidatorTest, ManyErrorsAreCapped) {
  auto validator = Compile(R"({"type": "array", "items": {"type": "string"}})");
  ASSERT_NE(validator, nullptr);
  std::string many = "[";
  for (int i = 0; i < 50; ++i) many += (i ? "," : "") + std::to_string(i);
  many += "]";
  std::string message = Check(*validator, many);
  EXPECT_THAT(message, HasSubstr("- /19: expected type string, got integer"));
  EXPECT_THAT(message, Not(HasSubstr("- /20:")));
  EXPECT_THAT(message, HasSubstr("- … and 30 more"));
}

TEST(SchemaValidatorTest, InvalidSchemasAreRejectedWithTheLocation) {
  EXPECT_THAT(CompileError(R"({"type": "strnig"})"), HasSubstr("/type: expected a type name"));
  EXPECT_THAT(CompileError(R"({"properties": {"a": {"type": "object", "required": "x"}}})"),
              HasSubstr("/properties/a/required: expected an array of distinct property names, "
                        "got \"x\""));
  EXPECT_THAT(CompileError(R"({"properties": 5})"), HasSubstr("/properties: expected an object"));
  EXPECT_THAT(CompileError(R"({"minimum": "a"})"), HasSubstr("/minimum: expected a number"));
  EXPECT_THAT(CompileError(R"({"maxLength": -1})"),
              HasSubstr("/maxLength: expected a non-negative integer, got -1"));
  // Counts written as C++ literals are signed integers: still counts.
  EXPECT_TRUE(SchemaValidator::Compile(Json{{"type", "string"}, {"minLength", 1}}).ok());
  EXPECT_FALSE(SchemaValidator::Compile(Json{{"type", "string"}, {"minLength", -1}}).ok());
  EXPECT_THAT(CompileError(R"({"items": 5})"),
              HasSubstr("/items: expected a schema (an object or a boolean), got integer"));
  EXPECT_THAT(CompileError(R"({"pattern": "(["})"),
              HasSubstr("/pattern: invalid regular expression"));
  EXPECT_THAT(CompileError(R"({"anyOf": []})"), HasSubstr("/anyOf: expected a non-empty array"));
  EXPECT_THAT(CompileError("5"), HasSubstr("/: expected a schema"));
  EXPECT_THAT(
      CompileError(R"({"properties": {"a": {"$ref": "#/definitions/nope"}}})"),
      HasSubstr("/properties/a/$ref: \"#/definitions/nope\" points at nothing in this schema"));
  EXPECT_THAT(CompileError(R"({"$ref": "http://example.com/schema.json"})"),
              HasSubstr("\"$ref\" to \"http://example.com/schema.json\" is not supported"));
  // Every malformed keyword is listed, each with its location.
  std::string both = CompileError(R"({"properties": {"a": {"type": "strnig", "minimum": "x"}}})");
  EXPECT_THAT(both, StartsWith("not a valid JSON Schema (Draft 7):\n"));
  EXPECT_THAT(both, HasSubstr("\n- /properties/a/type: "));
  EXPECT_THAT(both, HasSubstr("\n- /properties/a/minimum: expected a number, got \"x\""));
}

TEST(SchemaValidatorTest, BooleanAndRefSchemas) {
  auto never = Compile("false");
  ASSERT_NE(never, nullptr);
  EXPECT_NE(Check(*never, "1"), "");
  auto always = Compile("true");
  ASSERT_NE(always, nullptr);
  EXPECT_EQ(Check(*always, R"({"anything": [1]})"), "");
  auto ref = Compile(R"({"definitions": {"pos": {"type": "integer", "minimum": 0}},
                         "properties": {"x": {"$ref": "#/definitions/pos"}}})");
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ(Check(*ref, R"({"x": 3})"), "");
  EXPECT_THAT(Check(*ref, R"({"x": -1})"), HasSubstr("- /x: expected a number >= 0, got -1"));
}

// valijson follows "$ref" with no bound: a loop that never moves into a
// part of the value would recurse until the stack overflowed, when parsing
// (a chain of references) or when validating (allOf, anyOf, ...).
TEST(SchemaValidatorTest, ReferenceLoopsThatStayOnOneValueAreRejected) {
  EXPECT_THAT(CompileError(R"({"type": "object", "$ref": "#"})"),
              HasSubstr("- /$ref: \"#\" leads back to / without moving into a part of the value"));
  EXPECT_THAT(CompileError(R"({"definitions": {"a": {"$ref": "#/definitions/b"},
                                               "b": {"$ref": "#/definitions/a"}},
                               "properties": {"x": {"$ref": "#/definitions/a"}}})"),
              HasSubstr("/$ref: \"#/definitions/"));
  EXPECT_THAT(CompileError(R"({"definitions": {"a": {"anyOf": [{"$ref": "#/definitions/a"},
                                                        {"type": "string"}]}},
                       "properties": {"x": {"$ref": "#/definitions/a"}}})"),
              HasSubstr("- /definitions/a/anyOf/0/$ref: \"#/definitions/a\" leads back to "
                        "/definitions/a"));
  for (const char* loop : {
           R"({"allOf": [{"$ref": "#"}]})",
           R"({"oneOf": [{"type": "string"}, {"$ref": "#"}]})",
           R"({"not": {"$ref": "#"}})",
           R"({"if": {"$ref": "#"}})",
           R"({"if": true, "then": {"$ref": "#"}})",
           R"({"if": true, "else": {"$ref": "#"}})",
           R"({"dependencies": {"a": {"$ref": "#"}}})",
           R"({"properties": {"a": {"allOf": [{"$ref": "#/properties/a"}]}}})",
       }) {
    EXPECT_THAT(CompileError(loop), HasSubstr("without moving into a part of the value")) << loop;
  }
}

// A loop through a keyword that moves into a part of the value ends where
// the value ends: a recursive schema.
TEST(SchemaValidatorTest, RecursiveSchemasAreChecked) {
  auto tree = Compile(R"({"type": "object", "required": ["name"],
                          "properties": {"name": {"type": "string"},
                                         "children": {"type": "array", "items": {"$ref": "#"}}}})");
  ASSERT_NE(tree, nullptr);
  EXPECT_EQ(Check(*tree, R"({"name": "a", "children": [{"name": "b", "children": []}]})"), "");
  EXPECT_THAT(Check(*tree, R"({"name": "a", "children": [{"name": "b", "children": [{}]}]})"),
              HasSubstr("- /children/0/children/0: missing required property \"name\""));
  for (const char* recursive : {
           R"({"additionalProperties": {"$ref": "#"}})",
           R"({"patternProperties": {"^a": {"$ref": "#"}}})",
           R"({"items": [{"$ref": "#"}], "additionalItems": {"$ref": "#"}})",
           R"({"contains": {"$ref": "#"}})",
           R"({"propertyNames": {"$ref": "#"}})",
           R"({"definitions": {"a": {"anyOf": [{"type": "null"},
                                               {"properties": {"next": {"$ref": "#/definitions/a"}}}]}},
               "$ref": "#/definitions/a"})",
       }) {
    EXPECT_NE(Compile(recursive), nullptr) << recursive;
  }
  // A loop nobody refers to is never parsed, so it does no harm.
  EXPECT_NE(Compile(R"({"definitions": {"a": {"$ref": "#/definitions/a"}}})"), nullptr);
}

// References that do not loop may still chain deeper than the stack allows.
TEST(SchemaValidatorTest, ReferenceChainsTooDeepToParseAreRejected) {
  Json definitions = Json::object();
  const int kLinks = 5000;
  for (int i = 0; i < kLinks; ++i) {
    definitions[absl::StrCat("d", i)] = {
        {"allOf", Json::array({{{"$ref", absl::StrCat("#/definitions/d", i + 1)}}})}};
  }
  definitions[absl::StrCat("d", kLinks)] = {{"type", "integer"}};
  Json schema = {{"definitions", definitions},
                 {"properties", {{"x", {{"$ref", "#/definitions/d0"}}}}}};
  auto deep = SchemaValidator::Compile(schema);
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(deep.status().message(), HasSubstr("/: subschemas nest more than 1000 deep"));
  // valijson parses a subschema again for each spelling of a reference to
  // it: 100 spellings at the bottom of 100 levels would nest 10000 deep.
  Json bottom = Json::object();
  for (int mask = 0; mask < 100; ++mask) {
    std::string name;
    for (int i = 0; i < 7; ++i) {
      char c = static_cast<char>('a' + i);
      name += (mask >> i) & 1 ? absl::StrCat("%", absl::Hex(c)) : std::string(1, c);
    }
    bottom[absl::StrCat("p", mask)] = {{"$ref", "#/definitions/" + name}};
  }
  Json nested = {{"properties", bottom}};
  for (int i = 0; i < 100; ++i) nested = {{"properties", {{"n", std::move(nested)}}}};
  auto respelled = SchemaValidator::Compile(
      {{"definitions", {{"abcdefg", std::move(nested)}}}, {"$ref", "#/definitions/abcdefg"}});
  ASSERT_FALSE(respelled.ok());
  EXPECT_THAT(respelled.status().message(), HasSubstr("nest more than 1000 deep"));
}

// valijson matches a reference's URI against a std::regex, which recurses
// once per character.
TEST(SchemaValidatorTest, OverlongReferencesAreRejected) {
  Json schema = {{"properties", {{"x", {{"$ref", "urn:ab:" + std::string(200000, 'a') + "#"}}}}}};
  auto validator = SchemaValidator::Compile(schema);
  ASSERT_FALSE(validator.ok());
  EXPECT_THAT(validator.status().message(),
              HasSubstr("/properties/x/$ref: longer than 1024 bytes"));
}

// Arguments nested deeper than any parsed JSON (built in memory) under a
// recursive schema: the check fails instead of the stack.
TEST(SchemaValidatorTest, ValidationStopsBeforeTheStackRunsOut) {
  auto list = Compile(R"({"type": "object", "properties": {"next": {"$ref": "#"}}})");
  ASSERT_NE(list, nullptr);
  Json deep = Json::object();
  for (int i = 0; i < 100; ++i) deep = Json{{"next", std::move(deep)}};
  EXPECT_TRUE(list->Validate(deep, "t").ok());
  for (int i = 0; i < 20000; ++i) deep = Json{{"next", std::move(deep)}};
  absl::Status status = list->Validate(deep, "t");
  EXPECT_THAT(status.message(), HasSubstr("nest too deeply to be checked"));
}

// References that branch without looping: d0 a string, each d(i) both of
// two references to d(i-1). 2^40 subschemas for one value: the check stops
// and says why instead of running for hours.
TEST(SchemaValidatorTest, ReferencesThatBranchTooOftenStopTheCheck) {
  Json defs = Json::object();
  defs["d0"] = Json{{"type", "string"}};
  for (int i = 1; i <= 40; ++i) {
    const std::string below = absl::StrCat("#/definitions/d", i - 1);
    defs[absl::StrCat("d", i)] =
        Json{{"allOf", Json::array({Json{{"$ref", below}}, Json{{"$ref", below}}})}};
  }
  Json schema = {{"type", "object"},
                 {"definitions", defs},
                 {"properties", {{"x", {{"$ref", "#/definitions/d40"}}}}}};
  auto branching = SchemaValidator::Compile(schema);
  ASSERT_FALSE(branching.ok());
  EXPECT_THAT(std::string(branching.status().message()),
              HasSubstr("/definitions/d12: applies more than 10000 subschemas to one value"));
  // Branching on the way down the value: each level of the arguments
  // doubles the work, which only the arguments' depth bounds. The check
  // counts its steps and stops.
  auto doubling = Compile(
      R"({"type": "object",
          "properties": {"next": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}})");
  ASSERT_NE(doubling, nullptr);
  Json nested = Json::object();
  for (int i = 0; i < 10; ++i) nested = Json{{"next", std::move(nested)}};
  EXPECT_TRUE(doubling->Validate(nested, "t").ok());
  for (int i = 0; i < 30; ++i) nested = Json{{"next", std::move(nested)}};
  EXPECT_THAT(doubling->Validate(nested, "t").message(), HasSubstr("takes too long"));
  // Large arguments under an ordinary schema stay well within the steps.
  auto strings = Compile(
      R"({"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}}}})");
  ASSERT_NE(strings, nullptr);
  Json many = Json::array();
  for (int i = 0; i < 20000; ++i) many.push_back("s");
  EXPECT_TRUE(strings->Validate(Json{{"xs", many}}, "t").ok());
}

TEST(SchemaValidatorTest, ValidatesConcurrently) {
  auto validator = Compile(kReadFile);
  ASSERT_NE(validator, nullptr);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (!validator->Validate(Parse(R"({"path": "a"})"), "x").ok()) ++failures;
        if (validator->Validate(Parse(R"({"path": 1})"), "x").ok()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace raw::tools
