#include "common/html_scan.h"

#include <cstdint>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "common/utf8.h"

namespace raw {
namespace {

absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }

bool IsVoid(std::string_view name) {
  for (std::string_view v : {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                             "meta", "param", "source", "track", "wbr", "keygen", "frame"}) {
    if (name == v) return true;
  }
  return false;
}

// Elements a sibling (or a parent's end) closes without an end tag.
bool IsImplicitlyClosed(std::string_view name) {
  for (std::string_view v : {"p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th",
                             "tbody", "thead", "tfoot", "rb", "rt", "rp", "rtc", "colgroup",
                             "caption", "html", "head", "body"}) {
    if (name == v) return true;
  }
  return false;
}

// Elements whose content is raw text, never markup.
bool IsRawText(std::string_view name) {
  return name == "script" || name == "style" || name == "textarea" || name == "title" ||
         name == "xmp" || name == "noembed" || name == "noframes" || name == "iframe";
}

bool IsBlock(std::string_view name) {
  for (std::string_view v : {"p", "div", "br", "li", "tr", "ul", "ol", "table", "section",
                             "article", "header", "footer", "pre", "blockquote", "h1", "h2",
                             "h3", "h4", "h5", "h6", "hr", "dt", "dd", "nav", "main", "aside"}) {
    if (name == v) return true;
  }
  return false;
}

// One tag at html[pos] == '<'.
struct Tag {
  enum class Kind { kNone, kStart, kEnd, kComment, kOther } kind = Kind::kNone;
  std::string name;  // lower case
  bool self_closing = false;
  size_t end = 0;  // just past the tag (or the comment)
};

Tag ReadTag(std::string_view html, size_t pos) {
  Tag tag;
  const size_t n = html.size();
  if (html.substr(pos, 4) == "<!--") {
    size_t close = html.find("-->", pos + 4);
    tag.kind = Tag::Kind::kComment;
    tag.end = close == std::string_view::npos ? n : close + 3;
    return tag;
  }
  size_t i = pos + 1;
  if (i < n && (html[i] == '!' || html[i] == '?')) {
    size_t close = html.find('>', i);
    tag.kind = Tag::Kind::kOther;
    tag.end = close == std::string_view::npos ? n : close + 1;
    return tag;
  }
  bool closing = i < n && html[i] == '/';
  if (closing) ++i;
  size_t name_start = i;
  while (i < n && (absl::ascii_isalnum(static_cast<unsigned char>(html[i])) || html[i] == '-' ||
                   html[i] == ':')) {
    ++i;
  }
  if (i == name_start || !absl::ascii_isalpha(static_cast<unsigned char>(html[name_start]))) {
    tag.end = pos + 1;  // a stray '<' in text
    return tag;
  }
  tag.name = absl::AsciiStrToLower(ToAbsl(html.substr(name_start, i - name_start)));
  // Skip attributes, honouring quotes.
  char quote = 0;
  for (; i < n; ++i) {
    char c = html[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      break;
    }
  }
  tag.kind = closing ? Tag::Kind::kEnd : Tag::Kind::kStart;
  tag.self_closing = i < n && i > pos && html[i - 1] == '/';
  tag.end = i < n ? i + 1 : n;
  return tag;
}

// Where the raw text of element `name` that starts at `pos` ends: at its
// end tag (case-insensitive), or the end of the input.
size_t SkipRawText(std::string_view html, size_t pos, const std::string& name) {
  for (size_t i = html.find("</", pos); i != std::string_view::npos; i = html.find("</", i + 2)) {
    if (absl::EqualsIgnoreCase(ToAbsl(html.substr(i + 2, name.size())), name)) {
      size_t gt = html.find('>', i);
      return gt == std::string_view::npos ? html.size() : gt + 1;
    }
  }
  return html.size();
}

// Appends the UTF-8 encoding of code point `cp`; NUL, surrogates and values
// past U+10FFFF become U+FFFD.
void AppendCodePoint(std::string& out, uint32_t cp) {
  if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  AppendUtf8(static_cast<char32_t>(cp), out);
}

// Decodes the entity at text[pos] == '&' into `out`; returns the position
// after it (pos + 1 with '&' appended when it is not one we know).
size_t DecodeEntity(std::string_view text, size_t pos, std::string& out) {
  // Entities are short: look for the ';' nearby only, keeping this linear.
  size_t semi = text.substr(pos, 12).find(';');
  if (semi == std::string_view::npos) {
    out += '&';
    return pos + 1;
  }
  semi += pos;
  std::string_view name = text.substr(pos + 1, semi - pos - 1);
  if (!name.empty() && name[0] == '#') {
    bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
    std::string digits(name.substr(hex ? 2 : 1));
    char* end = nullptr;
    unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
    if (!digits.empty() && end != nullptr && *end == '\0') {
      AppendCodePoint(out, static_cast<uint32_t>(cp));
      return semi + 1;
    }
  }
  struct Named {
    std::string_view name;
    std::string_view text;
  };
  for (const Named& entity : {Named{"amp", "&"}, Named{"lt", "<"}, Named{"gt", ">"},
                              Named{"quot", "\""}, Named{"apos", "'"}, Named{"nbsp", " "}}) {
    if (name == entity.name) {
      out.append(entity.text);
      return semi + 1;
    }
  }
  out += '&';
  return pos + 1;
}

}  // namespace

