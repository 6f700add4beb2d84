#include "daemon/raven/web/excerpt_match.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "daemon/raven/domain.h"
#include "daemon/raven/web/fetch_marks.h"

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

// The searches below are Knuth-Morris-Pratt scans of the page key: linear
// in the page and the excerpt whatever they hold. (A search that restarts
// at every place the excerpt's start occurs, as string_view::find does, is
// quadratic on a page like "abab..." against an excerpt "abab...abc".)
// `steps` counts their byte comparisons.

// The borders of `p`: border[q] is the length of the longest proper prefix
// of p[0, q) that is also a suffix of it (q >= 1).
std::vector<uint32_t> Borders(std::string_view p, size_t& steps) {
  std::vector<uint32_t> border(p.size() + 1, 0);
  size_t k = 0;
  for (size_t q = 1; q < p.size(); ++q) {
    while (k > 0 && p[q] != p[k]) {
      k = border[k];
      ++steps;
    }
    if (p[q] == p[k]) ++k;
    ++steps;
    border[q + 1] = static_cast<uint32_t>(k);
  }
  return border;
}

// How much of `p` is matched after reading `c`, with `q` of it matched
// before.
size_t Advance(std::string_view p, const std::vector<uint32_t>& border, size_t q, char c,
               size_t& steps) {
  if (q == p.size()) q = border[q];
  while (q > 0 && p[q] != c) {
    q = border[q];
    ++steps;
  }
  if (p[q] == c) ++q;
  ++steps;
  return q;
}

// A stretch of the excerpt key on the page: its length and where it starts
// (npos when empty).
struct Stretch {
  size_t length = 0;
  size_t at = std::string_view::npos;
};

// The longest prefix of `needle` on `hay`, at its first place. A whole
// needle counts only where `keep` accepts its place: the scan goes on past
// the others, and when `keep` accepts none the first of them is returned
// with `kept` false.
template <typename Keep>
Stretch LongestPrefix(std::string_view hay, std::string_view needle, const Keep& keep, bool& kept,
                      size_t& steps) {
  const std::vector<uint32_t> border = Borders(needle, steps);
  Stretch best;
  kept = false;
  size_t q = 0;
  for (size_t i = 0; i < hay.size(); ++i) {
    q = Advance(needle, border, q, hay[i], steps);
    if (q <= best.length && q < needle.size()) continue;
    const size_t at = i + 1 - q;
    if (q == needle.size() && keep(at)) {
      kept = true;
      return {q, at};
    }
    if (q > best.length) best = {q, at};
  }
  return best;
}

// The longest suffix of `needle` on `hay`, at its first place (the
// smallest start): the same scan from the end, of the reversed needle.
Stretch LongestSuffix(std::string_view hay, std::string_view needle, size_t& steps) {
  const std::string reversed(needle.rbegin(), needle.rend());
  const std::vector<uint32_t> border = Borders(reversed, steps);
  Stretch best;
  size_t q = 0;
  for (size_t i = hay.size(); i-- > 0;) {
    q = Advance(reversed, border, q, hay[i], steps);
    if (q > 0 && q >= best.length) best = {q, i};
  }
  return best;
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

// MatchExcerpt without the second look for a web_fetch quote.
ExcerptMatch MatchExactly(std::string_view page, const NormalizedText& page_key,
                          std::string_view excerpt) {
  ExcerptMatch m;
  NormalizedText ex = Normalize(excerpt);
  if (ex.key.empty()) return m;
  const std::string_view page_keys = page_key.key;
  bool kept = false;
  const auto [prefix, prefix_at] = LongestPrefix(
      page_keys, ex.key, [&](size_t at) { return OnWordEdges(page_keys, at, ex.key); }, kept,
      m.steps);
  if (kept) {
    m.kind = MatchKind::kFound;
    auto [first, last] = page_key.InputRange(page, prefix_at, prefix_at + ex.key.size());
    m.text_begin = first;
    m.text_end = last;
    return m;
  }
  if (prefix == ex.key.size()) {
    // Only inside longer words: shown where it first is, with the words
    // around it.
    m.kind = MatchKind::kPartial;
    m.cuts_word = true;
    m.matched_prefix = std::string(excerpt);
    const size_t begin = prefix_at > kPassageSlack ? prefix_at - kPassageSlack : 0;
    const size_t end = std::min(page_keys.size(), prefix_at + ex.key.size() + kPassageSlack);
    auto [first, last] = page_key.InputRange(page, begin, end);
    m.nearest_passage = Quoted(page.substr(first, last - first));
    return m;
  }
  const auto [suffix, suffix_at] = LongestSuffix(page_keys, ex.key, m.steps);
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

}  // namespace

ExcerptMatch MatchExcerpt(std::string_view page, const NormalizedText& page_key,
                          std::string_view excerpt) {
  ExcerptMatch m = MatchExactly(page, page_key, excerpt);
  if (m.kind == MatchKind::kFound) return m;
  // Quoted from builtin/web_fetch's view of the page, marks and all: the
  // rest must be on the page, and still as long as an excerpt must be. A
  // mismatch is told on the unmarked excerpt unless that matched less (its
  // marks are not what diverges).
  const std::string unmarked = WithoutFetchMarks(excerpt);
  if (unmarked == excerpt || CodePoints(Normalize(unmarked).key) < Limits::kSourceExcerptMinChars) {
    return m;
  }
  ExcerptMatch second = MatchExactly(page, page_key, unmarked);
  second.steps += m.steps;
  // kFound < kPartial < kAbsent: the better kind, the unmarked on a tie.
  if (second.kind <= m.kind) return second;
  m.steps = second.steps;
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
