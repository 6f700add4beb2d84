#include "daemon/raven/web/fast_page_text.h"

#include <gumbo.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "daemon/raven/web/page_text_rules.h"

namespace raw::raven::web {
namespace {

// --- Character references -------------------------------------------------

// U+00A0..U+00FF in order.
constexpr std::array<std::string_view, 96> kLatin1Names = {
    "nbsp",   "iexcl",  "cent",   "pound",  "curren", "yen",    "brvbar", "sect",
    "uml",    "copy",   "ordf",   "laquo",  "not",    "shy",    "reg",    "macr",
    "deg",    "plusmn", "sup2",   "sup3",   "acute",  "micro",  "para",   "middot",
    "cedil",  "sup1",   "ordm",   "raquo",  "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc",  "Atilde", "Auml",   "Aring",  "AElig",  "Ccedil",
    "Egrave", "Eacute", "Ecirc",  "Euml",   "Igrave", "Iacute", "Icirc",  "Iuml",
    "ETH",    "Ntilde", "Ograve", "Oacute", "Ocirc",  "Otilde", "Ouml",   "times",
    "Oslash", "Ugrave", "Uacute", "Ucirc",  "Uuml",   "Yacute", "THORN",  "szlig",
    "agrave", "aacute", "acirc",  "atilde", "auml",   "aring",  "aelig",  "ccedil",
    "egrave", "eacute", "ecirc",  "euml",   "igrave", "iacute", "icirc",  "iuml",
    "eth",    "ntilde", "ograve", "oacute", "ocirc",  "otilde", "ouml",   "divide",
    "oslash", "ugrave", "uacute", "ucirc",  "uuml",   "yacute", "thorn",  "yuml",
};

constexpr NamedReference kOtherReferences[] = {
    {"amp", 0x26},      {"lt", 0x3C},       {"gt", 0x3E},       {"quot", 0x22},
    {"apos", 0x27},     {"OElig", 0x152},   {"oelig", 0x153},   {"Scaron", 0x160},
    {"scaron", 0x161},  {"Yuml", 0x178},    {"fnof", 0x192},    {"circ", 0x2C6},
    {"tilde", 0x2DC},   {"ensp", 0x2002},   {"emsp", 0x2003},   {"thinsp", 0x2009},
    {"zwnj", 0x200C},   {"zwj", 0x200D},    {"lrm", 0x200E},    {"rlm", 0x200F},
    {"ndash", 0x2013},  {"mdash", 0x2014},  {"lsquo", 0x2018},  {"rsquo", 0x2019},
    {"sbquo", 0x201A},  {"ldquo", 0x201C},  {"rdquo", 0x201D},  {"bdquo", 0x201E},
    {"dagger", 0x2020}, {"Dagger", 0x2021}, {"bull", 0x2022},   {"hellip", 0x2026},
    {"permil", 0x2030}, {"prime", 0x2032},  {"Prime", 0x2033},  {"lsaquo", 0x2039},
    {"rsaquo", 0x203A}, {"oline", 0x203E},  {"frasl", 0x2044},  {"euro", 0x20AC},
    {"trade", 0x2122},  {"larr", 0x2190},   {"uarr", 0x2191},   {"rarr", 0x2192},
    {"darr", 0x2193},   {"harr", 0x2194},   {"minus", 0x2212},  {"infin", 0x221E},
    {"asymp", 0x2248},  {"ne", 0x2260},     {"le", 0x2264},     {"ge", 0x2265},
};

const std::vector<NamedReference>& SortedReferences() {
  static const std::vector<NamedReference>* const references = [] {
    auto* v = new std::vector<NamedReference>(std::begin(kOtherReferences), std::end(kOtherReferences));
    for (size_t i = 0; i < kLatin1Names.size(); ++i) {
      v->push_back({kLatin1Names[i], static_cast<char32_t>(0xA0 + i)});
    }
    std::sort(v->begin(), v->end(),
              [](const NamedReference& a, const NamedReference& b) { return a.name < b.name; });
    return v;
  }();
  return *references;
}

const NamedReference* FindReference(std::string_view name) {
  // The names most pages use, before the search.
  static constexpr NamedReference kFrequent[] = {
      {"amp", 0x26}, {"nbsp", 0xA0}, {"quot", 0x22}, {"lt", 0x3C}, {"gt", 0x3E},
      {"mdash", 0x2014}, {"rsquo", 0x2019}, {"ndash", 0x2013}, {"copy", 0xA9}};
  for (const NamedReference& r : kFrequent) {
    if (r.name == name) return &r;
  }
  const std::vector<NamedReference>& refs = SortedReferences();
  auto it = std::lower_bound(refs.begin(), refs.end(), name,
                             [](const NamedReference& r, std::string_view n) { return r.name < n; });
  return it != refs.end() && it->name == name ? &*it : nullptr;
}

// What gumbo makes of a numeric reference's value (its table of the
// windows-1252 code points that pages mean by &#128;..&#159;).
char32_t NumericReferenceValue(uint32_t v) {
  static constexpr char32_t kC1[32] = {
      0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
      0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
      0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};
  if (v == 0) return 0xFFFD;
  if (v >= 0x80 && v <= 0x9F) return kC1[v - 0x80];
  if ((v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) return 0xFFFD;
  return v;
}

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// --- Input ------------------------------------------------------------------

// White space as the tokenizer sees it ('\r' becomes '\n' on input).
bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r'; }
bool IsAlpha(char c) { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; }
// The first '<' or '&' at or after `from`, or the end.
size_t FindMarkupOrReference(std::string_view s, size_t from) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const size_t n = s.size();
  size_t i = from;
  while (i + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    const uint64_t lt = w ^ (kOnes * '<'), amp = w ^ (kOnes * '&');
    if ((((lt - kOnes) & ~lt) | ((amp - kOnes) & ~amp)) & kHigh) break;
    i += 8;
  }
  while (i < n && s[i] != '<' && s[i] != '&') ++i;
  return i;
}

bool IsAlnum(char c) { return IsAlpha(c) || static_cast<unsigned char>(c - '0') < 10; }
// What ends a tag name: white space, '/' or '>'.
bool EndsName(char c) {
  return c == '>' || c == '/' || c == ' ' || static_cast<unsigned char>(c - '\t') <= '\r' - '\t';
}
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (Lower(a[k]) != Lower(b[k])) return false;
  }
  return true;
}

std::string_view TrimSpace(std::string_view v) {
  while (!v.empty() && IsSpace(v.front())) v.remove_prefix(1);
  while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
  return v;
}

// True when the input is valid UTF-8 holding no code point that gumbo's
// input stream replaces with U+FFFD (NUL, C0 controls other than white
// space, DEL and C1 controls, noncharacters): then a byte range of the page
// is exactly the characters gumbo reads there.
bool PlainInput(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
      const uint64_t control = (w - kOnes * 0x20) & ~w & kHigh;          // a byte < 0x20
      const uint64_t del = ((w ^ (kOnes * 0x7F)) - kOnes) & ~(w ^ (kOnes * 0x7F)) & kHigh;
      if (((w & kHigh) | control | del) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = p[i];
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') || c == 0x7F) return false;
      ++i;
      continue;
    }
    uint32_t cp;
    size_t len;
    if (c >= 0xC2 && c <= 0xDF) {
      cp = c & 0x1F;
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      cp = c & 0x0F;
      len = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      cp = c & 0x07;
      len = 4;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return false;
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    if (cp <= 0x9F || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) return false;
    i += len;
  }
  return true;
}

// --- Tokens -----------------------------------------------------------------

struct TagToken {
  GumboTag tag = GUMBO_TAG_UNKNOWN;
  bool start = true;
  bool hidden = false;  // Hidden() of its attributes
};

enum class Mode : uint8_t {
  kInitial, kBeforeHtml, kBeforeHead, kInHead, kAfterHead, kInBody, kInTable, kInTableBody,
  kInRow, kInCell, kInCaption, kInColumnGroup, kAfterBody, kAfterAfterBody,
};

enum class Quirks : uint8_t { kNo, kYes, kUnknown };

enum class RawText : uint8_t { kNone, kRawText, kRcData, kScript };

struct Element {
  GumboTag tag;
  uint32_t id;
  bool suppressed;  // dropped or hidden, itself or an ancestor
  bool pre;
};

struct Formatting {
  GumboTag tag;   // GUMBO_TAG_LAST for a scope marker
  uint32_t id;
  bool hidden;
};

constexpr bool TagIn(GumboTag t, std::initializer_list<GumboTag> set) {
  return std::find(set.begin(), set.end(), t) != set.end();
}

constexpr bool HeadingRule(GumboTag t) {
  return TagIn(t, {GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5,
                   GUMBO_TAG_H6});
}

