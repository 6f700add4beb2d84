#include "daemon/raven/artifact_scan.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>

#include "absl/strings/ascii.h"
#include "daemon/raven/domain.h"

namespace raw::raven {
namespace {

// A code fence line as CommonMark reads one: at most three spaces of
// indentation (four, or a tab, make indented text, not a fence), then a run
// of three or more backticks or tildes; a backtick fence's info string holds
// no backtick. Returns the run, or "" when `line` is not a fence.
std::string_view FenceRun(std::string_view line) {
  size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  if (indent > 3 || indent == line.size() || (line[indent] != '`' && line[indent] != '~')) {
    return "";
  }
  size_t run = indent;
  while (run < line.size() && line[run] == line[indent]) ++run;
  if (run - indent < 3) return "";
  if (line[indent] == '`' && line.find('`', run) != std::string_view::npos) return "";
  return line.substr(indent, run - indent);
}

// `line` closes a fence opened by `open`: a run of the same character at
// least as long, indented at most three spaces, followed only by spaces.
bool ClosesFence(std::string_view line, std::string_view open) {
  std::string_view run = FenceRun(line);
  if (run.empty() || run[0] != open[0] || run.size() < open.size()) return false;
  size_t after = static_cast<size_t>(run.data() - line.data()) + run.size();
  return line.find_first_not_of(" \t\r\n", after) == std::string_view::npos;
}

// `prose` as a Markdown renderer reads its characters: a backslash before
// ASCII punctuation escapes it, and numeric character references and the
// named ones that spell URL punctuation are decoded, so "https\://" and
// "https&#58;//" are scanned as the "https://" a reader's link opens.
std::string Decoded(std::string_view prose) {
  static constexpr std::pair<std::string_view, char> kNamed[] = {
      {"&colon;", ':'}, {"&sol;", '/'},    {"&period;", '.'}, {"&amp;", '&'}, {"&quest;", '?'},
      {"&num;", '#'},   {"&commat;", '@'}, {"&lpar;", '('},   {"&rpar;", ')'}};
  std::string out;
  for (size_t i = 0; i < prose.size();) {
    char c = prose[i];
    if (c == '\\' && i + 1 < prose.size() && absl::ascii_ispunct(prose[i + 1])) {
      out.push_back(prose[i + 1]);
      i += 2;
      continue;
    }
    if (c == '&' && i + 2 < prose.size() && prose[i + 1] == '#') {
      bool hex = prose[i + 2] == 'x' || prose[i + 2] == 'X';
      size_t j = i + (hex ? 3 : 2);
      uint32_t code = 0;
      size_t digits = 0;
      while (j < prose.size() && digits < 7 &&
             (hex ? absl::ascii_isxdigit(prose[j]) : absl::ascii_isdigit(prose[j]))) {
        char d = absl::ascii_tolower(prose[j]);
        code = code * (hex ? 16 : 10) + (absl::ascii_isdigit(d) ? d - '0' : d - 'a' + 10);
        ++j;
        ++digits;
      }
      if (digits > 0 && j < prose.size() && prose[j] == ';' && code > 0 && code < 0x80) {
        out.push_back(static_cast<char>(code));
        i = j + 1;
        continue;
      }
    }
    if (c == '&') {
      auto named = std::find_if(std::begin(kNamed), std::end(kNamed), [&](const auto& n) {
        return prose.substr(i).starts_with(n.first);
      });
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
  for (;;) {
    if (url.empty()) break;
    char last = url.back();
    bool unbalanced = last == ')' && std::count(url.begin(), url.end(), ')') >
                                         std::count(url.begin(), url.end(), '(');
    if (std::string_view(",.;!?").find(last) == std::string_view::npos && !unbalanced) break;
    url.pop_back();
  }
  return url;
}

// Every http(s) URL in `prose` (already Decoded), whatever the case of its
// scheme ("HTTPS://" opens a link as "https://" does), and every destination
// of an inline link, a link reference definition or an HTML href or src that
// a reader's browser opens on the web: scheme-relative ("//host/...") or
// http(s) with any number of slashes ("https:host/...").
std::vector<std::string> RawUrls(std::string_view prose) {
  std::vector<std::string> out;
  const std::string lower = absl::AsciiStrToLower(std::string(prose));
  for (size_t i = 0; i < lower.size();) {
    size_t a = lower.find("http://", i), b = lower.find("https://", i);
    size_t at = std::min(a, b);
    if (at == std::string::npos) break;
    std::string url = UrlAt(prose, at);
    out.push_back(url);
    i = at + std::max<size_t>(url.size(), 1);
  }
  auto destination = [&](size_t at) {
    while (at < prose.size() && (prose[at] == ' ' || prose[at] == '\t' || prose[at] == '<' ||
                                 prose[at] == '"' || prose[at] == '\'')) {
      ++at;
    }
    std::string_view rest = std::string_view(lower).substr(at);
    if (rest.starts_with("//") || rest.starts_with("http:") || rest.starts_with("https:")) {
      out.push_back(UrlAt(prose, at));
    }
  };
  for (size_t i = 0; (i = prose.find("](", i)) != std::string_view::npos; i += 2)
    destination(i + 2);
  for (size_t i = 0; (i = prose.find("]:", i)) != std::string_view::npos; i += 2)
    destination(i + 2);
  for (std::string_view attr : {"href=", "src="}) {
    for (size_t i = 0; (i = lower.find(attr, i)) != std::string::npos; i += attr.size()) {
      destination(i + attr.size());
    }
  }
  return out;
}

}  // namespace

std::vector<Part> SplitCode(std::string_view text) {
  std::vector<Part> parts;
  std::string fence;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, end - pos);
    if (!fence.empty()) {
      parts.push_back({line, true});
      if (ClosesFence(line, fence)) fence.clear();
    } else if (std::string_view open = FenceRun(line); !open.empty()) {
      fence = std::string(open);
      parts.push_back({line, true});
    } else {
      // Inline code spans: a backtick run closed by a run of equal length.
      size_t i = 0, prose = 0;
      while (i < line.size()) {
        if (line[i] != '`') {
          ++i;
          continue;
        }
        // A backslash-escaped backtick is a literal one and opens nothing.
        size_t slashes = 0;
        while (slashes < i && line[i - 1 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 1) {
          ++i;
          continue;
        }
        size_t run = 0;
        while (i + run < line.size() && line[i + run] == '`') ++run;
        size_t close = i + run;
        while ((close = line.find('`', close)) != std::string_view::npos) {
          size_t len = 0;
          while (close + len < line.size() && line[close + len] == '`') ++len;
          if (len == run) break;
          close += len;
        }
        if (close == std::string_view::npos) {
          i += run;
          continue;
        }
        parts.push_back({line.substr(prose, i - prose), false});
        parts.push_back({line.substr(i, close + run - i), true});
        i = prose = close + run;
      }
      parts.push_back({line.substr(prose), false});
    }
    pos = end;
  }
  return parts;
}

std::vector<Token> Tokens(std::string_view prose) {
  std::vector<Token> out;
  size_t i = 0;
  while ((i = prose.find("[@", i)) != std::string_view::npos) {
    size_t close = prose.find(']', i + 2);
    if (close == std::string_view::npos) break;
    std::string id(prose.substr(i + 2, close - i - 2));
    if (ValidId(id)) {
      out.push_back({i, close + 1, id});
      i = close + 1;
    } else {
      i += 2;
    }
  }
  return out;
}

std::vector<std::string> LinkedUrls(std::string_view prose) { return RawUrls(Decoded(prose)); }

}  // namespace raw::raven
