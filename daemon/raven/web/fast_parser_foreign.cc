// SVG and MathML inside an HTML page (gumbo's "in foreign content" rules).
// The walk drops both subtrees, so what matters is only where they end:
// foreign elements open and close by name, a self-closing tag closes at
// once, and CDATA sections are text. HTML processed inside them (the HTML
// start tags that break out of foreign content, integration points such as
// <foreignObject> holding markup, an end tag that matches no foreign
// element) is left to gumbo.
#include "daemon/raven/web/fast_parser.h"

namespace raw::raven::web::html {

void FastParser::OpenForeign(const TagToken& t, Namespace ns) {
  Reconstruct();
  Push(t.tag, t.hidden, /*flush=*/true, ns, t.name);
  if (t.self_closing) Pop();
}

// gumbo's integration points: where text, and start tags, are HTML again.
bool FastParser::IntegrationPoint() const {
  const Element& e = stack_.back();
  if (e.ns == Namespace::kSvg) {
    return e.tag == GUMBO_TAG_FOREIGNOBJECT || e.tag == GUMBO_TAG_DESC || e.tag == GUMBO_TAG_TITLE;
  }
  return e.ns == Namespace::kMathMl &&
         TagIn(e.tag, {GUMBO_TAG_MI, GUMBO_TAG_MO, GUMBO_TAG_MN, GUMBO_TAG_MS, GUMBO_TAG_MTEXT,
                       GUMBO_TAG_ANNOTATION_XML});
}

void FastParser::ForeignTag(const TagToken& t) {
  if (t.start) {
    const bool breaks_out =
        TagIn(t.tag, {GUMBO_TAG_B, GUMBO_TAG_BIG, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_BODY,
                      GUMBO_TAG_BR, GUMBO_TAG_CENTER, GUMBO_TAG_CODE, GUMBO_TAG_DD, GUMBO_TAG_DIV,
                      GUMBO_TAG_DL, GUMBO_TAG_DT, GUMBO_TAG_EM, GUMBO_TAG_EMBED, GUMBO_TAG_H1,
                      GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6,
                      GUMBO_TAG_HEAD, GUMBO_TAG_HR, GUMBO_TAG_I, GUMBO_TAG_IMG, GUMBO_TAG_LI,
                      GUMBO_TAG_LISTING, GUMBO_TAG_MENU, GUMBO_TAG_META, GUMBO_TAG_NOBR,
                      GUMBO_TAG_OL, GUMBO_TAG_P, GUMBO_TAG_PRE, GUMBO_TAG_RUBY, GUMBO_TAG_S,
                      GUMBO_TAG_SMALL, GUMBO_TAG_SPAN, GUMBO_TAG_STRONG, GUMBO_TAG_STRIKE,
                      GUMBO_TAG_SUB, GUMBO_TAG_SUP, GUMBO_TAG_TABLE, GUMBO_TAG_TT, GUMBO_TAG_U,
                      GUMBO_TAG_UL, GUMBO_TAG_VAR}) ||
        (t.tag == GUMBO_TAG_FONT && t.font_attributes);
    if (breaks_out || IntegrationPoint()) return Bail();
    Push(t.tag, t.hidden, /*flush=*/true, stack_.back().ns, t.name);
    if (t.self_closing) Pop();
    return;
  }
  // An end tag closes the nearest foreign element of its name (compared
  // without case), and everything opened inside it. gumbo takes an end
  // tag's name to be all its text, so `</g >` closes no <g>.
  for (size_t k = stack_.size(); k-- > 0 && stack_[k].ns != Namespace::kHtml;) {
    if (EqualsIgnoreCase(stack_[k].name, t.end_text)) {
      while (stack_.size() > k) Pop();
      return;
    }
  }
  Bail();  // it would reach the HTML elements around
}

void FastParser::ForeignCharacters(std::string_view text, size_t offset, bool from_reference) {
  if (IntegrationPoint()) {
    // Text there is HTML: gumbo reconstructs the formatting elements first.
    if (!formatting_.empty() && formatting_.back().tag != GUMBO_TAG_LAST &&
        !IsOpen(formatting_.back().id)) {
      return Bail();
    }
  }
  AppendPending(text, offset, from_reference);
}

}  // namespace raw::raven::web::html
