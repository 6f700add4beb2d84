// Fuzz target: arbitrary text through Raven's Prose Layout. Completion
// compares Artifact hashes, so the layout must be total and idempotent:
// LayoutProse(LayoutProse(x)) == LayoutProse(x) for every input, and valid
// UTF-8 in gives valid UTF-8 out.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/utf8.h"
#include "daemon/raven/prose.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string once = raw::raven::LayoutProse(text);
  const std::string twice = raw::raven::LayoutProse(once);
  if (twice != once) {
    std::fprintf(stderr, "raven_prose_fuzz: the layout is not idempotent\n");
    std::abort();
  }
  if (raw::ValidUtf8Prefix(text) == text.size() && raw::ValidUtf8Prefix(once) != once.size()) {
    std::fprintf(stderr, "raven_prose_fuzz: valid UTF-8 became invalid\n");
    std::abort();
  }
  (void)raw::raven::SplitSentences(text);
  return 0;
}
