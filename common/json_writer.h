// JsonWriter: appends compact JSON to a string as it is written, byte for
// byte what DumpJson (common/json.h) gives for the same document with keys
// in the same order, without building the document first. For the hot
// paths that would otherwise build an OrderedJson only to dump it (request
// bodies serialize every new history item).
//
// The caller writes a well-formed document: a Key before each member's
// value, every Begin matched by its End, at most kMaxDepth levels. Text that
// is not valid UTF-8 is written with U+FFFD replacements, as DumpJson does.
//
// Thread-compatible; appends only, never reads `out` back.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace raw {

// `text` as a JSON string literal (quotes included), as DumpJson writes it.
void AppendJsonString(std::string& out, std::string_view text);

class JsonWriter {
 public:
  static constexpr int kMaxDepth = 32;

  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  // A member's name; its value follows.
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view text);
  JsonWriter& Null();
  JsonWriter& Bool(bool value);
  // A value already serialized as compact JSON, written as it is.
  JsonWriter& Raw(std::string_view json);

 private:
  JsonWriter& Open(char bracket);
  JsonWriter& Close(char bracket);
  // Writes the comma before a value (or a key) that follows another.
  void Separate();

  std::string& out_;
  int depth_ = 0;
  // Whether the container at each level already holds an element; a value
  // right after its Key never takes a comma.
  std::array<bool, kMaxDepth + 1> has_element_{};
  bool after_key_ = false;
};

}  // namespace raw
