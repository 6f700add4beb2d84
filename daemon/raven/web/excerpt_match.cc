#include "daemon/raven/web/excerpt_match.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace raw::raven::web {
namespace {

constexpr size_t kMinPartialBytes = 16;
// How much page text around a break is quoted, beyond the excerpt's length.
constexpr size_t kPassageSlack = 40;
constexpr size_t kMaxQuoted = 300;

// The length of the longest prefix of `needle` found in `hay` and where it
// is (binary search: a found prefix implies every shorter one is found).
std::pair<size_t, size_t> LongestPrefix(std::string_view hay, std::string_view needle) {
  size_t lo = 0, hi = needle.size(), at = std::string_view::npos;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    size_t pos = hay.find(needle.substr(0, mid));
    if (pos != std::string_view::npos) {
      lo = mid;
      at = pos;
    } else {
      hi = mid - 1;
    }
  }
  if (lo > 0 && at == std::string_view::npos) at = hay.find(needle.substr(0, lo));
  return {lo, at};
}

std::pair<size_t, size_t> LongestSuffix(std::string_view hay, std::string_view needle) {
  size_t lo = 0, hi = needle.size(), at = std::string_view::npos;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    size_t pos = hay.find(needle.substr(needle.size() - mid));
    if (pos != std::string_view::npos) {
      lo = mid;
      at = pos;
    } else {
      hi = mid - 1;
    }
  }
  if (lo > 0 && at == std::string_view::npos) at = hay.find(needle.substr(needle.size() - lo));
  return {lo, at};
}

// Backs `n` off to the start of a UTF-8 code point of `s`.
size_t CodePointStart(std::string_view s, size_t n) {
  while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

std::string Quoted(std::string_view s) {
  std::string out(s.substr(0, CodePointStart(s, std::min(s.size(), kMaxQuoted))));
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\t', ' ');
  if (out.size() < s.size()) out += "…";
  return out;
}

}  // namespace

ExcerptMatch MatchExcerpt(std::string_view page, const NormalizedText& page_key,
                          std::string_view excerpt) {
  ExcerptMatch m;
  NormalizedText ex = Normalize(excerpt);
  if (ex.key.empty()) return m;
  size_t pos = page_key.key.find(ex.key);
  if (pos != std::string::npos) {
    m.kind = MatchKind::kFound;
    auto [first, last] = page_key.InputRange(page, pos, pos + ex.key.size());
    m.text_begin = first;
    m.text_end = last;
    return m;
  }
  auto [prefix, prefix_at] = LongestPrefix(page_key.key, ex.key);
  auto [suffix, suffix_at] = LongestSuffix(page_key.key, ex.key);
  size_t best = std::max(prefix, suffix);
  size_t threshold = std::max(kMinPartialBytes, ex.key.size() / 3);
  m.kind = best >= threshold ? MatchKind::kPartial : MatchKind::kAbsent;
  if (prefix > 0) {
    m.matched_prefix = std::string(excerpt.substr(0, ex.InputRange(excerpt, 0, prefix).second));
  }
  // The page passage where the best stretch lies, as long as the excerpt
  // plus some context.
  size_t anchor_begin = 0, anchor_end = 0;
  if (best > 0 && best == prefix) {
    anchor_begin = prefix_at;
    anchor_end = std::min(page_key.key.size(), prefix_at + ex.key.size() + kPassageSlack);
  } else if (best > 0) {
    size_t end = suffix_at + suffix;
    anchor_begin = end > ex.key.size() + kPassageSlack ? end - ex.key.size() - kPassageSlack : 0;
    anchor_end = end;
  }
  if (anchor_end > anchor_begin) {
    auto [first, last] = page_key.InputRange(page, anchor_begin, anchor_end);
    m.nearest_passage = Quoted(page.substr(first, last - first));
  }
  return m;
}

std::string DescribeMismatch(const ExcerptMatch& m) {
  if (m.kind == MatchKind::kFound) return "the excerpt is on the page";
  if (m.kind == MatchKind::kAbsent) {
    return "the excerpt is absent from the page entirely (no substantial part of it occurs); "
           "quote the page verbatim or drop the Source";
  }
  return absl::StrCat("partial divergence: the page matches the excerpt only as far as \"",
                      Quoted(m.matched_prefix), "\"; the nearest passage on the page reads \"",
                      m.nearest_passage, "\"; copy the passage exactly");
}

}  // namespace raw::raven::web
