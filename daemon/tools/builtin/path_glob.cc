#include "daemon/tools/builtin/path_glob.h"
#include "daemon/tools/builtin/string_view_bridge.h"

#include <fnmatch.h>

#include <functional>

#include "absl/strings/str_cat.h"

namespace raw::tools::builtin {
namespace {

constexpr size_t kMaxAlternatives = 256;

// Index of the '}' closing the '{' at `open`, or npos.
size_t MatchingBrace(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '{') {
      ++depth;
    } else if (s[i] == '}' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// Appends the expansions of `s` to `out`.
absl::Status ExpandBraces(std::string_view s, std::vector<std::string>& out) {
  size_t open = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '{') {
      open = i;
      break;
    } else if (s[i] == '}') {
      return absl::InvalidArgumentError(
          absl::StrCat("unbalanced '}' in pattern \"", ToAbsl(s), "\" (write \\} for a literal brace)"));
    }
  }
  if (open == std::string_view::npos) {
    out.emplace_back(s);
    return absl::OkStatus();
  }
  size_t close = MatchingBrace(s, open);
  if (close == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("unbalanced '{' in pattern \"", ToAbsl(s), "\" (write \\{ for a literal brace)"));
  }
  // Split the inside at top-level commas.
  std::vector<std::string_view> options;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i < close; ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '{') {
      ++depth;
    } else if (s[i] == '}') {
      --depth;
    } else if (s[i] == ',' && depth == 0) {
      options.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  options.push_back(s.substr(start, close - start));
  std::string_view head = s.substr(0, open);
  std::string_view tail = s.substr(close + 1);
  for (std::string_view option : options) {
    absl::Status st = ExpandBraces(absl::StrCat(ToAbsl(head), ToAbsl(option), ToAbsl(tail)), out);
    if (!st.ok()) return st;
    if (out.size() > kMaxAlternatives) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pattern \"", ToAbsl(s), "\" expands to more than ", kMaxAlternatives, " alternatives"));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> Segments(std::string_view pattern) {
  std::vector<std::string> segments;
  for (std::string_view s : SplitPath(pattern)) segments.emplace_back(s);
  return segments;
}

}  // namespace

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    // Empty segments ("a//b", leading or trailing '/') and "." carry nothing.
    std::string_view part = path.substr(start, slash - start);
    if (!part.empty() && part != ".") parts.push_back(part);
    start = slash + 1;
  }
  return parts;
}

bool MatchSegments(const std::vector<std::string>& pattern,
                   const std::vector<std::string_view>& path, bool prefix) {
  const size_t np = pattern.size();
  const size_t ns = path.size();
  // memo[pi * (ns + 1) + si]: 0 unknown, 1 false, 2 true.
  std::vector<char> memo((np + 1) * (ns + 1), 0);
  std::string segment;
  std::function<bool(size_t, size_t)> match = [&](size_t pi, size_t si) -> bool {
    char& slot = memo[pi * (ns + 1) + si];
    if (slot != 0) return slot == 2;
    bool result = false;
    if (si == ns) {
      // The path is used up: for a full match so must the pattern be; for a
      // prefix, some pattern must be left for what lies below.
      result = prefix ? pi < np : pi == np;
    } else if (pi == np) {
      result = false;
    } else if (pattern[pi] == "**") {
      // Zero segments (not for a trailing "**"), or one more and stay, or
      // one more and move on.
      result = (pi + 1 < np && match(pi + 1, si)) || match(pi, si + 1) || match(pi + 1, si + 1);
    } else {
      segment.assign(path[si]);
      result = fnmatch(pattern[pi].c_str(), segment.c_str(), 0) == 0 && match(pi + 1, si + 1);
    }
    slot = result ? 2 : 1;
    return result;
  };
  return match(0, 0);
}

absl::StatusOr<PathGlob> PathGlob::Compile(std::string_view pattern) {
  if (pattern.empty()) return absl::InvalidArgumentError("the pattern is empty");
  std::vector<std::string> expanded;
  if (absl::Status s = ExpandBraces(pattern, expanded); !s.ok()) return s;
  PathGlob glob;
  glob.text_ = std::string(pattern);
  for (const std::string& alternative : expanded) {
    glob.alternatives_.push_back(Segments(alternative));
  }
  return glob;
}

bool PathGlob::Matches(std::string_view path) const {
  std::vector<std::string_view> parts = SplitPath(path);
  for (const auto& segments : alternatives_) {
    if (MatchSegments(segments, parts, /*prefix=*/false)) return true;
  }
  return false;
}

bool PathGlob::CouldMatchInside(std::string_view dir) const {
  std::vector<std::string_view> parts = SplitPath(dir);
  for (const auto& segments : alternatives_) {
    if (MatchSegments(segments, parts, /*prefix=*/true)) return true;
  }
  return false;
}

bool HasGlobMeta(std::string_view text) {
  return text.find_first_of("*?[{\\") != std::string_view::npos;
}

}  // namespace raw::tools::builtin
