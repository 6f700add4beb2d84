#include "common/star_glob.h"

namespace raw {

bool StarGlobMatch(std::string_view pattern, std::string_view name) {
  size_t p = 0;
  size_t n = 0;
  size_t star = std::string_view::npos;
  size_t resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool StarGlobMayMatchPrefix(std::string_view pattern, std::string_view prefix) {
  // Some string prefix+X matches the pattern iff a leading part of the
  // pattern matches the prefix exactly (the rest can always match some X),
  // or a leading part ending in '*' does (the star spans the boundary, which
  // the same test covers since '*' also matches the empty string).
  for (size_t k = 0; k <= pattern.size(); ++k) {
    if (StarGlobMatch(pattern.substr(0, k), prefix)) return true;
  }
  return false;
}

}  // namespace raw
