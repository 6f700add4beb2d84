// The lenient wire-field readers every adapter shares: absent, null and
// wrongly typed values read as unknown, never as an error or a wrong count.
#include "daemon/providers/wire_fields.h"

#include "gtest/gtest.h"

namespace raw::providers {
namespace {

TEST(WireFieldsTest, MissingNullAndWrongTypesReadAsAbsent) {
  Json doc = Json::parse(R"({"s": "text", "n": null, "i": 7, "o": {}})");
  EXPECT_EQ(FindField(doc, "n"), nullptr);
  EXPECT_EQ(FindField(doc, "missing"), nullptr);
  EXPECT_EQ(FindField(Json::array(), "s"), nullptr);
  EXPECT_EQ(StringOf(FindField(doc, "s")), "text");
  EXPECT_EQ(StringOf(FindField(doc, "i")), "");
  EXPECT_EQ(StringOf<Json>(nullptr), "");
}

// A count no request could have is unknown, not a value whose sums wrap.
TEST(WireFieldsTest, AbsurdCountsAreUnknown) {
  Json doc = Json::parse(
      R"({"max": 9223372036854775807, "past": 1099511627777, "float": 5e18, "ok": 2e5})");
  EXPECT_EQ(CountField(doc, "max"), std::nullopt);
  EXPECT_EQ(CountField(doc, "past"), std::nullopt);
  EXPECT_EQ(CountField(doc, "float"), std::nullopt);
  EXPECT_EQ(CountField(doc, "ok"), 200000);
}

TEST(WireFieldsTest, CountsAreWholeNonNegativeNumbersThatFit) {
  Json doc = Json::parse(
      R"({"a": 12, "b": -1, "c": 3.0, "d": 3.5, "e": "12", "f": 18446744073709551615,
          "g": 1099511627776, "h": 1e300})");
  EXPECT_EQ(CountField(doc, "a"), 12);
  EXPECT_EQ(CountField(doc, "b"), std::nullopt);
  EXPECT_EQ(CountField(doc, "c"), 3);
  EXPECT_EQ(CountField(doc, "d"), std::nullopt);
  EXPECT_EQ(CountField(doc, "e"), std::nullopt);
  EXPECT_EQ(CountField(doc, "f"), std::nullopt);  // above int64: unknown, not negative
  EXPECT_EQ(CountField(doc, "g"), kMaxWireCount);
  EXPECT_EQ(CountField(doc, "h"), std::nullopt);
}

TEST(WireFieldsTest, OrderedDocumentsReadTheSame) {
  OrderedJson doc = OrderedJson::parse(R"({"promptTokenCount": 40, "modelVersion": "g-2"})");
  EXPECT_EQ(CountField(doc, "promptTokenCount"), 40);
  EXPECT_EQ(StringOf(FindField(doc, "modelVersion")), "g-2");
}

}  // namespace
}  // namespace raw::providers
