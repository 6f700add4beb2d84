#include "daemon/raven/web/fast_parser.h"

namespace raw::raven::web::html {

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
  if (foreign_open_ > 0) return ForeignCharacters(text, offset, from_reference);
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
      case Mode::kInHeadNoscript:
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
        } else if (mode_ == Mode::kInHeadNoscript) {
          Pop();
          mode_ = Mode::kInHead;
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
      case Mode::kInSelect:
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

void FastParser::Push(GumboTag tag, bool hidden, bool flush, Namespace ns, std::string_view name) {
  if (flush) Flush();
  const bool parent_suppressed = !stack_.empty() && stack_.back().suppressed;
  const bool parent_pre = !stack_.empty() && stack_.back().pre;
  // Scope checks walk the stack: past kMaxDepth the parse would turn
  // quadratic, and such a page is refused (ExtractPageText).
  if (stack_.size() >= kMaxDepth) return Bail();
  const uint8_t walk = walk_[tag];
  Element e{tag, next_id_++, parent_suppressed || (walk & kDropped) != 0 || hidden,
            parent_pre || (walk & kPre) != 0, ns, name};
  if (ns != Namespace::kHtml) ++foreign_open_;
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
  if (e.ns != Namespace::kHtml) --foreign_open_;
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

void FastParser::PopThrough(GumboTag tag) {
  while (!stack_.empty()) {
    const bool last = Current() == tag;
    Pop();
    if (last) return;
  }
}

void FastParser::ImplicitlyClose(GumboTag tag) {
  GenerateImpliedEndTags(tag);
  PopThrough(tag);
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
  PopThrough(cell);
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

}  // namespace raw::raven::web::html
