#include "daemon/raven/artifact_urls.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"

namespace raw::raven::artifact_urls {
namespace {

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(std::string(s)); }

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

}  // namespace

// `s` as a renderer or a browser may decode it for a link: numeric
// character references with any number of digits, with or without ';' (a
// browser decodes "&#00000058" in an attribute), the named ones that spell
// URL punctuation or white space, and, when `escapes`, a backslash before
// ASCII punctuation as a Markdown escape. Only ASCII results are decoded.
std::string Decoded(std::string_view s, bool escapes) {
  static constexpr std::pair<std::string_view, char> kNamed[] = {
      {"&colon;", ':'},    {"&sol;", '/'},  {"&bsol;", '\\'},  {"&period;", '.'}, {"&Tab;", '\t'},
      {"&NewLine;", '\n'}, {"&amp;", '&'},  {"&quest;", '?'},  {"&num;", '#'},    {"&commat;", '@'},
      {"&lpar;", '('},     {"&rpar;", ')'}, {"&lt;", '<'},     {"&gt;", '>'},     {"&quot;", '"'},
      {"&apos;", '\''},    {"&excl;", '!'}, {"&percnt;", '%'}, {"&equals;", '='}, {"&semi;", ';'},
      {"&comma;", ','},    {"&plus;", '+'}, {"&lowbar;", '_'}, {"&grave;", '`'}};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (escapes && c == '\\' && i + 1 < s.size() && absl::ascii_ispunct(s[i + 1])) {
      out.push_back(s[i + 1]);
      i += 2;
      continue;
    }
    if (c == '&' && i + 2 < s.size() && s[i + 1] == '#') {
      bool hex = s[i + 2] == 'x' || s[i + 2] == 'X';
      size_t j = i + (hex ? 3 : 2);
      uint32_t code = 0;
      size_t digits = 0;
      while (j < s.size() && (hex ? absl::ascii_isxdigit(s[j]) : absl::ascii_isdigit(s[j]))) {
        char d = absl::ascii_tolower(s[j]);
        if (code <= 0x10FFFF) {
          code = code * (hex ? 16 : 10) + (absl::ascii_isdigit(d) ? d - '0' : d - 'a' + 10);
        }
        ++j;
        ++digits;
      }
      if (digits > 0 && code > 0 && code < 0x80) {
        out.push_back(static_cast<char>(code));
        i = j < s.size() && s[j] == ';' ? j + 1 : j;
        continue;
      }
    }
    if (c == '&') {
      auto named = std::find_if(std::begin(kNamed), std::end(kNamed),
                                [&](const auto& n) { return s.substr(i).starts_with(n.first); });
      if (named != std::end(kNamed)) {
        out.push_back(named->second);
        i += named->first.size();
        continue;
      }
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

// `s` with CSS escapes decoded, as a style attribute's url(...) reads it:
// a backslash and up to six hex digits (and one white space after them), or
// a backslash and any other character. Non-ASCII results become '?'.
std::string CssUnescaped(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i++]);
      continue;
    }
    size_t j = i + 1;
    uint32_t code = 0;
    while (j < s.size() && j - i <= 6 && absl::ascii_isxdigit(s[j])) {
      char d = absl::ascii_tolower(s[j++]);
      code = code * 16 + (absl::ascii_isdigit(d) ? d - '0' : d - 'a' + 10);
    }
    if (j > i + 1) {
      if (j + 1 < s.size() && s[j] == '\r' && s[j + 1] == '\n') {
        j += 2;
      } else if (j < s.size() && IsSpace(s[j])) {
        ++j;
      }
      out.push_back(code > 0 && code < 0x80 ? static_cast<char>(code) : '?');
      i = j;
    } else if (s[i + 1] == '\n') {
      i += 2;
    } else {
      out.push_back(s[i + 1]);
      i += 2;
    }
  }
  return out;
}

// The URL that starts at `at`: white space, '<', '>', ']' or '"' end it;
// trailing sentence punctuation is not part of it, nor a ')' that closes
// nothing inside it.
std::string UrlAt(std::string_view prose, size_t at) {
  size_t end = at;
  while (end < prose.size() && !absl::ascii_isspace(static_cast<unsigned char>(prose[end])) &&
         prose[end] != '<' && prose[end] != '>' && prose[end] != ']' && prose[end] != '"') {
    ++end;
  }
  std::string url(prose.substr(at, end - at));
  auto open = std::count(url.begin(), url.end(), '(');
  auto close = std::count(url.begin(), url.end(), ')');
  while (!url.empty()) {
    char last = url.back();
    bool unbalanced = last == ')' && close > open;
    if (std::string_view(",.;!?").find(last) == std::string_view::npos && !unbalanced) break;
    if (last == ')') --close;
    url.pop_back();
  }
  return url;
}

// `url` as a browser's URL parser reads it: tabs and line breaks removed, a
// backslash read as a slash.
std::string AsBrowserReads(std::string_view url) {
  std::string out;
  for (char c : url) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    out.push_back(c == '\\' ? '/' : c);
  }
  return out;
}

