// Fuzz target: arbitrary text through Raven's Prose Layout. Completion
// compares Artifact hashes, so the layout must be total and idempotent:
// LayoutProse(LayoutProse(x)) == LayoutProse(x) for every input, and valid
// UTF-8 in gives valid UTF-8 out. The laid-out text then goes through the
// citation scan and the rendering every Checkpoint runs (artifact_scan.h,
// citations.h), whose pieces must put the text back together.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/utf8.h"
#include "daemon/raven/artifact_scan.h"
#include "daemon/raven/citations.h"
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

  std::string joined;
  for (const raw::raven::Part& part : raw::raven::SplitArtifact(once)) joined += part.text;
  if (joined != once) {
    std::fprintf(stderr, "raven_prose_fuzz: the Artifact's parts do not make it up\n");
    std::abort();
  }
  static const raw::raven::TaskState state = [] {
    raw::raven::TaskState s;
    raw::raven::Source a;
    a.source_id = "a";
    a.url = "https://a.test/x";
    a.title = "A";
    a.check.status = raw::raven::CheckStatus::kReachable;
    s.sources.push_back(a);
    raw::raven::Claim c;
    c.claim_id = "c1";
    c.text = "claim";
    c.source_ids = {"a"};
    s.claims.push_back(c);
    return s;
  }();
  (void)raw::raven::ValidateCitations(once, state.sources, state.claims, "artifact");
  (void)raw::raven::LinkedUrls(once);
  (void)raw::raven::RenderArtifact(state, once);
  return 0;
}
