#include "daemon/raven/web/html_tags.h"

#include "daemon/raven/web/page_text_rules.h"

namespace raw::raven::web::html {
namespace {

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

}  // namespace

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

}  // namespace raw::raven::web::html
