#include "daemon/tools/policy/shell_words.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "common/utf8.h"
#include "daemon/tools/policy/environment_names.h"

namespace raw::tools::policy {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}


bool IsNameChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string DecodeAnsiC(std::string_view body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'a':
        out += '\a';
        continue;
      case 'b':
        out += '\b';
        continue;
      case 'e':
      case 'E':
        out += '\x1b';
        continue;
      case 'f':
        out += '\f';
        continue;
      case 'n':
        out += '\n';
        continue;
      case 'r':
        out += '\r';
        continue;
      case 't':
        out += '\t';
        continue;
      case 'v':
        out += '\v';
        continue;
      case '\\':
      case '\'':
      case '"':
      case '?':
        out += e;
        continue;
      case 'c':
        if (i + 1 < body.size()) {
          // As bash: \c? is DEL, \c\\ takes both backslashes.
          const char c = body[++i];
          if (c == '\\' && i + 1 < body.size() && body[i + 1] == '\\') ++i;
          out += c == '?' ? '\x7f' : static_cast<char>(absl::ascii_toupper(c) & 0x1F);
          continue;
        }
        break;
      default:
        break;
    }
    if (e >= '0' && e <= '7') {
      int value = 0;
      size_t end = i;
      while (end < body.size() && end < i + 3 && body[end] >= '0' && body[end] <= '7') {
        value = value * 8 + (body[end++] - '0');
      }
      out += static_cast<char>(value & 0xFF);
      i = end - 1;
      continue;
    }
    size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
    if (digits > 0 && i + 1 < body.size() && HexDigit(body[i + 1]) >= 0) {
      uint32_t value = 0;
      size_t end = i + 1;
      while (end < body.size() && end <= i + digits && HexDigit(body[end]) >= 0) {
        value = value * 16 + static_cast<uint32_t>(HexDigit(body[end++]));
      }
      if (e == 'x') {
        out += static_cast<char>(value);
      } else {
        AppendUtf8(static_cast<char32_t>(value), out);
      }
      i = end - 1;
      continue;
    }
    out += '\\';  // an unknown escape stays as written
    out += e;
  }
  // Bash keeps a string in C strings: its value ends at the first NUL that
  // an escape produced (\0, \x00, \c@, \u0000, …), so `r$'\0x'm` is `rm`.
  if (size_t nul = out.find('\0'); nul != std::string::npos) out.resize(nul);
  return out;
}

bool IsConstantArithmetic(std::string_view expression) {
  for (char c : expression) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) &&
        std::string_view(" \t\n+-*/%()<>=!&|^~?:,").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

const char* HiddenInParameter(std::string_view text) {
  if (text.size() < 3) return nullptr;
  std::string_view body = text.substr(2, text.size() - 3);      // without "${" and "}"
  if (body.size() > 1 && body[0] == '!') return kHiddenInName;  // ${!name}: indirection
  if (body.size() > 1 && body[0] == '#') body.remove_prefix(1);
  size_t name = 0;
  while (name < body.size() && IsNameChar(body[name])) ++name;
  if (name == 0 && !body.empty()) name = 1;  // a special parameter: $@, $?, …
  std::string_view rest = body.substr(name);
  if (rest.starts_with("[")) {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return kHiddenInArithmetic;
    std::string_view subscript = rest.substr(1, close - 1);
    if (subscript != "@" && subscript != "*" && !IsConstantArithmetic(subscript)) {
      return kHiddenInArithmetic;
    }
    rest = rest.substr(close + 1);
  }
  // ${name:offset:length}, not ${name:-word} and the like.
  if (rest.size() > 1 && rest[0] == ':' &&
      std::string_view("-=+?").find(rest[1]) == std::string_view::npos &&
      !IsConstantArithmetic(rest.substr(1))) {
    return kHiddenInArithmetic;
  }
  if (rest.starts_with("@P")) return kHiddenInPrompt;
  // ${NAME=word} and ${NAME:=word} assign NAME (exported under `set -a`).
  if ((rest.starts_with("=") || rest.starts_with(":=")) && ChangesWhatRuns(body.substr(0, name))) {
    return kAssignedInExpansion;
  }
  return nullptr;
}

