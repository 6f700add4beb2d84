#include "daemon/mcp/tool_naming.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/star_glob.h"

namespace raw::mcp {
namespace {

constexpr size_t kMaxModelNameLength = 64;
constexpr size_t kHashSuffixLength = 9;  // "_" + 8 hex digits

bool IsModelNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// 32-bit FNV-1a: small, and the same on every platform and run.
uint32_t Fnv1a(const std::string& text) {
  uint32_t hash = 2166136261u;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return hash;
}

// True when "mcp__<server>__" can be read back unambiguously: the server
// part ends at the first "__" after "mcp__". Config allows only such names
// (config::AmbiguousServerName); others are hashed as a defence.
bool IsPlainServerPart(const std::string& server) {
  return !server.empty() && server.find("__") == std::string::npos && server.back() != '_' &&
         std::all_of(server.begin(), server.end(), IsModelNameChar);
}

}  // namespace

std::string QualifiedToolName(const std::string& server, const std::string& tool) {
  return absl::StrCat("mcp/", server, "/", tool);
}

std::string ModelFacingToolName(const std::string& server, const std::string& tool) {
  std::string name = absl::StrCat("mcp__", server, "__", tool);
  bool changed = !IsPlainServerPart(server);
  for (char& c : name) {
    if (!IsModelNameChar(c)) {
      c = '_';
      changed = true;
    }
  }
  if (!changed && name.size() <= kMaxModelNameLength) return name;
  name.resize(std::min(name.size(), kMaxModelNameLength - kHashSuffixLength));
  return absl::StrCat(name, absl::StrFormat("_%08x", Fnv1a(QualifiedToolName(server, tool))));
}

bool PatternMayMatchPrefix(const std::string& pattern, const std::string& prefix) {
  return StarGlobMayMatchPrefix(pattern, prefix);
}

}  // namespace raw::mcp