// gumbo's "special" category (is_special_node), HTML elements only.
constexpr bool SpecialRule(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_APPLET: case GUMBO_TAG_AREA: case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE: case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BODY: case GUMBO_TAG_BR: case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_CAPTION: case GUMBO_TAG_CENTER: case GUMBO_TAG_COL: case GUMBO_TAG_COLGROUP:
    case GUMBO_TAG_MENUITEM: case GUMBO_TAG_DD: case GUMBO_TAG_DETAILS: case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV: case GUMBO_TAG_DL: case GUMBO_TAG_DT: case GUMBO_TAG_EMBED:
    case GUMBO_TAG_FIELDSET: case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER: case GUMBO_TAG_FORM: case GUMBO_TAG_FRAME: case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_H1: case GUMBO_TAG_H2: case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5:
    case GUMBO_TAG_H6: case GUMBO_TAG_HEAD: case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HR: case GUMBO_TAG_HTML: case GUMBO_TAG_IFRAME: case GUMBO_TAG_IMG:
    case GUMBO_TAG_INPUT: case GUMBO_TAG_ISINDEX: case GUMBO_TAG_LI: case GUMBO_TAG_LINK:
    case GUMBO_TAG_LISTING: case GUMBO_TAG_MARQUEE: case GUMBO_TAG_MENU: case GUMBO_TAG_META:
    case GUMBO_TAG_NAV: case GUMBO_TAG_NOEMBED: case GUMBO_TAG_NOFRAMES: case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_OBJECT: case GUMBO_TAG_OL: case GUMBO_TAG_P: case GUMBO_TAG_PARAM:
    case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_PRE: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SELECT: case GUMBO_TAG_STYLE: case GUMBO_TAG_SUMMARY: case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TBODY: case GUMBO_TAG_TD: case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_TFOOT: case GUMBO_TAG_TH: case GUMBO_TAG_THEAD: case GUMBO_TAG_TITLE:
    case GUMBO_TAG_TR: case GUMBO_TAG_UL: case GUMBO_TAG_WBR: case GUMBO_TAG_XMP:
      return true;
    default:
      return false;
  }
}

// Start tags that close an open <p> and open a block (gumbo's list).
constexpr bool ClosesPAndOpensRule(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_CENTER: case GUMBO_TAG_DETAILS: case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV: case GUMBO_TAG_DL: case GUMBO_TAG_FIELDSET: case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE: case GUMBO_TAG_FOOTER: case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_MENU: case GUMBO_TAG_MAIN: case GUMBO_TAG_NAV: case GUMBO_TAG_OL:
    case GUMBO_TAG_P: case GUMBO_TAG_SECTION: case GUMBO_TAG_SUMMARY: case GUMBO_TAG_UL:
      return true;
    default:
      return false;
  }
}

// End tags closed by "generate implied end tags, pop to the element".
constexpr bool ClosedByNameRule(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BUTTON: case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DETAILS: case GUMBO_TAG_DIR: case GUMBO_TAG_DIV: case GUMBO_TAG_DL:
    case GUMBO_TAG_FIELDSET: case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER: case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP: case GUMBO_TAG_LISTING:
    case GUMBO_TAG_MAIN: case GUMBO_TAG_MENU: case GUMBO_TAG_NAV: case GUMBO_TAG_OL:
    case GUMBO_TAG_PRE: case GUMBO_TAG_SECTION: case GUMBO_TAG_SUMMARY: case GUMBO_TAG_UL:
      return true;
    default:
      return false;
  }
}

constexpr bool FormattingTagRule(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_B: case GUMBO_TAG_BIG: case GUMBO_TAG_CODE: case GUMBO_TAG_EM:
    case GUMBO_TAG_FONT: case GUMBO_TAG_I: case GUMBO_TAG_S: case GUMBO_TAG_SMALL:
    case GUMBO_TAG_STRIKE: case GUMBO_TAG_STRONG: case GUMBO_TAG_TT: case GUMBO_TAG_U:
      return true;
    default:
      return false;
  }
}

constexpr bool ImpliedEndTagRule(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_DD: case GUMBO_TAG_DT: case GUMBO_TAG_LI: case GUMBO_TAG_OPTION:
    case GUMBO_TAG_OPTGROUP: case GUMBO_TAG_P: case GUMBO_TAG_RP: case GUMBO_TAG_RB:
    case GUMBO_TAG_RT: case GUMBO_TAG_RTC:
      return true;
    default:
      return false;
  }
}

constexpr bool ScopeBoundaryRule(GumboTag t) {
  return TagIn(t, {GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML, GUMBO_TAG_TABLE,
                   GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT,
                   GUMBO_TAG_TEMPLATE});
}

constexpr bool TableStructureRule(GumboTag t) {
  return TagIn(t, {GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_TBODY,
                   GUMBO_TAG_TD, GUMBO_TAG_TFOOT, GUMBO_TAG_TH, GUMBO_TAG_THEAD, GUMBO_TAG_TR});
}

// The categories above for every tag, looked up once per question.
struct TagFlags {
  enum : uint8_t {
    kHeading = 1, kSpecial = 2, kClosesP = 4, kClosedByName = 8, kFormatting = 16,
    kImplied = 32, kScope = 64, kTableStructure = 128,
  };
};

constexpr std::array<uint8_t, GUMBO_TAG_LAST + 1> kTagFlags = [] {
  std::array<uint8_t, GUMBO_TAG_LAST + 1> flags{};
  for (int i = 0; i <= GUMBO_TAG_LAST; ++i) {
    const auto t = static_cast<GumboTag>(i);
    flags[i] = static_cast<uint8_t>(
        (HeadingRule(t) ? TagFlags::kHeading : 0) | (SpecialRule(t) ? TagFlags::kSpecial : 0) |
        (ClosesPAndOpensRule(t) ? TagFlags::kClosesP : 0) |
        (ClosedByNameRule(t) ? TagFlags::kClosedByName : 0) |
        (FormattingTagRule(t) ? TagFlags::kFormatting : 0) |
        (ImpliedEndTagRule(t) ? TagFlags::kImplied : 0) |
        (ScopeBoundaryRule(t) ? TagFlags::kScope : 0) |
        (TableStructureRule(t) ? TagFlags::kTableStructure : 0));
  }
  return flags;
}();

bool HasFlag(GumboTag t, uint8_t flag) { return (kTagFlags[t] & flag) != 0; }

// The text walk's rules (page_text_rules.h) for every tag.
enum WalkFlag : uint8_t { kDropped = 1, kBlock = 2, kCell = 4, kPre = 8 };
const std::array<uint8_t, GUMBO_TAG_LAST + 1>& WalkFlags() {
  static const std::array<uint8_t, GUMBO_TAG_LAST + 1> flags = [] {
    std::array<uint8_t, GUMBO_TAG_LAST + 1> f{};
    for (int i = 0; i <= GUMBO_TAG_LAST; ++i) {
      const auto t = static_cast<GumboTag>(i);
      f[i] = static_cast<uint8_t>((DroppedElement(t) ? kDropped : 0) | (BlockElement(t) ? kBlock : 0) |
                                  (CellElement(t) ? kCell : 0) | (PreElement(t) ? kPre : 0));
    }
    return f;
  }();
  return flags;
}
bool Heading(GumboTag t) { return HasFlag(t, TagFlags::kHeading); }
bool Special(GumboTag t) { return HasFlag(t, TagFlags::kSpecial); }
bool ClosesPAndOpens(GumboTag t) { return HasFlag(t, TagFlags::kClosesP); }
bool ClosedByName(GumboTag t) { return HasFlag(t, TagFlags::kClosedByName); }
bool FormattingTag(GumboTag t) { return HasFlag(t, TagFlags::kFormatting); }
bool ImpliedEndTag(GumboTag t) { return HasFlag(t, TagFlags::kImplied); }
bool ScopeBoundary(GumboTag t) { return HasFlag(t, TagFlags::kScope); }
bool TableStructure(GumboTag t) { return HasFlag(t, TagFlags::kTableStructure); }

// --- The parser -------------------------------------------------------------

class FastParser {
 public:
  FastParser(std::string_view html, PageText& out)
      : s_(html), out_(out), page_has_cr_(html.find('\r') != std::string_view::npos) {}

  bool Run();

 private:
  // Tokenizer.
  void Markup(size_t& i);
  enum class Ref : uint8_t { kLiteral, kDecoded, kBail };
  Ref DecodeReference(size_t i, std::string& decoded, size_t& next) const;
  void Reference(size_t& i);
  bool ParseTag(size_t& i, TagToken& token);
  size_t CommentEnd(size_t from) const;
  void ConsumeRawText(size_t& i);

  // Tree construction: each handler returns true to reprocess the token.
  void Characters(std::string_view text, size_t offset, bool from_reference);
  void Process(const TagToken& t);
  bool Dispatch(const TagToken& t);
  bool BeforeBody(const TagToken& t);
  bool InHead(const TagToken& t);
  bool InBodyStart(const TagToken& t);
  bool InBodyEnd(const TagToken& t);
  bool InTable(const TagToken& t);
  bool InTableBody(const TagToken& t);
  bool InRow(const TagToken& t);
  bool InCell(const TagToken& t);
  bool InCaption(const TagToken& t);
  bool InColumnGroup(const TagToken& t);
  void Comment() { Flush(); }
  void Eof();

