#include "daemon/tools/policy/hidden_evaluation.h"

#include <string_view>

#include "absl/strings/ascii.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

constexpr char kCallback[] = "\"mapfile -C\" runs text as a command";
constexpr char kHashedPath[] = "\"hash -p\" makes a command name run the program at another path";
constexpr char kLoadedBuiltin[] = "\"enable -f\" loads a builtin from a file";
constexpr char kFunction[] =
    "the command line defines a function, which changes what a command name runs";
constexpr char kAlias[] =
    "the command line defines an alias, which changes what a command name runs";

// A variable name bash takes as is: written plainly, without quotes,
// expansions or a subscript.
bool IsPlainName(const ShellWord& word) { return word.literal && IsVariableName(word.text); }

// `NAME` or `NAME=…` / `NAME+=…` with a plain name (the value may be anything).
bool IsPlainDeclaration(const ShellWord& word) {
  std::string_view text = word.text;
  size_t eq = text.find('=');
  std::string_view name = text.substr(0, eq);
  if (eq != std::string_view::npos && name.ends_with("+")) name.remove_suffix(1);
  return IsVariableName(name) && (eq != std::string_view::npos || word.literal);
}

// An operand of an arithmetic comparison whose value is surely an integer.
bool IsInteger(const ShellWord& word) {
  std::string_view v = word.value;
  if (word.literal) {
    if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
    if (v.empty()) return false;
    for (char c : v) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  }
  for (std::string_view special : {"$#", "$?", "$$", "$!"}) {
    if (v == special) return true;
  }
  return false;
}

bool IsOption(const ShellWord& word) {
  return word.value.size() > 1 && (word.value[0] == '-' || word.value[0] == '+');
}

// Options of a builtin, then the names it sets: `valued` options take a
// value (attached or the next word), `naming` ones take a variable name.
// Returns why a name may hide commands, or null; adds the plain names it
// sets to `assigned` when given.
const char* CheckNames(const std::vector<ShellWord>& words, std::string_view valued,
                       std::string_view naming, bool operands_are_names,
                       std::vector<std::string>* assigned = nullptr) {
  auto assign = [&](std::string_view name) {
    if (assigned != nullptr) assigned->emplace_back(name);
  };
  size_t i = 1;
  for (; i < words.size() && IsOption(words[i]) && words[i].value != "--"; ++i) {
    std::string_view v = words[i].value;
    for (size_t j = 1; j < v.size(); ++j) {
      bool names = naming.find(v[j]) != std::string_view::npos;
      if (!names && valued.find(v[j]) == std::string_view::npos) continue;
      if (j + 1 == v.size() && ++i < words.size() && names) {
        if (!IsPlainName(words[i])) return kHiddenInName;
        assign(words[i].value);
      }
      if (j + 1 < v.size() && names) {
        if (!IsVariableName(v.substr(j + 1))) return kHiddenInName;
        assign(v.substr(j + 1));
      }
      break;
    }
  }
  if (i < words.size() && words[i].value == "--") ++i;
  for (; operands_are_names && i < words.size(); ++i) {
    if (!IsPlainName(words[i])) return kHiddenInName;
    assign(words[i].value);
  }
  return nullptr;
}

// `hash` or `enable` with an option word holding `letter` ("-p", "-rp",
// "-p/bin/sh"; later words may be option values or names, which only makes
// this stricter) or a word only known when the line runs, which may be one.
bool HasOption(const std::vector<ShellWord>& words, char letter) {
  for (size_t i = 1; i < words.size(); ++i) {
    if (!words[i].literal) return true;
    if (words[i].value == "--") return false;
    if (IsOption(words[i]) && words[i].value.find(letter) != std::string::npos) return true;
  }
  return false;
}

// `set` and `shopt -o` turning on keyword mode (-k, -o keyword), or with an
// option only known when the line runs.
bool MayTurnOnKeywordMode(const std::vector<ShellWord>& words) {
  std::string_view name = words[0].value;
  if (name == "shopt") {
    for (size_t i = 1; i < words.size(); ++i) {
      if (!words[i].literal || words[i].value == "keyword") return true;
    }
    return false;
  }
  for (size_t i = 1; i < words.size(); ++i) {
    if (!words[i].literal) return true;
    std::string_view v = words[i].value;
    if (v == "--" || v == "-" || v.size() < 2 || (v[0] != '-' && v[0] != '+')) return false;
    for (char c : v.substr(1)) {
      if (c == 'k' && v[0] == '-') return true;
      if (c != 'o') continue;
      ++i;  // each -o takes the next word as an option name
      if (v[0] == '-' && i < words.size() && (!words[i].literal || words[i].value == "keyword")) {
        return true;
      }
    }
  }
  return false;
}

