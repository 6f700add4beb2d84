#include "daemon/raven/web/excerpt_match.h"

#include <utf8proc.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/utf8.h"
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

// A key code point that belongs to a word: a letter, a digit or a
// combining mark (the key is decomposed: "é" is "e" and U+0301).
bool IsWordChar(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

// A letter of a script written without spaces between words, where a word
// edge cannot be told from the characters.
bool Unspaced(char32_t c) {
  return (c >= 0x0E00 && c <= 0x0FFF) ||  // Thai, Lao, Tibetan
         (c >= 0x1000 && c <= 0x109F) ||  // Myanmar
         (c >= 0x1100 && c <= 0x11FF) ||  // Hangul Jamo
         (c >= 0x1780 && c <= 0x17FF) ||  // Khmer
         (c >= 0x2E80 && c <= 0xA4CF) ||  // CJK radicals through Yi
         (c >= 0xAC00 && c <= 0xD7FF) ||  // Hangul syllables
         (c >= 0xF900 && c <= 0xFAFF) ||  // CJK compatibility ideographs
         (c >= 0xFF00 && c <= 0xFFEF) ||  // half- and full-width forms
         (c >= 0x20000 && c <= 0x3FFFF);  // supplementary ideographs
}

// The code point of the valid UTF-8 `key` that starts at `at`, or that ends
// at `end`.
char32_t CodePointAt(std::string_view key, size_t at) {
  const size_t len = Utf8SequenceLength(key, at);
  return len == 0 ? U'\uFFFD' : DecodeUtf8At(key, at, len);
}
char32_t CodePointBefore(std::string_view key, size_t end) {
  size_t at = end - 1;
  while (at > 0 && (static_cast<unsigned char>(key[at]) & 0xC0) == 0x80) --at;
  return CodePointAt(key, at);
}

// Whether `edge` (an end of the excerpt) and `neighbour` (the page's code
// point beside it) would be one word or number cut apart.
bool JoinsWord(char32_t edge, char32_t neighbour) {
  return IsWordChar(edge) && IsWordChar(neighbour) && !Unspaced(edge) && !Unspaced(neighbour);
}

// Whether the excerpt key `ex`, found in the page key at `at`, keeps to
// word edges there (excerpt_match.h).
bool OnWordEdges(std::string_view key, size_t at, std::string_view ex) {
  const size_t end = at + ex.size();
  if (at > 0 && JoinsWord(CodePointAt(ex, 0), CodePointBefore(key, at))) return false;
  if (end < key.size() && JoinsWord(CodePointBefore(ex, ex.size()), CodePointAt(key, end))) {
    return false;
  }
  return true;
}

}  // namespace

ExcerptMatch MatchExcerpt(std::string_view page, const NormalizedText& page_key,
                          std::string_view excerpt) {
  ExcerptMatch m;
  NormalizedText ex = Normalize(excerpt);
  if (ex.key.empty()) return m;
  auto [prefix, prefix_at] = LongestPrefix(page_key.key, ex.key);
  if (prefix == ex.key.size()) {
    // The first place that keeps to word edges.
    for (size_t at = prefix_at; at != std::string_view::npos;
         at = std::string_view(page_key.key).find(ex.key, at + 1)) {
      if (!OnWordEdges(page_key.key, at, ex.key)) continue;
      m.kind = MatchKind::kFound;
      auto [first, last] = page_key.InputRange(page, at, at + ex.key.size());
      m.text_begin = first;
      m.text_end = last;
      return m;
    }
    // Only inside longer words: shown where it first is, with the words
    // around it.
    m.kind = MatchKind::kPartial;
    m.cuts_word = true;
    m.matched_prefix = std::string(excerpt);
    const size_t begin = prefix_at > kPassageSlack ? prefix_at - kPassageSlack : 0;
    const size_t end = std::min(page_key.key.size(), prefix_at + ex.key.size() + kPassageSlack);
    auto [first, last] = page_key.InputRange(page, begin, end);
    m.nearest_passage = Quoted(page.substr(first, last - first));
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
  if (m.cuts_word) {
    return absl::StrCat(
        "partial divergence: the excerpt occurs on the page only where it starts or ends inside "
        "a longer word or number, as in \"",
        m.nearest_passage, "\"; quote from the start of a word to the end of one");
  }
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
