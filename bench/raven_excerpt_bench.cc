// The cost of one Source check after the fetch, on a 2 MB HTML page shaped
// like a long article (paragraphs with inline markup, entities, curly
// quotes, NBSP, a table): HTML5 parse and text extraction (as Raven runs
// it, which takes the streaming parser here, and by libgumbo alone, what
// a page the streaming parser leaves to gumbo costs), the normalizer alone
// (reported as MB/s of page text), excerpt matching against the
// normalized page, and the whole check (extract + normalize + match) for an
// excerpt near the end. Goal (docs/performance.md): a 2 MB page checked in
// under 20 ms.
#include <benchmark/benchmark.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/raven/normalizer.h"
#include "daemon/raven/web/excerpt_match.h"
#include "daemon/raven/web/fast_page_text.h"
#include "daemon/raven/web/page_text.h"

namespace {

using raw::raven::Normalize;
using raw::raven::NormalizedText;
using raw::raven::web::ExtractPageText;
using raw::raven::web::GumboPageText;
using raw::raven::web::MatchExcerpt;

std::string Page() {
  std::string html = "<!DOCTYPE html><html><head><title>Long</title></head><body><main>";
  for (int i = 0; html.size() < 2 * 1024 * 1024; ++i) {
    absl::StrAppend(&html, "<h2>Section ", i, "</h2><p>The <em>committee</em> found that ",
                    "<a href='/r", i, "'>re<b>spon</b>sible</a> disclosure reduced incidents by ",
                    i % 97, "&nbsp;% in \u201Cmost\u201D cases &mdash; AT&amp;T agreed.</p>",
                    "<table><tr><td>Year</td><td>", 1900 + i % 120, "</td></tr></table>");
  }
  html += "<p>The final paragraph says exactly this and nothing else.</p></main></body></html>";
  return html;
}

const std::string& CachedPage() {
  static const std::string page = Page();
  return page;
}

void BM_ExtractText(benchmark::State& state) {
  const std::string& html = CachedPage();
  for (auto _ : state) benchmark::DoNotOptimize(ExtractPageText(html));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(html.size()));
}
BENCHMARK(BM_ExtractText)->Unit(benchmark::kMillisecond);

void BM_ExtractTextWithGumbo(benchmark::State& state) {
  const std::string& html = CachedPage();
  for (auto _ : state) benchmark::DoNotOptimize(GumboPageText(html));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(html.size()));
}
BENCHMARK(BM_ExtractTextWithGumbo)->Unit(benchmark::kMillisecond);

void BM_Normalize(benchmark::State& state) {
  std::string text = ExtractPageText(CachedPage())->text;
  for (auto _ : state) benchmark::DoNotOptimize(Normalize(text));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_Normalize)->Unit(benchmark::kMillisecond);

void BM_MatchExcerpt(benchmark::State& state) {
  std::string text = ExtractPageText(CachedPage())->text;
  NormalizedText key = Normalize(text);
  // Found near the end, and a doctored one (prefix search on mismatch).
  const char* excerpt = state.range(0) == 0
                            ? "The final paragraph says exactly this and nothing else."
                            : "The final paragraph says exactly that and nothing else.";
  for (auto _ : state) benchmark::DoNotOptimize(MatchExcerpt(text, key, excerpt));
}
BENCHMARK(BM_MatchExcerpt)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// An honest excerpt near the end (/0) and a doctored one (/1), whose check
// also looks for its longest matching prefix and suffix.
void BM_WholeCheck(benchmark::State& state) {
  const std::string& html = CachedPage();
  const char* excerpt = state.range(0) == 0
                            ? "The final paragraph says exactly this and nothing else."
                            : "The final paragraph says exactly that and nothing else.";
  for (auto _ : state) {
    std::string text = std::move(ExtractPageText(html)->text);
    NormalizedText key = Normalize(text);
    benchmark::DoNotOptimize(MatchExcerpt(text, key, excerpt));
  }
}
BENCHMARK(BM_WholeCheck)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
