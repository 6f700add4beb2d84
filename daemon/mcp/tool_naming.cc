#include "daemon/mcp/tool_naming.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/star_glob.h"
#include "common/utf8.h"

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

// Characters that show as blank or as nothing: Unicode's white space
// beyond ASCII, and the zero-width ones.
bool IsInvisible(char32_t c) {
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200D) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x2060 || c == 0x3000 || c == 0xFEFF;
}

// What is wrong with the character at `text[i]` (`len` bytes; 0 = not
// well-formed UTF-8), or null.
const char* CharacterProblem(std::string_view text, size_t i, size_t len) {
  if (len == 0) return "ill-formed UTF-8";
  const char32_t c = DecodeUtf8At(text, i, len);
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
    return "whitespace";
  }
  if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0)) return "a control character";
  if (IsInvisible(c)) return "whitespace or an invisible character";
  if (IsBidiFormatting(c)) return "a bidirectional formatting character";
  if (c == '*') return "'*'";
  if (c == '?') return "'?'";
  if (c == '\\') return "'\\'";
  return nullptr;
}

constexpr size_t kMaxEscapedNameBytes = 200;

}  // namespace

std::string ToolNameProblem(const std::string& tool) {
  for (size_t i = 0; i < tool.size();) {
    const size_t len = Utf8SequenceLength(tool, i);
    if (const char* problem = CharacterProblem(tool, i, len)) return problem;
    i += len;
  }
  return "";
}

std::string EscapedToolName(const std::string& tool) {
  std::string out;
  size_t i = 0;
  while (i < tool.size() && out.size() < kMaxEscapedNameBytes) {
    const size_t len = Utf8SequenceLength(tool, i);
    if (len == 0) {
      absl::StrAppend(&out, absl::StrFormat("\\x%02X", static_cast<unsigned char>(tool[i])));
      ++i;
      continue;
    }
    const char32_t c = DecodeUtf8At(tool, i, len);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == 0x7F) {
      absl::StrAppend(&out, absl::StrFormat("\\x%02X", static_cast<unsigned>(c)));
    } else if (c >= 0x80 && CharacterProblem(tool, i, len) != nullptr) {
      absl::StrAppend(&out, absl::StrFormat("\\u%04X", static_cast<unsigned>(c)));
    } else {
      out.append(tool, i, len);
    }
    i += len;
  }
  if (i < tool.size()) out += "…";
  return out;
}

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
