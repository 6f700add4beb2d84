// The matching key of Raven's excerpt check: the same function is applied to
// the page text and to the excerpt, so presentation differences between a
// copied passage and the page it came from do not read as a mismatch, while
// any difference in words, digits or punctuation still does.
//
// Version kNormalizerVersion ("raven-norm/2"), per code point of the UTF-8
// input (invalid bytes read as U+FFFD):
//   1. default-ignorable characters are dropped: soft hyphen, zero-width
//      space/joiners, word joiner, BOM, invisible operators, variation
//      selectors (utf8proc IGNORE);
//   2. typographic fold: every single quote and apostrophe form
//      (‘ ’ ‚ ‛ ′ ＇ ` ´) to ', every double quote form (“ ” „ ‟ ″ « » ＂)
//      to ", every hyphen and dash (‐ ‑ ‒ – — ― − ⁃ ﹘ ﹣ －) to -, the
//      ellipsis … to ...;
//   3. Unicode compatibility decomposition and full case folding (utf8proc
//      COMPAT | CASEFOLD; the key is NFKD-cased-folded, which for substring
//      matching is equivalent to NFKC_Casefold applied to both sides),
//      except that a character whose own compatibility decomposition is
//      <super>, <sub> or <fraction> (² ₂ ⁿ ½ ™) is kept as it is: its
//      decomposition would read as ordinary digits and letters ("10⁶" as
//      "106", "2½" as "21⁄2"). A character of another type decomposes
//      fully, such a part included ("㎡" is "m2");
//   4. white space: every Unicode space (NBSP, thin and other spaces, tabs,
//      line and paragraph breaks) collapses, in runs, to one ' '; none at
//      the start or the end.
// Punctuation and digit separators are kept: "1,000" never equals "1.000".
//
// The key keeps an offset map: for each byte of the key, the byte offset in
// the input of the code point it came from, so a match in the key points at
// the real text. Pure; safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace raw::raven {

inline constexpr char kNormalizerVersion[] = "raven-norm/2";

// An allocator whose new elements are left uninitialized (a vector's resize
// would otherwise zero them): the key builder sizes its buffers ahead and
// writes every element it keeps.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
};

struct NormalizedText {
  std::string key;
  // offsets[i]: byte offset in the input of the code point key[i] came
  // from; offsets.size() == key.size().
  std::vector<uint32_t, UninitializedAllocator<uint32_t>> offsets;

  // The input byte range [first, last) a key range [begin, end) covers
  // (end > begin), given the input it was built from.
  std::pair<size_t, size_t> InputRange(std::string_view input, size_t begin, size_t end) const;
};

NormalizedText Normalize(std::string_view text);

}  // namespace raw::raven