// The destination of an inline link or link reference definition whose
// text starts at `at` (after "](" or "]:"; white space, line breaks
// included, may come first), when a browser opens it on the web:
// scheme-relative ("//host/..."), or http(s) with any number of slashes.
// Returns where a reported destination ends, or `at` when none is.
size_t Destination(std::string_view prose, size_t at, std::vector<std::string>& out) {
  const size_t n = prose.size();
  size_t from = at;
  while (from < n && (IsSpace(prose[from]) || prose[from] == '"' || prose[from] == '\'')) ++from;
  bool angle = from < n && prose[from] == '<';
  if (angle) ++from;
  auto stops = [&](char c) { return angle ? c == '>' || c == '\n' : IsSpace(c); };
  // The first characters a browser reads: leading white space and control
  // characters, tabs and line breaks dropped, a backslash read as a slash.
  std::string head;
  size_t i = from;
  for (; i < n && head.size() < 6 && !stops(prose[i]); ++i) {
    char c = prose[i];
    if (c == '\t' || c == '\n' || c == '\r' ||
        (head.empty() && static_cast<unsigned char>(c) <= ' ')) {
      continue;
    }
    head.push_back(absl::ascii_tolower(c == '\\' ? '/' : c));
  }
  if (!head.starts_with("//") && !head.starts_with("http:") && !head.starts_with("https:"))
    return at;
  while (i < n && !stops(prose[i])) ++i;
  std::string dest = AsBrowserReads(prose.substr(from, i - from));
  size_t lead = 0;
  while (lead < dest.size() && static_cast<unsigned char>(dest[lead]) <= ' ') ++lead;
  out.push_back(UrlAt(dest, lead));
  return i;
}

// The links a Markdown renderer makes from `prose` (already Decoded): every
// http(s) URL, whatever the case of its scheme ("HTTPS://" opens a link as
// "https://" does), every "www." a GFM renderer links as an extended
// autolink, and every destination of an inline link or a link reference
// definition that a browser opens on the web (Destination).
void TextUrls(std::string_view prose, std::vector<std::string>& out) {
  const std::string lower = Lower(prose);
  std::vector<std::pair<size_t, size_t>> found;  // the bare URLs, in order
  for (size_t i = 0; i < lower.size();) {
    size_t a = lower.find("http://", i), b = lower.find("https://", i);
    size_t at = std::min(a, b);
    if (at == std::string::npos) break;
    std::string url = UrlAt(prose, at);
    out.push_back(url);
    found.emplace_back(at, at + url.size());
    i = at + std::max<size_t>(url.size(), 1);
  }
  size_t next = 0, covered = 0;
  for (size_t i = 0; (i = lower.find("www.", i)) != std::string::npos; i += 4) {
    while (next < found.size() && found[next].second <= i) ++next;
    if (i < covered || (next < found.size() && found[next].first <= i)) continue;
    if (i > 0 && absl::ascii_isalnum(lower[i - 1])) continue;
    if (i + 4 >= lower.size() ||
        !(absl::ascii_isalnum(lower[i + 4]) || lower[i + 4] == '-' || lower[i + 4] == '_')) {
      continue;
    }
    std::string url = UrlAt(prose, i);
    out.push_back(url);
    covered = i + url.size();
  }
  covered = 0;
  for (size_t i = 0; (i = prose.find(']', i)) != std::string_view::npos; ++i) {
    if (i + 1 < prose.size() && (prose[i + 1] == '(' || prose[i + 1] == ':') && i + 2 >= covered) {
      covered = std::max(covered, Destination(prose, i + 2, out));
    }
  }
}

// Every URL-like substring of `html`, raw HTML or text that may be read as
// it, wherever it stands (an attribute value of any name, a srcset
// candidate, a url(...) in a style, a meta refresh): an http(s) scheme in
// any case with any number of slashes, a scheme-relative "//" and "www.",
// after character references and CSS escapes are decoded and a backslash is
// read as a slash. With `joined`, tabs and line breaks are removed first,
// as a browser removes them from an attribute's URL; otherwise they end a
// URL.
void RawHtmlUrls(std::string_view html, bool joined, std::vector<std::string>& out) {
  std::string decoded = Decoded(html, /*escapes=*/false);
  for (const std::string& variant : {decoded, CssUnescaped(decoded)}) {
    std::string v;
    for (char c : variant) {
      if (joined && (c == '\t' || c == '\n' || c == '\r')) continue;
      v.push_back(c == '\\' ? '/' : c);
    }
    const std::string lower = Lower(v);
    size_t covered = 0;
    for (size_t i = 0; i < lower.size(); ++i) {
      std::string_view rest = std::string_view(lower).substr(i);
      bool scheme = rest.starts_with("http:") || rest.starts_with("https:");
      if (!scheme && (i < covered || !(rest.starts_with("//") || rest.starts_with("www.")))) {
        continue;
      }
      std::string url = UrlAt(v, i);
      if (url.empty()) continue;
      out.push_back(url);
      covered = i + url.size();
      i = covered - 1;
    }
  }
}

}  // namespace raw::raven::artifact_urls