  // Stack of open elements and the output events of the walk.
  void Push(GumboTag tag, bool hidden, bool flush = true);
  void Pop();
  void Flush();
  bool PendingEmpty() const { return pending_.empty() && pending_view_.empty(); }
  void AppendPending(std::string_view text, size_t offset, bool from_reference);
  GumboTag Current() const { return stack_.empty() ? GUMBO_TAG_LAST : stack_.back().tag; }
  bool InScope(GumboTag tag) const;
  bool InButtonScope(GumboTag tag) const;
  bool InListScope(GumboTag tag) const;
  bool InTableScope(GumboTag tag) const;
  bool IsOpen(uint32_t id) const;
  void GenerateImpliedEndTags(GumboTag except);
  void ImplicitlyClose(GumboTag tag);
  void ClosePInButtonScope();
  void ClearStackBackTo(std::initializer_list<GumboTag> context);
  void ResetMode();
  void RawTextElement(const TagToken& t, RawText kind);
  void CloseCell(GumboTag cell);

  // Active formatting elements.
  void Reconstruct();
  void AddFormatting(const TagToken& t);
  void AddMarker() { formatting_.push_back({GUMBO_TAG_LAST, 0, false}); }
  void ClearToMarker();
  void AdoptionAgency(GumboTag subject);

  void Bail() { ok_ = false; }
  // gumbo's tag for a name as written (ASCII letters fold to lower case).
  // Names of up to eight bytes are remembered in a small direct-mapped
  // table: a page uses a few dozen names many thousand times.
  // `key` holds the name's first eight bytes, lower-cased.
  GumboTag TagNamed(std::string_view name, uint64_t key) {
    if (name.size() > 8) {
      name_.assign(name);
      for (char& ch : name_) ch = Lower(ch);
      return gumbo_tagn_enum(name_.data(), static_cast<unsigned>(name_.size()));
    }
    const size_t slot = ((key * 0x9E3779B97F4A7C15ULL) >> 58) ^ name.size();
    TagCacheEntry& e = tag_cache_[slot & (kTagCacheSize - 1)];
    if (e.length == name.size() && e.key == key) return e.tag;
    char lower[8];
    std::memcpy(lower, &key, 8);
    e = {key, static_cast<uint8_t>(name.size()),
         gumbo_tagn_enum(lower, static_cast<unsigned>(name.size()))};
    return e.tag;
  }

  std::string_view s_;
  PageTextBuilder out_;
  bool ok_ = true;
  Mode mode_ = Mode::kInitial;
  Quirks quirks_ = Quirks::kYes;
  std::vector<Element> stack_;
  std::vector<Formatting> formatting_;
  uint32_t next_id_ = 1;
  uint32_t form_ = 0;  // the form element pointer (an element id), 0 for none
  bool ignore_lf_ = false;
  RawText raw_ = RawText::kNone;
  GumboTag raw_tag_ = GUMBO_TAG_UNKNOWN;
  // The text node buffer: a view of the page while it is one plain run,
  // else a copy.
  std::string pending_;
  std::string_view pending_view_;
  size_t pending_offset_ = 0;
  std::string name_;     // scratch for tag and attribute names
  std::string attribute_buffer_;                         // of the tag being read
  std::vector<std::pair<size_t, size_t>> attribute_names_;  // in attribute_buffer_
  struct TagCacheEntry {
    uint64_t key = 0;
    uint8_t length = 0;  // 0: empty
    GumboTag tag = GUMBO_TAG_UNKNOWN;
  };
  static constexpr size_t kTagCacheSize = 64;
  std::array<TagCacheEntry, kTagCacheSize> tag_cache_{};
  bool page_has_cr_ = true;
  // After "</>", the token that starts at carried_for_ counts from
  // carried_start_.
  size_t carried_for_ = std::string_view::npos;
  size_t carried_start_ = 0;
  const std::array<uint8_t, GUMBO_TAG_LAST + 1>& walk_ = WalkFlags();
  std::string scratch_;  // a decoded character reference
};

bool FastParser::Run() {
  const size_t n = s_.size();
  size_t i = 0;
  while (ok_ && i < n) {
    const char c = s_[i];
    if (c == '<') {
      Markup(i);
      if (ok_ && raw_ != RawText::kNone) ConsumeRawText(i);
    } else if (c == '&') {
      Reference(i);
    } else {
      const size_t j = FindMarkupOrReference(s_, i + 1);
      Characters(s_.substr(i, j - i), i, false);
      i = j;
    }
  }
  if (ok_) Eof();
  return ok_;
}

// '<' at i: a tag, a comment, a doctype, or a literal '<'.
void FastParser::Markup(size_t& i) {
  const size_t n = s_.size();
  if (i + 1 >= n) {
    Characters("<", i, false);
    ++i;
    return;
  }
  const char c = s_[i + 1];
  if (c == '!') {
    if (s_.substr(i + 2, 2) == "--") {
      ignore_lf_ = false;
      i = CommentEnd(i + 4);
      Comment();
    } else if (EqualsIgnoreCase(s_.substr(i + 2, 7), "doctype")) {
      ignore_lf_ = false;
      size_t end = s_.find('>', i + 9);
      std::string_view body = s_.substr(i + 9, end == std::string_view::npos ? n : end - i - 9);
      Quirks q = EqualsIgnoreCase(TrimSpace(body), "html") &&
                         end != std::string_view::npos
                     ? Quirks::kNo
                     : Quirks::kUnknown;
      i = end == std::string_view::npos ? n : end + 1;
      if (mode_ == Mode::kInitial) {
        quirks_ = q;
        mode_ = Mode::kBeforeHtml;
      }  // elsewhere a doctype is ignored
    } else {
      ignore_lf_ = false;
      size_t end = s_.find('>', i + 2);  // a bogus comment
      i = end == std::string_view::npos ? n : end + 1;
      Comment();
    }
    return;
  }
  if (c == '?') {
    ignore_lf_ = false;
    size_t end = s_.find('>', i + 2);
    i = end == std::string_view::npos ? n : end + 1;
    Comment();
    return;
  }
  if (c == '/') {
    if (i + 2 >= n) return Bail();  // "</" at the end is text
    const char d = s_[i + 2];
    if (d == '>') {
      // "</>" is dropped without a token, and gumbo counts it as the start
      // of the next token.
      if (carried_for_ != i) carried_start_ = i;
      i += 3;
      carried_for_ = s_.substr(i, 2) == "\r\n" ? i + 1 : i;
      return;
    }
    if (!IsAlpha(d)) {
      ignore_lf_ = false;
      size_t end = s_.find('>', i + 2);
      i = end == std::string_view::npos ? n : end + 1;
      Comment();
      return;
    }
  } else if (!IsAlpha(c)) {
    Characters("<", i, false);
    ++i;
    return;
  }
  TagToken token;
  if (!ParseTag(i, token)) return Bail();
  ignore_lf_ = false;
  Process(token);
}

