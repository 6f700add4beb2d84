// gumbo's categories of HTML elements, as its tree construction uses them
// (parser.c: "special", scope boundaries, implied end tags, ...), and the
// text walk's rules (page_text_rules.h), each looked up in a table per tag.
#pragma once

#include <gumbo.h>

#include <array>
#include <cstdint>
#include <initializer_list>

namespace raw::raven::web::html {

constexpr bool TagIn(GumboTag t, std::initializer_list<GumboTag> set) {
  for (GumboTag s : set) {
    if (s == t) return true;
  }
  return false;
}

struct TagFlags {
  enum : uint8_t {
    kHeading = 1, kSpecial = 2, kClosesP = 4, kClosedByName = 8, kFormatting = 16,
    kImplied = 32, kScope = 64, kTableStructure = 128,
  };
};

extern const std::array<uint8_t, GUMBO_TAG_LAST + 1> kTagFlags;

inline bool HasFlag(GumboTag t, uint8_t flag) { return (kTagFlags[t] & flag) != 0; }
inline bool Heading(GumboTag t) { return HasFlag(t, TagFlags::kHeading); }
inline bool Special(GumboTag t) { return HasFlag(t, TagFlags::kSpecial); }
inline bool ClosesPAndOpens(GumboTag t) { return HasFlag(t, TagFlags::kClosesP); }
inline bool ClosedByName(GumboTag t) { return HasFlag(t, TagFlags::kClosedByName); }
inline bool FormattingTag(GumboTag t) { return HasFlag(t, TagFlags::kFormatting); }
inline bool ImpliedEndTag(GumboTag t) { return HasFlag(t, TagFlags::kImplied); }
inline bool ScopeBoundary(GumboTag t) { return HasFlag(t, TagFlags::kScope); }
inline bool TableStructure(GumboTag t) { return HasFlag(t, TagFlags::kTableStructure); }

// The text walk's rules (page_text_rules.h) for every tag.
enum WalkFlag : uint8_t { kDropped = 1, kBlock = 2, kCell = 4, kPre = 8 };
const std::array<uint8_t, GUMBO_TAG_LAST + 1>& WalkFlags();

}  // namespace raw::raven::web::html