bool HasTagWithMoreAttributes(std::string_view html, size_t limit) {
  const size_t n = html.size();
  for (size_t i = html.find('<'); i != std::string_view::npos && i < n; i = html.find('<', i)) {
    if (html.substr(i, 4) == "<!--") {
      const size_t close = html.find("-->", i + 4);
      if (close == std::string_view::npos) return false;
      i = close + 3;
      continue;
    }
    size_t p = i + 1;
    if (p < n && html[p] == '/') ++p;
    if (p >= n || !absl::ascii_isalpha(static_cast<unsigned char>(html[p]))) {
      i = p;
      continue;
    }
    const size_t name_start = p;
    while (p < n && !absl::ascii_isspace(static_cast<unsigned char>(html[p])) && html[p] != '>' &&
           html[p] != '/') {
      ++p;
    }
    const std::string name = absl::AsciiStrToLower(ToAbsl(html.substr(name_start, p - name_start)));
    size_t count = 0;
    bool in_word = false;
    char quote = 0;
    for (; p < n; ++p) {
      const char c = html[p];
      if (quote != 0) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '>') break;
      if (c == '"' || c == '\'') {
        quote = c;
      } else if (absl::ascii_isspace(static_cast<unsigned char>(c)) || c == '/') {
        in_word = false;
      } else if (!in_word) {
        in_word = true;
        if (++count > limit) return true;
      }
    }
    i = p < n ? p + 1 : n;
    if (IsRawText(name) && html[name_start - 1] != '/') i = SkipRawText(html, i, name);
  }
  return false;
}

bool ExceedsNestingDepth(std::string_view html, size_t limit) {
  std::vector<std::string> open;
  std::unordered_map<std::string, size_t> open_count;  // so stray end tags cost O(1)
  size_t foreign = 0;  // open <svg>/<math>: self-closing tags count there
  size_t pos = html.find('<');
  while (pos != std::string_view::npos) {
    Tag tag = ReadTag(html, pos);
    size_t next = tag.end;
    if (tag.kind == Tag::Kind::kStart) {
      if (IsRawText(tag.name)) {
        next = SkipRawText(html, tag.end, tag.name);
      } else if (!IsVoid(tag.name) && !IsImplicitlyClosed(tag.name) &&
                 !(tag.self_closing && foreign > 0)) {
        if (tag.name == "svg" || tag.name == "math") ++foreign;
        ++open_count[tag.name];
        open.push_back(std::move(tag.name));
        if (open.size() > limit) return true;
      }
    } else if (tag.kind == Tag::Kind::kEnd && open_count[tag.name] > 0) {
      // Close the innermost open element of that name, and all inside it.
      while (!open.empty()) {
        std::string name = std::move(open.back());
        open.pop_back();
        --open_count[name];
        if (name == "svg" || name == "math") --foreign;
        if (name == tag.name) break;
      }
    }
    pos = html.find('<', next);
  }
  return false;
}

std::string StripTags(std::string_view html) {
  std::string raw;
  size_t pos = 0;
  while (pos < html.size()) {
    size_t lt = html.find('<', pos);
    std::string_view text = html.substr(pos, lt == std::string_view::npos ? lt : lt - pos);
    for (size_t i = 0; i < text.size();) {
      if (text[i] == '&') {
        i = DecodeEntity(text, i, raw);
      } else {
        raw += text[i++];
      }
    }
    if (lt == std::string_view::npos) break;
    Tag tag = ReadTag(html, lt);
    pos = tag.end;
    if (tag.kind == Tag::Kind::kNone) {
      raw += '<';
    } else if (tag.kind == Tag::Kind::kStart && IsRawText(tag.name)) {
      pos = SkipRawText(html, tag.end, tag.name);
    } else if ((tag.kind == Tag::Kind::kStart || tag.kind == Tag::Kind::kEnd) &&
               IsBlock(tag.name)) {
      raw += '\n';
    }
  }
  // Collapse runs of spaces, trim lines, keep at most one blank line.
  std::string out;
  bool space = false;
  int newlines = 0;
  for (char c : raw) {
    if (c == '\n') {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      if (!out.empty() && newlines < 2) out += '\n';
      ++newlines;
      space = false;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      space = true;
    } else {
      if (space && !out.empty() && out.back() != '\n') out += ' ';
      space = false;
      newlines = 0;
      out += c;
    }
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace raw