// A tag from its '<' to just past its '>'. False when the page ends inside
// it (gumbo drops such a tag), or when a value that decides whether the
// element is hidden holds a character reference.
bool FastParser::ParseTag(size_t& i, TagToken& token) {
  const size_t n = s_.size();
  size_t p = i + 1;
  token.start = s_[p] != '/';
  if (!token.start) ++p;
  const size_t name_begin = p;
  uint64_t key = 0;  // the first eight bytes, lower-cased
  while (p < n && !EndsName(s_[p])) {
    if (p - name_begin < 8) key |= uint64_t{static_cast<unsigned char>(Lower(s_[p]))} << (8 * (p - name_begin));
    ++p;
  }
  if (p >= n) return false;
  token.tag = TagNamed(s_.substr(name_begin, p - name_begin), key);

  HidingAttributes hiding;
  enum { kNone, kAria, kStyle, kOther, kDropped } current = kNone;
  // Attribute names are lower-cased; a repeated name is dropped with its
  // value. As gumbo does, a repeated name without a value stays in its
  // buffer and prefixes the next name. Names are kept in one buffer.
  attribute_buffer_.clear();
  attribute_names_.clear();
  bool carrying = false;
  size_t carry_begin = 0;
  auto start_name = [&](size_t a, size_t b) {
    const size_t begin = carrying ? carry_begin : attribute_buffer_.size();
    for (size_t k = a; k < b; ++k) attribute_buffer_.push_back(Lower(s_[k]));
    const std::string_view name(attribute_buffer_.data() + begin, attribute_buffer_.size() - begin);
    for (const auto& [at, length] : attribute_names_) {
      if (std::string_view(attribute_buffer_.data() + at, length) == name) {
        carrying = true;
        carry_begin = begin;
        current = kDropped;
        return;
      }
    }
    carrying = false;
    current = kOther;
    if (name == "hidden") {
      hiding.hidden = true;
    } else if (name == "aria-hidden") {
      hiding.has_aria_hidden = true;
      current = kAria;
    } else if (name == "style") {
      hiding.has_style = true;
      current = kStyle;
    }
    attribute_names_.emplace_back(begin, name.size());
  };
  auto set_value = [&](std::string_view v) {
    if (current == kDropped && carrying) {  // gumbo empties its buffer with the value
      carrying = false;
      attribute_buffer_.resize(carry_begin);
    }
    if (current == kAria) hiding.aria_hidden = v;
    if (current == kStyle) hiding.style = v;
    return (current != kAria && current != kStyle) || v.find('&') == std::string_view::npos;
  };
  enum { kBeforeName, kAfterName, kBeforeValue, kAfterQuoted, kSelfClosing } state = kBeforeName;
  while (true) {
    if (p >= n) return false;
    const char c = s_[p];
    switch (state) {
      case kBeforeName:
      case kAfterName:
        if (IsSpace(c)) {
          ++p;
        } else if (c == '/') {
          ++p;
          state = kSelfClosing;
        } else if (c == '>') {
          i = p + 1;
          token.hidden = (hiding.hidden || hiding.has_aria_hidden || hiding.has_style) && Hidden(hiding);
          return true;
        } else if (c == '=' && state == kAfterName) {
          ++p;
          state = kBeforeValue;
        } else {
          size_t a = p++;
          while (p < n && !IsSpace(s_[p]) && s_[p] != '/' && s_[p] != '=' && s_[p] != '>') ++p;
          start_name(a, p);
          if (p < n && s_[p] == '=') {
            ++p;
            state = kBeforeValue;
          } else {
            state = kAfterName;
          }
        }
        break;
      case kBeforeValue:
        if (IsSpace(c)) {
          ++p;
        } else if (c == '"' || c == '\'') {
          size_t end = s_.find(c, p + 1);
          if (end == std::string_view::npos) return false;
          if (!set_value(s_.substr(p + 1, end - p - 1))) return false;
          p = end + 1;
          state = kAfterQuoted;
        } else if (c == '>') {
          state = kBeforeName;
        } else {
          size_t a = p;
          while (p < n && !IsSpace(s_[p]) && s_[p] != '>') ++p;
          if (!set_value(s_.substr(a, p - a))) return false;
          state = kBeforeName;
        }
        break;
      case kAfterQuoted:
        if (IsSpace(c)) {
          ++p;
          state = kBeforeName;
        } else if (c == '/') {
          ++p;
          state = kSelfClosing;
        } else {
          state = kBeforeName;  // '>' ends the tag there; anything else starts a name
        }
        break;
      case kSelfClosing:
        if (c == '>') {
          i = p + 1;
          token.hidden = (hiding.hidden || hiding.has_aria_hidden || hiding.has_style) && Hidden(hiding);
          return true;
        }
        state = kBeforeName;
        break;
    }
  }
}

// Past the end of a comment whose "<!--" ends just before `from` (gumbo's
// comment states: "<!-->", "<!--->", "--->" and "--!>" all end one); the
// page's end if none does.
size_t FastParser::CommentEnd(size_t from) const {
  const size_t n = s_.size();
  size_t p = from;
  enum { kComment, kEndDash, kEnd, kEndBang } state = kComment;
  // The comment start and start dash states.
  if (p >= n) return n;
  if (s_[p] == '>') return p + 1;
  if (s_[p] == '-') {
    if (++p >= n) return n;
    if (s_[p] == '>') return p + 1;
    if (s_[p] == '-') state = kEnd;
  }
  ++p;
  while (p < n) {
    const char c = s_[p];
    switch (state) {
      case kComment: {
        const size_t dash = s_.find('-', p);
        if (dash == std::string_view::npos) return n;
        p = dash + 1;
        state = kEndDash;
        continue;
      }
      case kEndDash:
        state = c == '-' ? kEnd : kComment;
        break;
      case kEnd:
        if (c == '>') return p + 1;
        state = c == '!' ? kEndBang : c == '-' ? kEnd : kComment;
        break;
      case kEndBang:
        if (c == '>') return p + 1;
        state = c == '-' ? kEndDash : kComment;
        break;
    }
    ++p;
  }
  return n;
}

// '&' at i, as the data and RCDATA states read it: kDecoded with the
// characters in `decoded` and `next` past the reference; kLiteral when the
// '&' is text; kBail for what this parser leaves to gumbo.
FastParser::Ref FastParser::DecodeReference(size_t i, std::string& decoded, size_t& next) const {
  const size_t n = s_.size();
  decoded.clear();
  if (i + 1 >= n) return Ref::kLiteral;
  const char c = s_[i + 1];
  if (c == '#') {
    size_t p = i + 2;
    const bool hex = p < n && (s_[p] == 'x' || s_[p] == 'X');
    if (hex) ++p;
    const size_t digits_begin = p;
    uint64_t v = 0;
    while (p < n && p - digits_begin < 16) {
      const char d = s_[p];
      int digit = -1;
      if (d >= '0' && d <= '9') {
        digit = d - '0';
      } else if (hex && (d | 0x20) >= 'a' && (d | 0x20) <= 'f') {
        digit = (d | 0x20) - 'a' + 10;
      }
      if (digit < 0) break;
      v = v * (hex ? 16 : 10) + static_cast<uint64_t>(digit);
      ++p;
    }
    if (p == digits_begin) return Ref::kLiteral;  // "&#" without digits stays text
    // gumbo accumulates in an int; keep to values that cannot overflow it.
    if (p - digits_begin > (hex ? 7u : 9u)) return Ref::kBail;
    if (p < n && s_[p] == ';') ++p;
    AppendUtf8(NumericReferenceValue(static_cast<uint32_t>(v)), decoded);
    next = p;
    return Ref::kDecoded;
  }
  if (IsAlpha(c)) {
    size_t p = i + 1;
    while (p < n && IsAlnum(s_[p])) ++p;
    const NamedReference* ref =
        p < n && s_[p] == ';' ? FindReference(s_.substr(i + 1, p - i - 1)) : nullptr;
    if (ref == nullptr) return Ref::kBail;  // a name outside the common set, or a legacy form
    AppendUtf8(ref->code_point, decoded);
    next = p + 1;
    return Ref::kDecoded;
  }
  return Ref::kLiteral;
}

void FastParser::Reference(size_t& i) {
  size_t next = i + 1;
  switch (DecodeReference(i, scratch_, next)) {
    case Ref::kBail:
      return Bail();
    case Ref::kLiteral:
      Characters("&", i, false);
      ++i;
      return;
    case Ref::kDecoded:
      Characters(scratch_, i, true);
      i = next;
      return;
  }
}

// The content of a script, style, title, textarea, ... up to its end tag.
void FastParser::ConsumeRawText(size_t& i) {
  const size_t n = s_.size();
  const RawText kind = raw_;
  raw_ = RawText::kNone;
  size_t end = n;
  for (size_t p = s_.find("</", i); p != std::string_view::npos; p = s_.find("</", p + 2)) {
    size_t q = p + 2;
    while (q < n && IsAlpha(s_[q])) ++q;
    if (q == p + 2 || q >= n) continue;
    if (!IsSpace(s_[q]) && s_[q] != '/' && s_[q] != '>') continue;
    uint64_t key = 0;
    for (size_t k = p + 2; k < q && k < p + 10; ++k) {
      key |= uint64_t{static_cast<unsigned char>(Lower(s_[k]))} << (8 * (k - p - 2));
    }
    if (TagNamed(s_.substr(p + 2, q - p - 2), key) != raw_tag_) continue;
    end = p;
    break;
  }
  std::string_view content = s_.substr(i, end - i);
  if (kind == RawText::kScript && content.find("<!--") != std::string_view::npos) return Bail();
  size_t offset = i;
  if (ignore_lf_) {
    ignore_lf_ = false;
    if (content.starts_with("\r\n")) {
      content.remove_prefix(2);
      offset += 2;
    } else if (!content.empty() && (content[0] == '\n' || content[0] == '\r')) {
      content.remove_prefix(1);
      offset += 1;
    }
  }
  if (kind == RawText::kRcData) {
    // Character references are decoded; each is its own token.
    size_t p = 0;
    while (ok_ && p < content.size()) {
      size_t amp = content.find('&', p);
      if (amp == std::string_view::npos) amp = content.size();
      if (amp > p) AppendPending(content.substr(p, amp - p), offset + p, false);
      if (amp >= content.size()) break;
      size_t next = 0;
      switch (DecodeReference(offset + amp, scratch_, next)) {
        case Ref::kBail:
          return Bail();
        case Ref::kLiteral:
          AppendPending("&", offset + amp, false);
          p = amp + 1;
          break;
        case Ref::kDecoded:
          if (next > offset + content.size()) return Bail();  // a reference into the end tag
          AppendPending(scratch_, offset + amp, true);
          p = next - offset;
          break;
      }
    }
  } else if (!content.empty()) {
    AppendPending(content, offset, false);
  }
  if (!ok_) return;
  if (end < n) {
    size_t p = end;
    TagToken token;
    if (!ParseTag(p, token)) return Bail();
    i = p;
  } else {
    i = n;
  }
  Pop();
}


