// JSON Schema -> Gemini Schema conversion: every rewrite rule and the
// keywords that must be stripped, deterministically.
#include "daemon/providers/google/schema_converter.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace raw::providers::google {
namespace {

// The converted schema as text, "omitted" when parameters are left out.
std::string Convert(std::string_view schema) {
  absl::StatusOr<OrderedJson> parsed = ParseOrderedJson(schema);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return "";
  std::optional<OrderedJson> out = ToGeminiParameters(*parsed);
  return out ? DumpJson(*out) : "omitted";
}

TEST(GoogleSchemaConverterTest, StripsUnsupportedKeywordsAndUppercasesTypes) {
  EXPECT_EQ(Convert(R"({"$schema":"x","$id":"y","type":"object","additionalProperties":false,
      "properties":{"n":{"type":"integer","exclusiveMinimum":0,"minimum":1,"maximum":9,
      "multipleOf":2},"s":{"type":"string","minLength":1,"maxLength":5,"pattern":"^a",
      "examples":["a"],"title":"S","description":"d","default":"a"}},
      "propertyNames":{"pattern":"x"},"patternProperties":{"x":{}},"required":["n","missing"]})"),
            R"({"type":"OBJECT","properties":{"n":{"type":"INTEGER","minimum":1,"maximum":9},)"
            R"("s":{"type":"STRING","minLength":1,"maxLength":5,"pattern":"^a","title":"S",)"
            R"("description":"d","default":"a"}},"required":["n"]})");
}

TEST(GoogleSchemaConverterTest, TypeListsBecomeNullableOrAnyOf) {
  EXPECT_EQ(Convert(R"({"type":"object","properties":{"a":{"type":["string","null"]},
      "b":{"type":["string","integer"]},"c":{"type":["null"]}}})"),
            R"({"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true},)"
            R"("b":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]},"c":{"type":"NULL"}}})");
}

TEST(GoogleSchemaConverterTest, ConstAndEnums) {
  EXPECT_EQ(Convert(R"({"type":"object","properties":{"k":{"const":"fixed"},
      "e":{"type":"string","enum":["a","b"]},"n":{"type":"integer","enum":[1,2]},
      "c":{"const":3}}})"),
            R"({"type":"OBJECT","properties":{"k":{"enum":["fixed"]},)"
            R"("e":{"type":"STRING","enum":["a","b"]},"n":{"type":"INTEGER"},"c":{}}})");
}

TEST(GoogleSchemaConverterTest, FormatsOnlyWhereGeminiAcceptsThem) {
  EXPECT_EQ(Convert(R"({"type":"object","properties":{"u":{"type":"string","format":"uri"},
      "t":{"type":"string","format":"date-time"},"f":{"type":"number","format":"float"},
      "i":{"type":"integer","format":"int64"},"x":{"type":"integer","format":"float"}}})"),
            R"({"type":"OBJECT","properties":{"u":{"type":"STRING"},)"
            R"("t":{"type":"STRING","format":"date-time"},"f":{"type":"NUMBER","format":"float"},)"
            R"("i":{"type":"INTEGER","format":"int64"},"x":{"type":"INTEGER"}}})");
}

TEST(GoogleSchemaConverterTest, ResolvesLocalRefsInline) {
  EXPECT_EQ(Convert(R"({"type":"object","$defs":{"P":{"type":"object",
      "properties":{"x":{"type":"number"}},"required":["x"]}},
      "properties":{"p":{"$ref":"#/$defs/P","description":"a point"},
      "q":{"$ref":"#/definitions/missing"}}})"),
            R"({"type":"OBJECT","properties":{"p":{"type":"OBJECT",)"
            R"("properties":{"x":{"type":"NUMBER"}},"required":["x"],"description":"a point"},)"
            R"("q":{}}})");
}

