// Finding a Source's excerpt in the text of its page, on the normalizer's
// key (normalizer.h): an exact substring match, never a fuzzy ratio, so a
// doctored excerpt that differs from the page by one word does not pass.
// The match also keeps to word edges: an excerpt whose key starts (ends)
// with a letter, digit or combining mark is found only where the page key
// has none of those just before (after) it, so "1,000 residents" is not
// found in "21,000 residents" nor "effective against" in "ineffective
// against". Scripts written without spaces (Han, kana, Hangul, Thai, Lao,
// Khmer, Myanmar, Tibetan) have no such edge: a quote there may start and
// end anywhere.
//
// An excerpt quoted from builtin/web_fetch's view of the page, with the
// marks that view adds (a link's " (URL)", a list item's "- ", a heading's
// "# ", a table's " | "; fetch_marks.h), is looked for a second time
// without them, provided what is left is still as long as an excerpt must
// be (Limits::kSourceExcerptMinChars); the rest must match exactly.
//
// On a mismatch the result tells the two failures apart:
// - kPartial: the page holds the start or the end of the excerpt (its
//   longest matching prefix or suffix is at least 16 code points of the
//   key) but the rest diverges: an anchor defect the agent can repair,
//   shown the longest matching prefix and the nearest page passage;
// - kAbsent: neither 16 code points at its start nor at its end occur: the
//   excerpt is not on the page at all (a fabrication signal rather than an
//   anchor defect).
// Pure; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "daemon/raven/normalizer.h"

namespace raw::raven::web {

// Ordered from the best match to the worst (MatchExcerpt relies on it).
enum class MatchKind { kFound, kPartial, kAbsent };

struct ExcerptMatch {
  MatchKind kind = MatchKind::kAbsent;
  // kFound: where the excerpt is in the page text (byte range).
  size_t text_begin = 0;
  size_t text_end = 0;
  // Mismatch: the longest prefix of the excerpt found on the page, in the
  // excerpt's own words ("" when none), and the page passage nearest to
  // where the match broke off, in the page's words.
  std::string matched_prefix;
  std::string nearest_passage;
  // kPartial only: the whole excerpt is on the page, but only where it
  // starts or ends inside a longer word or number; nearest_passage is the
  // first such place with the words around it.
  bool cuts_word = false;
  // The byte comparisons the search made: linear in the lengths of the
  // page key and the excerpt key, whatever they hold (tests bound it).
  size_t steps = 0;
};

// `page` is the page text and `page_key` Normalize(page); `excerpt` the
// recorded excerpt. An excerpt whose key is empty is kAbsent.
ExcerptMatch MatchExcerpt(std::string_view page, const NormalizedText& page_key,
                          std::string_view excerpt);

// One line describing a mismatch for a Limitation or an issue.
std::string DescribeMismatch(const ExcerptMatch& match);

}  // namespace raw::raven::web
