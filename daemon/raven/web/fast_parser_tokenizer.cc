#include "daemon/raven/web/fast_parser.h"

#include "common/utf8.h"
#include "daemon/raven/web/html_references.h"

namespace raw::raven::web::html {

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
    } else if (foreign_open_ > 0 && s_.substr(i + 2, 7) == "[CDATA[") {
      // A CDATA section, in SVG or MathML only: its text up to "]]>".
      ignore_lf_ = false;
      const size_t from = i + 9;
      const size_t end = s_.find("]]>", from);
      const size_t stop = end == std::string_view::npos ? n : end;
      if (stop > from) ForeignCharacters(s_.substr(from, stop - from), from, false);
      i = end == std::string_view::npos ? n : end + 3;
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
  token.name = s_.substr(name_begin, p - name_begin);
  token.tag = TagNamed(token.name, key);

  HidingAttributes hiding;
  enum { kNone, kAria, kStyle, kOther, kDroppedName } current = kNone;
  // Attribute names are lower-cased; a repeated name is dropped with its
  // value. As gumbo does, a repeated name without a value stays in its
  // buffer and prefixes the next name. Names are kept in one buffer.
  attribute_buffer_.clear();
  attribute_names_.clear();
  bool carrying = false;
  size_t carry_begin = 0;
  size_t attributes = 0;
  auto start_name = [&](size_t a, size_t b) {
    // Each name is compared with every earlier one, as gumbo does: past
    // kMaxAttributes the page is refused (page_text.h).
    if (++attributes > kMaxAttributes) return false;
    const size_t begin = carrying ? carry_begin : attribute_buffer_.size();
    for (size_t k = a; k < b; ++k) attribute_buffer_.push_back(Lower(s_[k]));
    const std::string_view name(attribute_buffer_.data() + begin, attribute_buffer_.size() - begin);
    for (const auto& [at, length] : attribute_names_) {
      if (std::string_view(attribute_buffer_.data() + at, length) == name) {
        carrying = true;
        carry_begin = begin;
        current = kDroppedName;
        return true;
      }
    }
    carrying = false;
    current = kOther;
    switch (name.size()) {
      case 4:
        token.font_attributes = token.font_attributes || name == "face" || name == "size";
        break;
      case 5:
        if (name == "color") {
          token.font_attributes = true;
        } else if (name == "style") {
          hiding.has_style = true;
          current = kStyle;
        }
        break;
      case 6:
        hiding.hidden = hiding.hidden || name == "hidden";
        break;
      case 11:
        if (name == "aria-hidden") {
          hiding.has_aria_hidden = true;
          current = kAria;
        }
        break;
      default:
        break;
    }
    attribute_names_.emplace_back(begin, name.size());
    return true;
  };
  auto set_value = [&](std::string_view v) {
    if (current == kDroppedName && carrying) {  // gumbo empties its buffer with the value
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
          token.end_text = s_.substr(name_begin, p - name_begin);
          token.hidden = (hiding.hidden || hiding.has_aria_hidden || hiding.has_style) && Hidden(hiding);
          return true;
        } else if (c == '=' && state == kAfterName) {
          ++p;
          state = kBeforeValue;
        } else {
          size_t a = p++;
          while (p < n && !IsSpace(s_[p]) && s_[p] != '/' && s_[p] != '=' && s_[p] != '>') ++p;
          if (!start_name(a, p)) return false;
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
          token.self_closing = true;
          i = p + 1;
          token.end_text = s_.substr(name_begin, p - name_begin);
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
    raw::AppendUtf8(NumericReferenceValue(static_cast<uint32_t>(v)), decoded);
    next = p;
    return Ref::kDecoded;
  }
  if (IsAlpha(c)) {
    size_t p = i + 1;
    while (p < n && IsAlnum(s_[p])) ++p;
    const NamedReference* ref =
        p < n && s_[p] == ';' ? FindNamedReference(s_.substr(i + 1, p - i - 1)) : nullptr;
    if (ref == nullptr) return Ref::kBail;  // a name outside the common set, or a legacy form
    raw::AppendUtf8(ref->code_point, decoded);
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

}  // namespace raw::raven::web::html
