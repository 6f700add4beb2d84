#include "daemon/raven/web/excerpt_match.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/raven/domain.h"

namespace raw::raven::web {
namespace {

// The shortest stretch at the start or the end of an excerpt, in code
// points of its key, that tells a partial divergence from an excerpt that
// is not on the page: anything shorter ("the ", "in a ") occurs on most
// pages whatever the excerpt says.
constexpr size_t kMinPartialChars = 16;
// How much page text around a break is quoted, beyond the excerpt's length.
constexpr size_t kPassageSlack = 40;
constexpr size_t kMaxQuoted = 300;

// The length of the longest prefix of `needle` found in `hay` and where it
// is, by binary search over [0, hi] (a found prefix implies every shorter
// one is found): one search of the page per step.
std::pair<size_t, size_t> SearchPrefix(std::string_view hay, std::string_view needle, size_t hi) {
  size_t lo = 0, at = std::string_view::npos;
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

std::pair<size_t, size_t> SearchSuffix(std::string_view hay, std::string_view needle, size_t hi) {
  size_t lo = 0, at = std::string_view::npos;
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

// Where the needle's first (or last) kSeed bytes occur in the page; more
// than kMaxSeeds places and the binary search is used instead.
constexpr size_t kSeed = 8;
constexpr size_t kMaxSeeds = size_t{1} << 14;

bool Seeds(std::string_view hay, std::string_view seed, std::vector<size_t>& out) {
  for (size_t pos = hay.find(seed); pos != std::string_view::npos; pos = hay.find(seed, pos + 1)) {
    if (out.size() == kMaxSeeds) return false;
    out.push_back(pos);
  }
  return true;
}

// The same results as SearchPrefix over the whole needle, from one pass
// over the page: every occurrence of the prefix of kSeed bytes is extended
// as far as it goes, and the first of the longest wins.
// A needle that is there is its own longest prefix, at its first place: so
// this is also the search for the whole excerpt.
std::pair<size_t, size_t> LongestPrefix(std::string_view hay, std::string_view needle) {
  if (needle.size() <= kSeed) return SearchPrefix(hay, needle, needle.size());
  std::vector<size_t> seeds;
  if (!Seeds(hay, needle.substr(0, kSeed), seeds)) {
    const size_t pos = hay.find(needle);
    if (pos != std::string_view::npos) return {needle.size(), pos};
    return SearchPrefix(hay, needle, needle.size());
  }
  if (seeds.empty()) return SearchPrefix(hay, needle, kSeed - 1);
  size_t best = 0, at = std::string_view::npos;
  for (size_t pos : seeds) {
    size_t n = kSeed;
    while (n < needle.size() && pos + n < hay.size() && hay[pos + n] == needle[n]) ++n;
    if (n > best) {
      best = n;
      at = pos;
    }
  }
  return {best, at};
}

// The same for suffixes: `second` is where the matched suffix starts.
std::pair<size_t, size_t> LongestSuffix(std::string_view hay, std::string_view needle) {
  if (needle.size() <= kSeed) return SearchSuffix(hay, needle, needle.size());
  std::vector<size_t> seeds;
  if (!Seeds(hay, needle.substr(needle.size() - kSeed), seeds)) {
    return SearchSuffix(hay, needle, needle.size());
  }
  if (seeds.empty()) return SearchSuffix(hay, needle, kSeed - 1);
  size_t best = 0, at = std::string_view::npos;
  for (size_t pos : seeds) {
    size_t n = kSeed;
    while (n < needle.size() && n <= pos + kSeed - 1 &&
           hay[pos + kSeed - 1 - n] == needle[needle.size() - 1 - n]) {
      ++n;
    }
    const size_t start = pos + kSeed - n;
    // The first occurrence of the longest suffix: the smallest start.
    if (n > best || (n == best && start < at)) {
      best = n;
      at = start;
    }
  }
  return {best, at};
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
  auto [prefix, prefix_at] = LongestPrefix(page_key.key, ex.key);
  if (prefix == ex.key.size()) {
    m.kind = MatchKind::kFound;
    auto [first, last] = page_key.InputRange(page, prefix_at, prefix_at + ex.key.size());
    m.text_begin = first;
    m.text_end = last;
    return m;
  }
  auto [suffix, suffix_at] = LongestSuffix(page_key.key, ex.key);
  size_t best = std::max(prefix, suffix);
  const std::string_view key = ex.key;
  const size_t best_chars =
      std::max(CodePoints(key.substr(0, prefix)), CodePoints(key.substr(key.size() - suffix)));
  m.kind = best_chars >= kMinPartialChars ? MatchKind::kPartial : MatchKind::kAbsent;
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
    return absl::StrCat("the excerpt is absent from the page entirely (not even its first or last ",
                        kMinPartialChars,
                        " characters occur); quote the page verbatim or drop the Source");
  }
  const std::string prefix = m.matched_prefix.empty()
                                 ? std::string("the page holds nothing of the excerpt's beginning")
                                 : absl::StrCat("the page matches the excerpt only as far as \"",
                                                Quoted(m.matched_prefix), "\"");
  return absl::StrCat("partial divergence: ", prefix, "; the nearest passage on the page reads \"",
                      m.nearest_passage, "\"; copy the passage exactly");
}

}  // namespace raw::raven::web
