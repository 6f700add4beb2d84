#include "daemon/raven/web/fetch_marks.h"

#include <cctype>

namespace raw::raven::web {
namespace {

bool IsSchemeChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
}

// The length of " (TARGET)" at `at` (which holds " ("), or 0 when what
// follows is not a link target as web_fetch writes it.
size_t LinkTargetLength(std::string_view s, size_t at) {
  size_t i = at + 2;
  const size_t scheme_begin = i;
  if (i >= s.size() || std::isalpha(static_cast<unsigned char>(s[i])) == 0) return 0;
  while (i < s.size() && IsSchemeChar(s[i])) ++i;
  if (i >= s.size() || s[i] != ':' || i == scheme_begin) return 0;
  int depth = 0;
  for (++i; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c) != 0) return 0;
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (depth == 0) return i + 1 - at;
      --depth;
    }
  }
  return 0;
}

// `line` without its leading indentation and list or heading marker.
std::string_view WithoutLineMarker(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  std::string_view rest = line.substr(i);
  if (rest.starts_with("- ")) return rest.substr(2);
  size_t hashes = 0;
  while (hashes < rest.size() && rest[hashes] == '#') ++hashes;
  if (hashes >= 1 && hashes <= 6 && hashes < rest.size() && rest[hashes] == ' ') {
    return rest.substr(hashes + 1);
  }
  return i > 0 ? rest : line;
}

void AppendLine(std::string_view line, std::string& out) {
  // Once no ']' follows, none follows later either: the line is read once.
  bool closed_later = true;
  for (size_t i = 0; i < line.size();) {
    if (line.substr(i).starts_with(" (")) {
      if (size_t n = LinkTargetLength(line, i); n > 0) {
        i += n;
        continue;
      }
    }
    if (closed_later && line.substr(i).starts_with("[image: ")) {
      if (size_t close = line.find(']', i); close != std::string_view::npos) {
        i = close + 1;
        continue;
      }
      closed_later = false;
    }
    if (line.substr(i).starts_with(" | ")) {
      out += ' ';
      i += 3;
      continue;
    }
    out += line[i++];
  }
}

}  // namespace

std::string WithoutFetchMarks(std::string_view excerpt) {
  std::string out;
  out.reserve(excerpt.size());
  size_t begin = 0;
  for (;;) {
    const size_t nl = excerpt.find('\n', begin);
    std::string_view line = excerpt.substr(begin, nl == std::string_view::npos ? nl : nl - begin);
    AppendLine(WithoutLineMarker(line), out);
    if (nl == std::string_view::npos) break;
    out += '\n';
    begin = nl + 1;
  }
  return out;
}

}  // namespace raw::raven::web
