// JsonFields: typed, non-throwing reads of the fields of one JSON object, for
// decoders of stored data (event_codec.cc).
//
// A reader remembers the first problem it meets (a missing field, a wrong
// type, an out-of-range number, an unknown enum name) and returns a default
// value from then on, so a decoder reads every field and checks status() once.
// Messages name the path of the field ("tool_result.status: ...").
//
// A reader borrows the JSON value it reads; it is a short-lived local object,
// not thread-safe, and never throws.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace raw::events {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

class JsonFields {
 public:
  // `path` names the object in messages ("assistant_message").
  JsonFields(const Json& object, std::string path);

  // Required fields: absent, null or of another type is an error.
  std::string String(const char* key);
  // For fields added after rows were first written: "" when absent.
  std::string OptionalString(const char* key);
  bool Bool(const char* key);
  // For flags added after rows were first written: false when absent.
  bool OptionalBool(const char* key);
  int Int(const char* key);
  int64_t Int64(const char* key);
  uint64_t Uint64(const char* key);
  // An optional non-negative count: absent or null is std::nullopt.
  std::optional<int64_t> OptionalCount(const char* key);
  // A required number, and an optional one (absent or null: nullopt).
  double Double(const char* key);
  std::optional<double> OptionalDouble(const char* key);

  // A required string that must be one of `names`.
  template <typename E, size_t N>
  E Enum(const char* key, const EnumName<E> (&names)[N]) {
    std::string text = String(key);
    if (!status_.ok()) return names[0].value;
    for (const auto& n : names) {
      if (text == n.name) return n.value;
    }
    std::string expected;
    for (const auto& n : names) expected += (expected.empty() ? "" : ", ") + std::string(n.name);
    Fail(key, "unknown value \"" + text + "\" (expected one of " + expected + ")");
    return names[0].value;
  }

  // Whether the object has the field `key` (for fields added after rows
  // were first written).
  bool Has(const char* key) const { return object_.is_object() && object_.contains(key); }

  // Calls `read` with a reader for each element of the required array `key`
  // (elements must be objects), and for the required object `key`.
  void ForEach(const char* key, const std::function<void(JsonFields&)>& read);
  // ForEach for arrays added after rows were first written: absent (or
  // null) reads nothing.
  void OptionalForEach(const char* key, const std::function<void(JsonFields&)>& read);
  void Nested(const char* key, const std::function<void(JsonFields&)>& read);

  // Records a problem with field `key` unless one is recorded already.
  void Fail(absl::string_view key, absl::string_view message);

  const absl::Status& status() const { return status_; }

 private:
  // The value of `key`, or nullptr (with the error recorded) when the field
  // is missing or the reader has already failed.
  const Json* Find(const char* key);
  std::optional<int64_t> Integer(const char* key, int64_t min, int64_t max);
  void TypeError(const char* key, const char* expected, const Json& value);

  const Json& object_;
  std::string path_;
  absl::Status status_;
};

}  // namespace raw::events