TEST(GoogleSchemaConverterTest, RecursiveRefsAreCutOff) {
  EXPECT_EQ(Convert(R"({"type":"object","$defs":{"Node":{"type":"object",
      "properties":{"next":{"$ref":"#/$defs/Node"}}}},
      "properties":{"head":{"$ref":"#/$defs/Node"}}})"),
            R"({"type":"OBJECT","properties":{"head":{"type":"OBJECT",)"
            R"("properties":{"next":{"type":"OBJECT"}}}}})");
}

TEST(GoogleSchemaConverterTest, OneOfAndAllOf) {
  EXPECT_EQ(Convert(R"({"type":"object","properties":{"v":{"oneOf":[{"type":"string"},
      {"type":"integer"}]}},"allOf":[{"properties":{"w":{"type":"boolean"},
      "v":{"type":"null"}},"required":["w"]}]})"),
            R"({"type":"OBJECT","properties":{"v":{"anyOf":[{"type":"STRING"},)"
            R"({"type":"INTEGER"}]},"w":{"type":"BOOLEAN"}},"required":["w"]})");
}

TEST(GoogleSchemaConverterTest, ArraysAndTupleItems) {
  EXPECT_EQ(Convert(R"({"type":"object","properties":{"a":{"type":"array",
      "items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true},
      "t":{"type":"array","items":[{"type":"integer"},{"type":"string"}]}}})"),
            R"({"type":"OBJECT","properties":{"a":{"type":"ARRAY","items":{"type":"STRING"},)"
            R"("minItems":1,"maxItems":3},"t":{"type":"ARRAY","items":{"type":"INTEGER"}}}})");
}

TEST(GoogleSchemaConverterTest, EmptyObjectsOmittedAtRootKeptWhenNested) {
  EXPECT_EQ(Convert(R"({"type":"object","properties":{}})"), "omitted");
  EXPECT_EQ(Convert(R"({"type":"object","additionalProperties":false})"), "omitted");
  EXPECT_EQ(Convert("{}"), "omitted");
  EXPECT_EQ(Convert("null"), "omitted");
  EXPECT_EQ(Convert(R"({"type":"object","properties":{"o":{"type":"object",
      "description":"free form","properties":{}}}})"),
            R"({"type":"OBJECT","properties":{"o":{"type":"OBJECT","description":"free form"}}})");
}

TEST(GoogleSchemaConverterTest, SameInputSameBytes) {
  std::string schema = R"({"type":"object","properties":{"z":{"type":"string"},
      "a":{"type":"integer"}},"required":["z","a"]})";
  EXPECT_EQ(Convert(schema), Convert(schema));
  EXPECT_EQ(Convert(schema),
            R"({"type":"OBJECT","properties":{"z":{"type":"STRING"},"a":{"type":"INTEGER"}},)"
            R"("required":["z","a"]})");
}

// Sixteen levels of definitions whose two properties both refer to the next
// inline 2^16 copies of the last one; the expansion has a budget, so the
// output stays small (and a wider fan-out cannot exhaust memory).
TEST(GoogleSchemaConverterTest, RefFanOutIsBounded) {
  OrderedJson defs = OrderedJson::object();
  auto refers_to = [](int n) {
    std::string ref = "#/$defs/D" + std::to_string(n);
    return OrderedJson{{"type", "object"},
                       {"properties", {{"a", {{"$ref", ref}}}, {"b", {{"$ref", ref}}}}}};
  };
  for (int n = 1; n <= 15; ++n) defs["D" + std::to_string(n)] = refers_to(n + 1);
  defs["D16"] = {{"type", "string"}};
  OrderedJson schema = refers_to(1);
  schema["$defs"] = defs;
  std::optional<OrderedJson> out = ToGeminiParameters(schema);
  ASSERT_TRUE(out.has_value());
  std::string text = DumpJson(*out);
  EXPECT_LT(text.size(), 256 * 1024u);
  // The first branches are inlined; past the budget a reference keeps only
  // its target's type.
  EXPECT_EQ((*out)["properties"]["a"]["properties"]["a"]["type"], "OBJECT");
  EXPECT_NE(text.find(R"("b":{"type":"OBJECT"})"), std::string::npos);
}

}  // namespace
}  // namespace raw::providers::google
