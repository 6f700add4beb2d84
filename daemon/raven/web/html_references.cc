#include "daemon/raven/web/html_references.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

namespace raw::raven::web::html {
namespace {

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

}  // namespace

const NamedReference* FindNamedReference(std::string_view name) {
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


absl::Span<const NamedReference> NamedReferences() { return SortedReferences(); }

}  // namespace raw::raven::web::html
