#include "daemon/raven/web/fast_parser.h"

namespace raw::raven::web::html {

void FastParser::Process(const TagToken& t) {
  // Inside SVG or MathML the current node is foreign (HTML inside them is
  // left to gumbo, so no HTML element is ever opened above a foreign one).
  if (foreign_open_ > 0) return ForeignTag(t);
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
    case Mode::kInHeadNoscript:
      return InHeadNoscript(t);
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
    case Mode::kInSelect:
      return InSelect(t);
    case Mode::kAfterBody:
    case Mode::kAfterAfterBody:
      if (t.start && t.tag == GUMBO_TAG_HTML) return MergeAttributes(t);
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
      if (t.start && t.tag == GUMBO_TAG_HTML) return MergeAttributes(t);
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
          case GUMBO_TAG_HTML:
            return MergeAttributes(t);
          case GUMBO_TAG_FRAMESET: case GUMBO_TAG_TEMPLATE:
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

// An <html> or <body> start tag once that element exists: gumbo gives the
// element the tag's attributes it lacks. An attribute that hides hides on
// its own, so the text changes only when the tag's own attributes hide:
// then the page goes to gumbo; otherwise nothing happens.
bool FastParser::MergeAttributes(const TagToken& t) {
  if (t.hidden) Bail();
  return false;
}

bool FastParser::InHead(const TagToken& t) {
  if (t.start) {
    switch (t.tag) {
      case GUMBO_TAG_HTML:
        return MergeAttributes(t);
      case GUMBO_TAG_TEMPLATE:
        Bail();
        return false;
      case GUMBO_TAG_NOSCRIPT:  // scripting is off: its content is markup
        Push(t.tag, t.hidden);
        mode_ = Mode::kInHeadNoscript;
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

// A <noscript> in the head holds only what the head may hold.
bool FastParser::InHeadNoscript(const TagToken& t) {
  if (t.start) {
    switch (t.tag) {
      case GUMBO_TAG_HTML:
        return MergeAttributes(t);
      case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND: case GUMBO_TAG_LINK: case GUMBO_TAG_META:
      case GUMBO_TAG_NOFRAMES: case GUMBO_TAG_STYLE:
        return InHead(t);
      case GUMBO_TAG_HEAD: case GUMBO_TAG_NOSCRIPT:
        return false;
      default:
        break;
    }
  } else if (t.tag == GUMBO_TAG_NOSCRIPT) {
    Pop();
    mode_ = Mode::kInHead;
    return false;
  } else if (t.tag != GUMBO_TAG_BR) {
    return false;
  }
  Pop();
  mode_ = Mode::kInHead;
  return true;
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
      PopThrough(GUMBO_TAG_TABLE);
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
    PopThrough(GUMBO_TAG_CAPTION);
    ClearToMarker();
    mode_ = Mode::kInTable;
    return false;
  }
  if ((t.start && TableStructure(tag)) || (!t.start && tag == GUMBO_TAG_TABLE)) {
    if (!InTableScope(GUMBO_TAG_CAPTION)) return false;
    PopThrough(GUMBO_TAG_CAPTION);
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
  if (t.start && tag == GUMBO_TAG_HTML) return MergeAttributes(t);
  if (tag == GUMBO_TAG_TEMPLATE) {
    Bail();
    return false;
  }
  if (Current() != GUMBO_TAG_COLGROUP) return false;
  Pop();
  mode_ = Mode::kInTable;
  return true;
}

// A <select> outside tables; its content is dropped, so only where it ends
// matters.
bool FastParser::InSelect(const TagToken& t) {
  const GumboTag tag = t.tag;
  if (t.start) {
    switch (tag) {
      case GUMBO_TAG_OPTION:
        if (Current() == GUMBO_TAG_OPTION) Pop();
        Push(tag, t.hidden);
        return false;
      case GUMBO_TAG_OPTGROUP:
        if (Current() == GUMBO_TAG_OPTION) Pop();
        if (Current() == GUMBO_TAG_OPTGROUP) Pop();
        Push(tag, t.hidden);
        return false;
      case GUMBO_TAG_SELECT:
        if (InSelectScope()) CloseSelect();
        return false;
      case GUMBO_TAG_INPUT: case GUMBO_TAG_KEYGEN: case GUMBO_TAG_TEXTAREA:
        if (!InSelectScope()) return false;
        CloseSelect();
        return true;
      case GUMBO_TAG_SCRIPT:
        RawTextElement(t, RawText::kScript);
        return false;
      case GUMBO_TAG_HTML:
        return MergeAttributes(t);
      case GUMBO_TAG_TEMPLATE:
        Bail();
        return false;
      default:
        return false;  // ignored
    }
  }
  switch (tag) {
    case GUMBO_TAG_OPTGROUP:
      if (Current() == GUMBO_TAG_OPTION && stack_.size() >= 2 &&
          stack_[stack_.size() - 2].tag == GUMBO_TAG_OPTGROUP) {
        Pop();
      }
      if (Current() == GUMBO_TAG_OPTGROUP) Pop();
      return false;
    case GUMBO_TAG_OPTION:
      if (Current() == GUMBO_TAG_OPTION) Pop();
      return false;
    case GUMBO_TAG_SELECT:
      if (InSelectScope()) CloseSelect();
      return false;
    case GUMBO_TAG_TEMPLATE:
      Bail();
      return false;
    default:
      return false;  // ignored
  }
}

// "In select scope": only <option> and <optgroup> above the <select>.
bool FastParser::InSelectScope() const {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    if (it->tag == GUMBO_TAG_SELECT) return true;
    if (it->tag != GUMBO_TAG_OPTION && it->tag != GUMBO_TAG_OPTGROUP) return false;
  }
  return false;
}

void FastParser::CloseSelect() {
  PopThrough(GUMBO_TAG_SELECT);
  ResetMode();
}

void FastParser::Eof() {
  Flush();
  while (!stack_.empty()) Pop();
  out_.Finish();
}

}  // namespace raw::raven::web::html
