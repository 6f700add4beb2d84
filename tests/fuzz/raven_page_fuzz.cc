// Fuzz target: arbitrary bytes as a page Raven reopens. The first byte
// picks where the bytes are cut into a page and an excerpt; the page goes
// through HTML text extraction, the normalizer and the excerpt matcher.
// Checked: nothing crashes; whenever the streaming parser accepts the page
// (fast_page_text.h), its text and offset map are exactly those of the walk
// over libgumbo's tree; every offset map points inside its input and never
// goes backwards; a match found lies inside the page text; and the excerpt
// taken verbatim from the page's own text is always found (what a quotation
// copied from the page must get).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "daemon/raven/normalizer.h"
#include "daemon/raven/web/excerpt_match.h"
#include "daemon/raven/web/fast_page_text.h"
#include "daemon/raven/web/page_text.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "raven_page_fuzz", what); }

void CheckOffsets(const raw::raven::NormalizedText& n, std::string_view input) {
  Check(n.offsets.size() == n.key.size(), "the offset map and the key differ in size");
  for (size_t i = 0; i < n.offsets.size(); ++i) {
    Check(n.offsets[i] < input.size() || input.empty(), "an offset points past the input");
    Check(i == 0 || n.offsets[i] >= n.offsets[i - 1], "the offset map goes backwards");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace web = raw::raven::web;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t cut = data[0] * (bytes.size() + 1) / 256;
  const std::string_view html = bytes.substr(0, cut);
  const std::string_view excerpt = bytes.substr(cut);

  if (std::optional<web::PageText> fast = web::FastPageText(html)) {
    absl::StatusOr<web::PageText> reference = web::GumboPageText(html);
    Check(reference.ok(), "gumbo refused a page the fast parser read");
    Check(fast->text == reference->text, "the fast parser's text differs from gumbo's");
    Check(fast->segments.size() == reference->segments.size(),
          "the fast parser's offset map differs from gumbo's in size");
    for (size_t i = 0; i < fast->segments.size(); ++i) {
      Check(fast->segments[i].text_offset == reference->segments[i].text_offset &&
                fast->segments[i].page_offset == reference->segments[i].page_offset,
            "the fast parser's offset map differs from gumbo's");
    }
  }
  absl::StatusOr<web::PageText> page = web::ExtractPageText(html);
  if (!page.ok()) return 0;
  for (size_t i = 0; i < page->segments.size(); ++i) {
    Check(page->segments[i].page_offset <= html.size(), "a segment points past the page");
    Check(page->segments[i].text_offset <= page->text.size(), "a segment points past the text");
  }
  const raw::raven::NormalizedText key = raw::raven::Normalize(page->text);
  CheckOffsets(key, page->text);

  web::ExcerptMatch m = web::MatchExcerpt(page->text, key, excerpt);
  if (m.kind == web::MatchKind::kFound) {
    Check(m.text_begin <= m.text_end && m.text_end <= page->text.size(),
          "a match lies outside the page text");
  }
  (void)web::DescribeMismatch(m);

  // A stretch of the page's own text, cut at whole words, is found.
  const std::string& text = page->text;
  const size_t from = text.find(' ', text.size() / 3);
  const size_t to = from == std::string::npos ? std::string::npos : text.find(' ', from + 1 + 16);
  if (to != std::string::npos) {
    const std::string quote = text.substr(from + 1, to - from - 1);
    if (!raw::raven::Normalize(quote).key.empty()) {
      Check(web::MatchExcerpt(text, key, quote).kind == web::MatchKind::kFound,
            "a quotation copied from the page text was not found");
    }
  }
  return 0;
}