const char* CheckTest(const std::vector<ShellWord>& words, bool double_bracket) {
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view v = words[i].value;
    if ((v == "-v" || v == "-R") && i + 1 < words.size() && !IsPlainName(words[i + 1])) {
      return kHiddenInName;
    }
    bool arithmetic =
        v == "-eq" || v == "-ne" || v == "-lt" || v == "-le" || v == "-gt" || v == "-ge";
    if (double_bracket && arithmetic &&
        !(IsInteger(words[i - 1]) && i + 1 < words.size() && IsInteger(words[i + 1]))) {
      return kHiddenInArithmetic;
    }
  }
  return nullptr;
}

}  // namespace

const char* HiddenEvaluation(const std::vector<ShellWord>& words) {
  if (words.empty() || !words[0].literal) return nullptr;
  // Only an unquoted `function` is the reserved word ("function ls" with
  // its body on the next line; "f() {" cannot be split at all).
  if (words[0].text == "function") return kFunction;
  std::string_view name = words[0].value;
  if (name == "let") return kHiddenInArithmetic;
  if (name == "hash" && HasOption(words, 'p')) return kHashedPath;
  if (name == "enable" && HasOption(words, 'f')) return kLoadedBuiltin;
  // Aliases are expanded once `shopt -s expand_aliases` or `set -o posix`
  // ran; `alias ls=rm` then makes a later `ls x` run `rm x`. Listing one
  // (`alias`, `alias ll`) is read as usual.
  if (name == "alias") {
    for (size_t i = 1; i < words.size(); ++i) {
      if (!words[i].literal || words[i].value.find('=') != std::string::npos) return kAlias;
    }
    return nullptr;
  }
  if (name == "declare" || name == "typeset" || name == "local" || name == "readonly" ||
      name == "export") {
    for (size_t i = 1; i < words.size(); ++i) {
      const ShellWord& word = words[i];
      if (IsOption(word) && word.value != "--") {
        // -i evaluates every later value as arithmetic; -n makes a reference.
        if (word.value.find_first_of("in") != std::string::npos) return kHiddenInName;
        continue;
      }
      if (word.value == "--") continue;
      if (!IsPlainDeclaration(word)) return kHiddenInName;
      if (const char* why = HiddenInAssignment(word.text)) return why;
    }
    return nullptr;
  }
  if (name == "read") return CheckNames(words, "dinNptu", "a", true);
  if (name == "unset") return CheckNames(words, "", "", true);
  if (name == "printf") return CheckNames(words, "", "v", false);
  if (name == "wait") return CheckNames(words, "", "p", false);
  if (name == "mapfile" || name == "readarray") {
    for (const ShellWord& word : words) {
      if (IsOption(word) && word.value.find('C') != std::string::npos) return kCallback;
    }
    return CheckNames(words, "dnOsuc", "", true);
  }
  if (name == "getopts") {
    return words.size() > 2 && !IsPlainName(words[2]) ? kHiddenInName : nullptr;
  }
  if (name == "test" || name == "[") return CheckTest(words, false);
  if (name == "[[") return CheckTest(words, true);
  if ((name == "set" || name == "shopt") && MayTurnOnKeywordMode(words)) return kKeywordMode;
  return nullptr;
}

std::vector<std::string> AssignedNames(const std::vector<ShellWord>& words) {
  std::vector<std::string> names;
  if (words.empty() || !words[0].literal) return names;
  std::string_view name = words[0].value;
  if (name == "read") {
    CheckNames(words, "dinNptu", "a", true, &names);
  } else if (name == "printf") {
    CheckNames(words, "", "v", false, &names);
  } else if (name == "wait") {
    CheckNames(words, "", "p", false, &names);
  } else if (name == "mapfile" || name == "readarray") {
    CheckNames(words, "dnOsuCc", "", true, &names);
  } else if (name == "getopts" && words.size() > 2 && IsPlainName(words[2])) {
    names.push_back(words[2].value);
  } else if ((name == "for" || name == "select" || name == "coproc") && words.size() > 1 &&
             IsPlainName(words[1])) {
    names.push_back(words[1].value);
  }
  return names;
}

}  // namespace raw::tools::policy