// --- Tree construction --------------------------------------------------

void FastParser::Characters(std::string_view text, size_t offset, bool from_reference) {
  if (ignore_lf_) {
    ignore_lf_ = false;
    if (from_reference) {
      if (text == "\n") return;
    } else if (text.starts_with("\r\n")) {
      text.remove_prefix(2);
      offset += 2;
    } else if (text[0] == '\n' || text[0] == '\r') {
      text.remove_prefix(1);
      offset += 1;
    }
  }
  while (ok_ && !text.empty()) {
    if (mode_ == Mode::kInBody || mode_ == Mode::kInCell || mode_ == Mode::kInCaption) {
      Reconstruct();
      AppendPending(text, offset, from_reference);
      return;
    }
    size_t spaces = 0;
    while (spaces < text.size() && IsSpace(text[spaces])) ++spaces;
    switch (mode_) {
      case Mode::kInitial:
      case Mode::kBeforeHtml:
      case Mode::kBeforeHead:
        // White space is dropped; other text implies what comes before it.
        if (spaces == text.size()) return;
        text.remove_prefix(spaces);
        offset += spaces;
        if (mode_ == Mode::kInitial) {
          quirks_ = Quirks::kYes;
          mode_ = Mode::kBeforeHtml;
        } else if (mode_ == Mode::kBeforeHtml) {
          Push(GUMBO_TAG_HTML, false);
          mode_ = Mode::kBeforeHead;
        } else {
          Push(GUMBO_TAG_HEAD, false);
          mode_ = Mode::kInHead;
        }
        continue;
      case Mode::kInHead:
      case Mode::kAfterHead:
      case Mode::kInTable:
      case Mode::kInTableBody:
      case Mode::kInRow:
      case Mode::kInColumnGroup:
        if (spaces > 0) AppendPending(text.substr(0, spaces), offset, from_reference);
        if (spaces == text.size()) return;
        text.remove_prefix(spaces);
        offset += spaces;
        if (mode_ == Mode::kInHead) {
          Pop();
          mode_ = Mode::kAfterHead;
        } else if (mode_ == Mode::kAfterHead) {
          Push(GUMBO_TAG_BODY, false);
          mode_ = Mode::kInBody;
        } else {
          return Bail();  // text in a table outside its cells is moved before the table
        }
        continue;
      case Mode::kAfterBody:
      case Mode::kAfterAfterBody:
        if (spaces == 0) {
          mode_ = Mode::kInBody;
          continue;
        }
        Reconstruct();
        AppendPending(text.substr(0, spaces), offset, from_reference);
        text.remove_prefix(spaces);
        offset += spaces;
        continue;
      case Mode::kInBody:
      case Mode::kInCell:
      case Mode::kInCaption:
        Reconstruct();
        AppendPending(text, offset, from_reference);
        return;
    }
  }
}

void FastParser::AppendPending(std::string_view text, size_t offset, bool from_reference) {
  if (text.empty() || !ok_) return;
  const bool plain =
      !from_reference && (!page_has_cr_ || text.find('\r') == std::string_view::npos);
  if (plain && pending_view_.empty() && pending_.empty()) {
    // Most text nodes are one run of the page: keep a view, copy nothing.
    pending_view_ = text;
    pending_offset_ = offset == carried_for_ ? carried_start_ : offset;
    return;
  }
  if (!pending_view_.empty()) {
    pending_.assign(pending_view_);
    pending_view_ = {};
  }
  if (plain || from_reference) {
    if (pending_.empty()) pending_offset_ = offset == carried_for_ ? carried_start_ : offset;
    pending_.append(text);
    return;
  }
  // The input stream reads "\r\n" and a lone '\r' as one '\n'; a token's
  // position is that of its '\n'.
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '\r' && k + 1 < text.size() && text[k + 1] == '\n') continue;
    if (pending_.empty()) pending_offset_ = offset + k == carried_for_ ? carried_start_ : offset + k;
    pending_.push_back(text[k] == '\r' ? '\n' : text[k]);
  }
}

void FastParser::Flush() {
  if (PendingEmpty()) return;
  if (!stack_.empty() && !stack_.back().suppressed) {
    out_.Text(pending_view_.empty() ? std::string_view(pending_) : pending_view_, pending_offset_,
              stack_.back().pre);
  }
  pending_.clear();
  pending_view_ = {};
}

void FastParser::Push(GumboTag tag, bool hidden, bool flush) {
  if (flush) Flush();
  const bool parent_suppressed = !stack_.empty() && stack_.back().suppressed;
  const bool parent_pre = !stack_.empty() && stack_.back().pre;
  // Scope checks walk the stack: past kMaxDepth the parse would turn
  // quadratic, and such a page is refused (ExtractPageText).
  if (stack_.size() >= kMaxDepth) return Bail();
  const uint8_t walk = walk_[tag];
  Element e{tag, next_id_++, parent_suppressed || (walk & kDropped) != 0 || hidden,
            parent_pre || (walk & kPre) != 0};
  if (!e.suppressed) {
    if (tag == GUMBO_TAG_BR) {
      out_.Break('\n');
    } else {
      if (walk & kBlock) out_.Break('\n');
      if (walk & kCell) out_.Break('\t');
    }
  }
  stack_.push_back(e);
}

void FastParser::Pop() {
  Flush();
  const Element e = stack_.back();
  stack_.pop_back();
  if (!e.suppressed && e.tag != GUMBO_TAG_BR) {
    const uint8_t walk = walk_[e.tag];
    if (walk & kBlock) out_.Break('\n');
    if (walk & kCell) out_.Break('\t');
  }
}

bool FastParser::InScope(GumboTag tag) const {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    if (it->tag == tag) return true;
    if (ScopeBoundary(it->tag)) return false;
  }
  return false;
}

bool FastParser::InButtonScope(GumboTag tag) const {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    if (it->tag == tag) return true;
    if (ScopeBoundary(it->tag) || it->tag == GUMBO_TAG_BUTTON) return false;
  }
  return false;
}

bool FastParser::InListScope(GumboTag tag) const {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    if (it->tag == tag) return true;
    if (ScopeBoundary(it->tag) || it->tag == GUMBO_TAG_OL || it->tag == GUMBO_TAG_UL) return false;
  }
  return false;
}

bool FastParser::InTableScope(GumboTag tag) const {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    if (it->tag == tag) return true;
    if (it->tag == GUMBO_TAG_HTML || it->tag == GUMBO_TAG_TABLE || it->tag == GUMBO_TAG_TEMPLATE) {
      return false;
    }
  }
  return false;
}

bool FastParser::IsOpen(uint32_t id) const {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    if (it->id == id) return true;
  }
  return false;
}

void FastParser::GenerateImpliedEndTags(GumboTag except) {
  while (!stack_.empty() && ImpliedEndTag(Current()) && Current() != except) Pop();
}

void FastParser::ImplicitlyClose(GumboTag tag) {
  GenerateImpliedEndTags(tag);
  while (!stack_.empty() && Current() != tag) Pop();
  if (!stack_.empty()) Pop();
}

void FastParser::ClosePInButtonScope() {
  if (InButtonScope(GUMBO_TAG_P)) ImplicitlyClose(GUMBO_TAG_P);
}

void FastParser::ClearStackBackTo(std::initializer_list<GumboTag> context) {
  while (!stack_.empty() && !TagIn(Current(), context) && Current() != GUMBO_TAG_HTML &&
         Current() != GUMBO_TAG_TEMPLATE) {
    Pop();
  }
}

void FastParser::ResetMode() {
  for (size_t k = stack_.size(); k-- > 0;) {
    const GumboTag t = stack_[k].tag;
    const bool last = k == 0;
    switch (t) {
      case GUMBO_TAG_TD: case GUMBO_TAG_TH:
        if (!last) {
          mode_ = Mode::kInCell;
          return;
        }
        break;
      case GUMBO_TAG_TR: mode_ = Mode::kInRow; return;
      case GUMBO_TAG_TBODY: case GUMBO_TAG_THEAD: case GUMBO_TAG_TFOOT:
        mode_ = Mode::kInTableBody;
        return;
      case GUMBO_TAG_CAPTION: mode_ = Mode::kInCaption; return;
      case GUMBO_TAG_COLGROUP: mode_ = Mode::kInColumnGroup; return;
      case GUMBO_TAG_TABLE: mode_ = Mode::kInTable; return;
      case GUMBO_TAG_BODY: mode_ = Mode::kInBody; return;
      case GUMBO_TAG_SELECT: case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_HEAD:
      case GUMBO_TAG_FRAMESET: case GUMBO_TAG_HTML:
        return Bail();
      default:
        break;
    }
  }
  Bail();
}

