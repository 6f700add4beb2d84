// Fuzz target: arbitrary bytes as a string that goes into a request body
// (a tool's output, a file the model read, a server's error text). The
// writer's single pass, which escapes and validates UTF-8 sixteen bytes at a
// time (common/json_writer.h), must write exactly what nlohmann's serializer
// writes for the same string, ill-formed bytes replaced; the result is valid
// UTF-8 and parses back to one string.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/json_writer.h"
#include "common/utf8.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "json_string_fuzz", what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Written after something, as a body's strings are.
  std::string written = "[1,";
  raw::AppendJsonString(written, text);
  Check(written.compare(0, 3, "[1,") == 0, "the text before the string changed");
  const std::string string_only = written.substr(3);
  Check(string_only == raw::DumpJson(raw::OrderedJson(std::string(text))),
        "the string is not what nlohmann's serializer writes");
  Check(raw::ValidUtf8Prefix(string_only) == string_only.size(), "the string is not valid UTF-8");
  auto parsed = raw::ParseJson(string_only);
  Check(parsed.ok() && parsed->is_string(), "the string does not parse back as a string");
  if (raw::ValidUtf8Prefix(text) == text.size()) {
    Check(parsed->get<std::string>() == text, "valid UTF-8 does not come back as it was");
  }
  return 0;
}
