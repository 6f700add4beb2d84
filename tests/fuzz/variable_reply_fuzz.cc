// Fuzz target: arbitrary bytes as what a variable's command printed, on
// standard error (what an error quotes) and standard output (the value).
// The quoted excerpt must be valid UTF-8 and bounded whatever was printed;
// stripping the line break removes at most "\r\n" and nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "common/utf8.h"
#include "daemon/vars/command_output.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "variable_reply_fuzz", what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string excerpt = raw::vars::StderrExcerpt(absl::string_view(text.data(), text.size()));
  Check(raw::ValidUtf8Prefix(excerpt) == excerpt.size(), "the excerpt is not valid UTF-8");
  // ": ", at most kMaxStderrShown bytes, "...".
  Check(excerpt.size() <= raw::vars::kMaxStderrShown + 5, "the excerpt is unbounded");
  Check(excerpt.find('\n') == std::string::npos, "the excerpt spans lines");

  std::string value(text);
  raw::vars::StripOneLineBreak(value);
  Check(text.substr(0, value.size()) == value, "stripping changed the value");
  const std::string_view removed = text.substr(value.size());
  Check(removed.empty() || removed == "\n" || removed == "\r\n", "stripping removed more");
  return 0;
}