void FastParser::RawTextElement(const TagToken& t, RawText kind) {
  Push(t.tag, t.hidden);
  raw_ = kind;
  raw_tag_ = t.tag;
}

void FastParser::CloseCell(GumboTag cell) {
  GenerateImpliedEndTags(GUMBO_TAG_LAST);
  while (!stack_.empty() && Current() != cell) Pop();
  if (!stack_.empty()) Pop();
  ClearToMarker();
  mode_ = Mode::kInRow;
}

void FastParser::Reconstruct() {
  if (formatting_.empty()) return;
  const Formatting& last = formatting_.back();
  if (last.tag == GUMBO_TAG_LAST || last.id == stack_.back().id || IsOpen(last.id)) return;
  size_t k = formatting_.size() - 1;
  while (k > 0 && formatting_[k - 1].tag != GUMBO_TAG_LAST && !IsOpen(formatting_[k - 1].id)) --k;
  // gumbo inserts the clones without flushing the text buffer; with pending
  // text the text would move into them.
  if (!PendingEmpty()) return Bail();
  for (; k < formatting_.size(); ++k) {
    Push(formatting_[k].tag, formatting_[k].hidden, /*flush=*/false);
    formatting_[k].id = stack_.back().id;
  }
}

void FastParser::AddFormatting(const TagToken& t) {
  // gumbo's Noah's Ark clause drops the earliest of three identical entries
  // (tag and attributes); this parser does not compare attributes.
  int same = 0;
  for (auto it = formatting_.rbegin(); it != formatting_.rend() && it->tag != GUMBO_TAG_LAST; ++it) {
    if (it->tag == t.tag) ++same;
  }
  if (same >= 3) return Bail();
  formatting_.push_back({t.tag, stack_.back().id, t.hidden});
}

void FastParser::ClearToMarker() {
  while (!formatting_.empty()) {
    const bool marker = formatting_.back().tag == GUMBO_TAG_LAST;
    formatting_.pop_back();
    if (marker) break;
  }
}

// The adoption agency algorithm where it only pops: the formatting element
// is open, in scope, and no special element was opened inside it. Where it
// would move nodes, the page goes to gumbo.
void FastParser::AdoptionAgency(GumboTag subject) {
  // The common case: the element being closed is the current node and the
  // last entry of the list.
  if (!formatting_.empty() && formatting_.back().tag == subject &&
      formatting_.back().id == stack_.back().id) {
    Pop();
    formatting_.pop_back();
    return;
  }
  if (Current() == subject) {
    bool listed = false;
    for (const Formatting& f : formatting_) listed = listed || f.id == stack_.back().id;
    if (!listed) return Pop();
  }
  size_t k = formatting_.size();
  while (true) {
    if (k == 0) return;
    --k;
    if (formatting_[k].tag == GUMBO_TAG_LAST) return;  // a marker first: ignored
    if (formatting_[k].tag == subject) break;
  }
  const uint32_t id = formatting_[k].id;
  size_t at = stack_.size();
  for (size_t j = stack_.size(); j-- > 0;) {
    if (stack_[j].id == id) {
      at = j;
      break;
    }
  }
  if (at == stack_.size()) {  // not open: forgotten
    formatting_.erase(formatting_.begin() + static_cast<std::ptrdiff_t>(k));
    return;
  }
  if (!InScope(subject)) return;
  for (size_t j = at + 1; j < stack_.size(); ++j) {
    if (Special(stack_[j].tag)) return Bail();  // a furthest block: nodes would move
  }
  while (stack_.size() > at) Pop();
  formatting_.erase(formatting_.begin() + static_cast<std::ptrdiff_t>(k));
}

void FastParser::Process(const TagToken& t) {
  while (ok_ && Dispatch(t)) {
  }
}

bool FastParser::Dispatch(const TagToken& t) {
  switch (mode_) {
    case Mode::kInitial:
    case Mode::kBeforeHtml:
    case Mode::kBeforeHead:
    case Mode::kAfterHead:
      return BeforeBody(t);
    case Mode::kInHead:
      return InHead(t);
    case Mode::kInBody:
      return t.start ? InBodyStart(t) : InBodyEnd(t);
    case Mode::kInTable:
      return InTable(t);
    case Mode::kInTableBody:
      return InTableBody(t);
    case Mode::kInRow:
      return InRow(t);
    case Mode::kInCell:
      return InCell(t);
    case Mode::kInCaption:
      return InCaption(t);
    case Mode::kInColumnGroup:
      return InColumnGroup(t);
    case Mode::kAfterBody:
    case Mode::kAfterAfterBody:
      if (t.start && t.tag == GUMBO_TAG_HTML) {
        Bail();  // its attributes would merge into the root
        return false;
      }
      if (mode_ == Mode::kAfterBody && !t.start && t.tag == GUMBO_TAG_HTML) {
        mode_ = Mode::kAfterAfterBody;
        return false;
      }
      mode_ = Mode::kInBody;
      return true;
  }
  return false;
}

// The modes before <body>: what they insert produces no text (the head is
// dropped, and nothing is written before the body's first text).
bool FastParser::BeforeBody(const TagToken& t) {
  const bool end_passes = !t.start && TagIn(t.tag, {GUMBO_TAG_HEAD, GUMBO_TAG_BODY,
                                                    GUMBO_TAG_HTML, GUMBO_TAG_BR});
  switch (mode_) {
    case Mode::kInitial:
      quirks_ = Quirks::kYes;
      mode_ = Mode::kBeforeHtml;
      return true;
    case Mode::kBeforeHtml:
      if (t.start && t.tag == GUMBO_TAG_HTML) {
        Push(GUMBO_TAG_HTML, t.hidden);
        mode_ = Mode::kBeforeHead;
        return false;
      }
      if (!t.start && !end_passes) return false;
      Push(GUMBO_TAG_HTML, false);
      mode_ = Mode::kBeforeHead;
      return true;
    case Mode::kBeforeHead:
      if (t.start && t.tag == GUMBO_TAG_HTML) {
        Bail();  // its attributes would merge into the root
        return false;
      }
      if (t.start && t.tag == GUMBO_TAG_HEAD) {
        Push(GUMBO_TAG_HEAD, t.hidden);
        mode_ = Mode::kInHead;
        return false;
      }
      if (!t.start && !end_passes) return false;
      Push(GUMBO_TAG_HEAD, false);
      mode_ = Mode::kInHead;
      return true;
    default:  // after head
      if (t.start) {
        switch (t.tag) {
          case GUMBO_TAG_HTML: case GUMBO_TAG_FRAMESET: case GUMBO_TAG_TEMPLATE:
            Bail();
            return false;
          case GUMBO_TAG_BODY:
            Push(GUMBO_TAG_BODY, t.hidden);
            mode_ = Mode::kInBody;
            return false;
          case GUMBO_TAG_HEAD:
            return false;
          case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND:
          case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_NOFRAMES:
          case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_TITLE:
            // Handled in the head, which is dropped: what they hold says nothing.
            Flush();
            Push(GUMBO_TAG_HEAD, true, false);
            InHead(t);
            // The head leaves the stack again; a raw text element stays on it.
            for (size_t k = stack_.size(); k-- > 0;) {
              if (stack_[k].tag == GUMBO_TAG_HEAD) {
                stack_.erase(stack_.begin() + static_cast<std::ptrdiff_t>(k));
                break;
              }
            }
            return false;
          default:
            break;
        }
      } else if (t.tag != GUMBO_TAG_BODY && t.tag != GUMBO_TAG_HTML && t.tag != GUMBO_TAG_BR) {
        return false;
      }
      Push(GUMBO_TAG_BODY, false);
      mode_ = Mode::kInBody;
      return true;
  }
}

bool FastParser::InHead(const TagToken& t) {
  if (t.start) {
    switch (t.tag) {
      case GUMBO_TAG_HTML: case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_TEMPLATE:
        Bail();
        return false;
      case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND:
      case GUMBO_TAG_MENUITEM: case GUMBO_TAG_LINK: case GUMBO_TAG_META:
        Push(t.tag, t.hidden);
        Pop();
        return false;
      case GUMBO_TAG_TITLE:
        RawTextElement(t, RawText::kRcData);
        return false;
      case GUMBO_TAG_NOFRAMES: case GUMBO_TAG_STYLE:
        RawTextElement(t, RawText::kRawText);
        return false;
      case GUMBO_TAG_SCRIPT:
        RawTextElement(t, RawText::kScript);
        return false;
      case GUMBO_TAG_HEAD:
        return false;
      default:
        break;
    }
  } else {
    if (t.tag == GUMBO_TAG_HEAD) {
      Pop();
      mode_ = Mode::kAfterHead;
      return false;
    }
    if (t.tag == GUMBO_TAG_TEMPLATE) {
      Bail();
      return false;
    }
    if (t.tag != GUMBO_TAG_BODY && t.tag != GUMBO_TAG_HTML && t.tag != GUMBO_TAG_BR) return false;
  }
  Pop();
  mode_ = Mode::kAfterHead;
  return true;
}