Redirection ClassifyRedirection(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 && text.starts_with("{")) {  // {varname}>file
    size_t close = text.find('}');
    if (close != std::string_view::npos && IsVariableName(text.substr(1, close - 1))) i = close + 1;
  }
  std::string_view rest = text.substr(i);
  for (std::string_view op : {"<<<", "&>>", ">>", "<&", ">&", "<>", ">|", "&>", "<", ">"}) {
    if (!rest.starts_with(op)) continue;
    if (i > 0 && op[0] == '&') return Redirection::kNone;  // "2&>x" is not one operator
    std::string_view target = rest.substr(op.size());
    if (target.starts_with("(")) return Redirection::kNone;  // process substitution
    return target.empty() ? Redirection::kOperator : Redirection::kComplete;
  }
  return Redirection::kNone;
}

std::optional<std::string_view> WrittenFile(std::string_view redirection) {
  size_t i = 0;
  while (i < redirection.size() && absl::ascii_isdigit(static_cast<unsigned char>(redirection[i]))) {
    ++i;
  }
  if (i == 0 && redirection.starts_with("{")) {  // {varname}>file
    size_t close = redirection.find('}');
    if (close != std::string_view::npos) i = close + 1;
  }
  std::string_view rest = redirection.substr(i);
  for (std::string_view op : {"&>>", ">>", ">|", "<>", "&>", ">&", ">"}) {
    if (!rest.starts_with(op)) continue;
    std::string_view target = rest.substr(op.size());
    if (op == ">&") {  // ">&2", ">&-", ">&2-": duplicating or closing a descriptor
      std::string_view digits = target;
      if (digits.ends_with("-")) digits.remove_suffix(1);
      bool descriptor = true;
      for (char c : digits) descriptor = descriptor && absl::ascii_isdigit(static_cast<unsigned char>(c));
      if (descriptor) return std::nullopt;
    }
    return target;
  }
  return std::nullopt;
}

bool IsRedirectionPrefix(std::string_view text) {
  if (text.empty()) return false;
  bool digits_allowed = true;
  if (text.starts_with("{")) {  // {varname}>file
    size_t close = text.find('}');
    if (close == std::string_view::npos || !IsVariableName(text.substr(1, close - 1))) {
      return false;
    }
    text.remove_prefix(close + 1);
    digits_allowed = false;
  }
  for (char c : text) {
    if (!(digits_allowed && absl::ascii_isdigit(static_cast<unsigned char>(c))) &&
        std::string_view("<>&|").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool IsVariableName(std::string_view text) {
  if (text.empty() || absl::ascii_isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

namespace {

// Splits an assignment into its name and subscript; false if it is none.
bool ParseAssignment(std::string_view text, std::string_view& name, std::string_view& subscript) {
  size_t i = 0;
  while (i < text.size() && IsNameChar(text[i])) ++i;
  name = text.substr(0, i);
  if (!IsVariableName(name)) return false;
  subscript = {};
  if (i < text.size() && text[i] == '[') {
    size_t close = text.find(']', i);
    if (close == std::string_view::npos) return false;
    subscript = text.substr(i + 1, close - i - 1);
    i = close + 1;
  }
  if (i < text.size() && text[i] == '+') ++i;
  return i < text.size() && text[i] == '=';
}

}  // namespace

bool IsAssignment(std::string_view text) {
  std::string_view name, subscript;
  return ParseAssignment(text, name, subscript);
}

const char* HiddenInAssignment(std::string_view text) {
  std::string_view name, subscript;
  if (!ParseAssignment(text, name, subscript)) return nullptr;
  if (name == "PS4") return kHiddenInPrompt;  // expanded by `set -x`
  if (!IsConstantArithmetic(subscript)) return kHiddenInArithmetic;
  return nullptr;
}

}  // namespace raw::tools::policy
