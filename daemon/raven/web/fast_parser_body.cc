#include "daemon/raven/web/fast_parser.h"

namespace raw::raven::web::html {

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
    case GUMBO_TAG_HTML: case GUMBO_TAG_BODY:
      return MergeAttributes(t);
    case GUMBO_TAG_FRAMESET: case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_APPLET: case GUMBO_TAG_MARQUEE:
    case GUMBO_TAG_OBJECT: case GUMBO_TAG_IMAGE: case GUMBO_TAG_ISINDEX:
    case GUMBO_TAG_RB: case GUMBO_TAG_RP: case GUMBO_TAG_RT: case GUMBO_TAG_RTC:
      Bail();
      return false;
    case GUMBO_TAG_SVG:
      OpenForeign(t, Namespace::kSvg);
      return false;
    case GUMBO_TAG_SELECT:
      // Inside a table cell or caption gumbo has its own mode for it.
      if (mode_ != Mode::kInBody) {
        Bail();
        return false;
      }
      Reconstruct();
      Push(tag, t.hidden);
      mode_ = Mode::kInSelect;
      return false;
    case GUMBO_TAG_MATH:
      OpenForeign(t, Namespace::kMathMl);
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

}  // namespace raw::raven::web::html