bool FastParser::InBodyStart(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (ClosesPAndOpens(tag)) {
    ClosePInButtonScope();
    Push(tag, t.hidden);
    return false;
  }
  if (Heading(tag)) {
    ClosePInButtonScope();
    if (Heading(Current())) Pop();
    Push(tag, t.hidden);
    return false;
  }
  if (FormattingTag(tag)) {
    Reconstruct();
    Push(tag, t.hidden);
    AddFormatting(t);
    return false;
  }
  switch (tag) {
    case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND:
    case GUMBO_TAG_MENUITEM: case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_TITLE:
      return InHead(t);
    case GUMBO_TAG_PRE: case GUMBO_TAG_LISTING:
      ClosePInButtonScope();
      Push(tag, t.hidden);
      ignore_lf_ = true;
      return false;
    case GUMBO_TAG_FORM:
      if (form_ != 0) return false;  // a nested form is ignored
      ClosePInButtonScope();
      Push(tag, t.hidden);
      form_ = stack_.back().id;
      return false;
    case GUMBO_TAG_LI:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DT: {
      for (size_t k = stack_.size(); k-- > 0;) {
        const GumboTag open = stack_[k].tag;
        const bool same = tag == GUMBO_TAG_LI ? open == GUMBO_TAG_LI
                                              : open == GUMBO_TAG_DD || open == GUMBO_TAG_DT;
        if (same) {
          ImplicitlyClose(open);
          break;
        }
        if (Special(open) && !TagIn(open, {GUMBO_TAG_ADDRESS, GUMBO_TAG_DIV, GUMBO_TAG_P})) break;
      }
      ClosePInButtonScope();
      Push(tag, t.hidden);
      return false;
    }
    case GUMBO_TAG_BUTTON:
      if (InScope(GUMBO_TAG_BUTTON)) {
        Bail();
        return false;
      }
      Reconstruct();
      Push(tag, t.hidden);
      return false;
    case GUMBO_TAG_A:
      for (auto it = formatting_.rbegin(); it != formatting_.rend() && it->tag != GUMBO_TAG_LAST; ++it) {
        if (it->tag == GUMBO_TAG_A) {
          AdoptionAgency(GUMBO_TAG_A);
          break;
        }
      }
      for (auto it = formatting_.rbegin(); ok_ && it != formatting_.rend() && it->tag != GUMBO_TAG_LAST; ++it) {
        if (it->tag == GUMBO_TAG_A) Bail();  // still listed: gumbo removes it from the stack
      }
      Reconstruct();
      Push(tag, t.hidden);
      AddFormatting(t);
      return false;
    case GUMBO_TAG_NOBR:
      Reconstruct();
      if (InScope(GUMBO_TAG_NOBR)) {
        AdoptionAgency(GUMBO_TAG_NOBR);
        Reconstruct();
      }
      Push(tag, t.hidden);
      AddFormatting(t);
      return false;
    case GUMBO_TAG_TABLE:
      if (quirks_ != Quirks::kYes) {
        if (quirks_ == Quirks::kUnknown && InButtonScope(GUMBO_TAG_P)) {
          Bail();  // whether the table closes the paragraph depends on the doctype
          return false;
        }
        ClosePInButtonScope();
      }
      Push(tag, t.hidden);
      mode_ = Mode::kInTable;
      return false;
    case GUMBO_TAG_AREA: case GUMBO_TAG_BR: case GUMBO_TAG_EMBED: case GUMBO_TAG_IMG:
    case GUMBO_TAG_KEYGEN: case GUMBO_TAG_WBR: case GUMBO_TAG_INPUT:
      Reconstruct();
      Push(tag, t.hidden);
      Pop();
      return false;
    case GUMBO_TAG_PARAM: case GUMBO_TAG_SOURCE: case GUMBO_TAG_TRACK:
      Push(tag, t.hidden);
      Pop();
      return false;
    case GUMBO_TAG_HR:
      ClosePInButtonScope();
      Push(tag, t.hidden);
      Pop();
      return false;
    case GUMBO_TAG_TEXTAREA:
      RawTextElement(t, RawText::kRcData);
      ignore_lf_ = true;
      return false;
    case GUMBO_TAG_XMP:
      ClosePInButtonScope();
      Reconstruct();
      RawTextElement(t, RawText::kRawText);
      return false;
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_NOEMBED:
      RawTextElement(t, RawText::kRawText);
      return false;
    case GUMBO_TAG_OPTION: case GUMBO_TAG_OPTGROUP:
      if (Current() == GUMBO_TAG_OPTION) Pop();
      Reconstruct();
      Push(tag, t.hidden);
      return false;
    case GUMBO_TAG_CAPTION: case GUMBO_TAG_COL: case GUMBO_TAG_COLGROUP: case GUMBO_TAG_FRAME:
    case GUMBO_TAG_HEAD: case GUMBO_TAG_TBODY: case GUMBO_TAG_TD: case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TH: case GUMBO_TAG_THEAD: case GUMBO_TAG_TR:
      return false;  // ignored in the body
    case GUMBO_TAG_HTML: case GUMBO_TAG_BODY: case GUMBO_TAG_FRAMESET: case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_APPLET: case GUMBO_TAG_MARQUEE:
    case GUMBO_TAG_OBJECT: case GUMBO_TAG_IMAGE: case GUMBO_TAG_ISINDEX: case GUMBO_TAG_SELECT:
    case GUMBO_TAG_RB: case GUMBO_TAG_RP: case GUMBO_TAG_RT: case GUMBO_TAG_RTC:
    case GUMBO_TAG_MATH: case GUMBO_TAG_SVG:
      Bail();
      return false;
    default:
      Reconstruct();
      Push(tag, t.hidden);
      return false;
  }
}

bool FastParser::InBodyEnd(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (ClosedByName(tag)) {
    if (InScope(tag)) ImplicitlyClose(tag);
    return false;
  }
  if (FormattingTag(tag) || tag == GUMBO_TAG_A || tag == GUMBO_TAG_NOBR) {
    AdoptionAgency(tag);
    return false;
  }
  if (Heading(tag)) {
    bool open = false;
    for (auto it = stack_.rbegin(); it != stack_.rend() && !open; ++it) {
      if (Heading(it->tag)) open = true;
      else if (ScopeBoundary(it->tag)) break;
    }
    if (!open) return false;
    GenerateImpliedEndTags(GUMBO_TAG_LAST);
    while (!stack_.empty()) {
      const bool heading = Heading(Current());
      Pop();
      if (heading) break;
    }
    return false;
  }
  switch (tag) {
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_HTML:
      if (!InScope(GUMBO_TAG_BODY)) return false;
      mode_ = Mode::kAfterBody;
      return tag == GUMBO_TAG_HTML;
    case GUMBO_TAG_FORM: {
      const uint32_t form = form_;
      form_ = 0;
      bool in_scope = false;
      for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
        if (it->id == form) {
          in_scope = true;
          break;
        }
        if (ScopeBoundary(it->tag)) break;
      }
      if (form == 0 || !in_scope) return false;
      GenerateImpliedEndTags(GUMBO_TAG_LAST);
      if (stack_.back().id != form) {
        Bail();  // removed from the middle of the stack
        return false;
      }
      // Removed without flushing the text buffer: pending text goes after it.
      const Element e = stack_.back();
      stack_.pop_back();
      if (!e.suppressed) out_.Break('\n');
      return false;
    }
    case GUMBO_TAG_P:
      if (!InButtonScope(GUMBO_TAG_P)) {
        Push(GUMBO_TAG_P, false);
        return true;
      }
      ImplicitlyClose(GUMBO_TAG_P);
      return false;
    case GUMBO_TAG_LI:
      if (InListScope(GUMBO_TAG_LI)) ImplicitlyClose(GUMBO_TAG_LI);
      return false;
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DT:
      if (InScope(tag)) ImplicitlyClose(tag);
      return false;
    case GUMBO_TAG_BR:
      Reconstruct();
      Push(GUMBO_TAG_BR, false);
      Pop();
      return false;
    case GUMBO_TAG_APPLET: case GUMBO_TAG_MARQUEE: case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_TEMPLATE:
      Bail();
      return false;
    default:
      for (size_t k = stack_.size(); k-- > 0;) {
        if (stack_[k].tag == tag) {
          GenerateImpliedEndTags(tag);
          while (stack_.size() > k) Pop();
          return false;
        }
        if (Special(stack_[k].tag)) return false;
      }
      return false;
  }
}

bool FastParser::InTable(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (t.start) {
    switch (tag) {
      case GUMBO_TAG_CAPTION:
        ClearStackBackTo({GUMBO_TAG_TABLE});
        AddMarker();
        Push(tag, t.hidden);
        mode_ = Mode::kInCaption;
        return false;
      case GUMBO_TAG_COLGROUP:
        ClearStackBackTo({GUMBO_TAG_TABLE});
        Push(tag, t.hidden);
        mode_ = Mode::kInColumnGroup;
        return false;
      case GUMBO_TAG_COL:
        ClearStackBackTo({GUMBO_TAG_TABLE});
        Push(GUMBO_TAG_COLGROUP, false);
        mode_ = Mode::kInColumnGroup;
        return true;
      case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT: case GUMBO_TAG_THEAD:
        ClearStackBackTo({GUMBO_TAG_TABLE});
        Push(tag, t.hidden);
        mode_ = Mode::kInTableBody;
        return false;
      case GUMBO_TAG_TD: case GUMBO_TAG_TH: case GUMBO_TAG_TR:
        ClearStackBackTo({GUMBO_TAG_TABLE});
        Push(GUMBO_TAG_TBODY, false);
        mode_ = Mode::kInTableBody;
        return true;
      case GUMBO_TAG_STYLE:
        RawTextElement(t, RawText::kRawText);
        return false;
      case GUMBO_TAG_SCRIPT:
        RawTextElement(t, RawText::kScript);
        return false;
      default:
        Bail();  // inserted before the table (foster parenting)
        return false;
    }
  }
  switch (tag) {
    case GUMBO_TAG_TABLE:
      if (!InTableScope(GUMBO_TAG_TABLE)) return false;
      while (!stack_.empty()) {
        const bool table = Current() == GUMBO_TAG_TABLE;
        Pop();
        if (table) break;
      }
      ResetMode();
      return false;
    case GUMBO_TAG_BODY: case GUMBO_TAG_CAPTION: case GUMBO_TAG_COL: case GUMBO_TAG_COLGROUP:
    case GUMBO_TAG_HTML: case GUMBO_TAG_TBODY: case GUMBO_TAG_TD: case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TH: case GUMBO_TAG_THEAD: case GUMBO_TAG_TR:
      return false;
    default:
      Bail();
      return false;
  }
}

bool FastParser::InTableBody(const TagToken& t) {
  const GumboTag tag = t.tag;
  const std::initializer_list<GumboTag> kBodyContext = {GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT,
                                                        GUMBO_TAG_THEAD};
  if (t.start && tag == GUMBO_TAG_TR) {
    ClearStackBackTo(kBodyContext);
    Push(tag, t.hidden);
    mode_ = Mode::kInRow;
    return false;
  }
  if (t.start && (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH)) {
    ClearStackBackTo(kBodyContext);
    Push(GUMBO_TAG_TR, false);
    mode_ = Mode::kInRow;
    return true;
  }
  if (!t.start && TagIn(tag, kBodyContext)) {
    if (!InTableScope(tag)) return false;
    ClearStackBackTo(kBodyContext);
    Pop();
    mode_ = Mode::kInTable;
    return false;
  }
  if ((t.start && TagIn(tag, {GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP,
                              GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD})) ||
      (!t.start && tag == GUMBO_TAG_TABLE)) {
    if (!InTableScope(GUMBO_TAG_TBODY) && !InTableScope(GUMBO_TAG_THEAD) &&
        !InTableScope(GUMBO_TAG_TFOOT)) {
      return false;
    }
    ClearStackBackTo(kBodyContext);
    Pop();
    mode_ = Mode::kInTable;
    return true;
  }
  if (!t.start && TagIn(tag, {GUMBO_TAG_BODY, GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_TR,
                              GUMBO_TAG_COLGROUP, GUMBO_TAG_HTML, GUMBO_TAG_TD, GUMBO_TAG_TH})) {
    return false;
  }
  return InTable(t);
}

bool FastParser::InRow(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (t.start && (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH)) {
    ClearStackBackTo({GUMBO_TAG_TR});
    Push(tag, t.hidden);
    mode_ = Mode::kInCell;
    AddMarker();
    return false;
  }
  if (!t.start && tag == GUMBO_TAG_TR) {
    if (!InTableScope(GUMBO_TAG_TR)) return false;
    ClearStackBackTo({GUMBO_TAG_TR});
    Pop();
    mode_ = Mode::kInTableBody;
    return false;
  }
  if ((t.start && TagIn(tag, {GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP,
                              GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD, GUMBO_TAG_TR})) ||
      (!t.start && tag == GUMBO_TAG_TABLE)) {
    if (!InTableScope(GUMBO_TAG_TR)) return false;
    ClearStackBackTo({GUMBO_TAG_TR});
    Pop();
    mode_ = Mode::kInTableBody;
    return true;
  }
  if (!t.start && TagIn(tag, {GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD})) {
    if (!InTableScope(tag) || !InTableScope(GUMBO_TAG_TR)) return false;
    ClearStackBackTo({GUMBO_TAG_TR});
    Pop();
    mode_ = Mode::kInTableBody;
    return true;
  }
  if (!t.start && TagIn(tag, {GUMBO_TAG_BODY, GUMBO_TAG_CAPTION, GUMBO_TAG_COL,
                              GUMBO_TAG_COLGROUP, GUMBO_TAG_HTML, GUMBO_TAG_TD, GUMBO_TAG_TH})) {
    return false;
  }
  return InTable(t);
}

bool FastParser::InCell(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (!t.start && (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH)) {
    if (InTableScope(tag)) CloseCell(tag);
    return false;
  }
  if (t.start && TableStructure(tag)) {
    if (!InTableScope(GUMBO_TAG_TD) && !InTableScope(GUMBO_TAG_TH)) return false;
    CloseCell(InTableScope(GUMBO_TAG_TD) ? GUMBO_TAG_TD : GUMBO_TAG_TH);
    return true;
  }
  if (!t.start && TagIn(tag, {GUMBO_TAG_BODY, GUMBO_TAG_CAPTION, GUMBO_TAG_COL,
                              GUMBO_TAG_COLGROUP, GUMBO_TAG_HTML})) {
    return false;
  }
  if (!t.start && TagIn(tag, {GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT,
                              GUMBO_TAG_THEAD, GUMBO_TAG_TR})) {
    if (!InTableScope(tag)) return false;
    CloseCell(InTableScope(GUMBO_TAG_TD) ? GUMBO_TAG_TD : GUMBO_TAG_TH);
    return true;
  }
  return t.start ? InBodyStart(t) : InBodyEnd(t);
}

bool FastParser::InCaption(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (!t.start && tag == GUMBO_TAG_CAPTION) {
    if (!InTableScope(GUMBO_TAG_CAPTION)) return false;
    GenerateImpliedEndTags(GUMBO_TAG_LAST);
    while (!stack_.empty()) {
      const bool caption = Current() == GUMBO_TAG_CAPTION;
      Pop();
      if (caption) break;
    }
    ClearToMarker();
    mode_ = Mode::kInTable;
    return false;
  }
  if ((t.start && TableStructure(tag)) || (!t.start && tag == GUMBO_TAG_TABLE)) {
    if (!InTableScope(GUMBO_TAG_CAPTION)) return false;
    while (!stack_.empty()) {
      const bool caption = Current() == GUMBO_TAG_CAPTION;
      Pop();
      if (caption) break;
    }
    ClearToMarker();
    mode_ = Mode::kInTable;
    return true;
  }
  if (!t.start && TagIn(tag, {GUMBO_TAG_BODY, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_HTML,
                              GUMBO_TAG_TBODY, GUMBO_TAG_TD, GUMBO_TAG_TFOOT, GUMBO_TAG_TH,
                              GUMBO_TAG_THEAD, GUMBO_TAG_TR})) {
    return false;
  }
  return t.start ? InBodyStart(t) : InBodyEnd(t);
}

bool FastParser::InColumnGroup(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (t.start && tag == GUMBO_TAG_COL) {
    Push(tag, t.hidden);
    Pop();
    return false;
  }
  if (!t.start && tag == GUMBO_TAG_COLGROUP) {
    if (Current() != GUMBO_TAG_COLGROUP) return false;
    Pop();
    mode_ = Mode::kInTable;
    return false;
  }
  if (!t.start && tag == GUMBO_TAG_COL) return false;
  if (tag == GUMBO_TAG_HTML || tag == GUMBO_TAG_TEMPLATE) {
    Bail();
    return false;
  }
  if (Current() != GUMBO_TAG_COLGROUP) return false;
  Pop();
  mode_ = Mode::kInTable;
  return true;
}

void FastParser::Eof() {
  Flush();
  while (!stack_.empty()) Pop();
  out_.Finish();
}

}  // namespace

std::optional<PageText> FastPageText(std::string_view html) {
  if (!PlainInput(html)) return std::nullopt;
  PageText out;
  // The text is never longer than the page (no reference is shorter than
  // what it stands for); most pages hold a text node every few dozen bytes.
  out.text.reserve(html.size());
  out.segments.reserve(html.size() / 32);
  FastParser parser(html, out);
  if (!parser.Run()) return std::nullopt;
  return out;
}

absl::Span<const NamedReference> FastNamedReferences() { return SortedReferences(); }

}  // namespace raw::raven::web
