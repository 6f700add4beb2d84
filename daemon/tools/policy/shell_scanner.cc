#include "daemon/tools/policy/shell_scanner.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

bool IsShellBlank(char c) { return c == ' ' || c == '\t'; }

// The operator `text` (a word as written) is still being written, after its
// file descriptor ("2>" -> ">", "{fd}<&" -> "<&", "2" -> ""); nullopt when
// `text` cannot grow into a redirection operator: it is quoted or escaped
// ("\\>"), or its operator already has a target ("2>&1").
std::optional<std::string_view> OperatorInProgress(std::string_view text) {
  if (!IsRedirectionPrefix(text)) return std::nullopt;
  size_t i = 0;
  if (text.starts_with("{")) {
    i = text.find('}') + 1;
  } else {
    while (i < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  std::string_view op = text.substr(i);
  if (std::any_of(op.begin(), op.end(),
                  [](char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  return op;
}

}  // namespace

absl::Status ShellScanner::Unterminated(const std::string& what, size_t open_at) const {
  return absl::InvalidArgumentError(
      absl::StrCat("unterminated ", what, " (opened at offset ", open_at, ")"));
}

absl::Status ShellScanner::CheckDepth(int depth) {
  work_.deepest = std::max(work_.deepest, depth);
  if (depth <= kMaxShellNesting) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("command nests more than ", kMaxShellNesting, " levels deep"));
}

void ShellScanner::Hidden(const char* why) {
  if (std::find(line_.hidden.begin(), line_.hidden.end(), why) == line_.hidden.end()) {
    line_.hidden.push_back(why);
  }
}

absl::Status ShellScanner::Spend(size_t steps) {
  work_.used += steps;
  if (work_.used <= work_.limit) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "command too complex to judge: reading it takes more than ", work_.limit, " steps"));
}

void ShellScanner::Literal(WordBuilder& w, char c) {
  w.word.value += c;
  if ((w.after_dollar && (c == '(' || c == '{')) || c == '`') Hidden(kHiddenInQuotes);
  w.after_dollar = c == '$';
}

void ShellScanner::Expansion(WordBuilder& w, size_t start) {
  w.word.text += in_.substr(start, pos_ - start);
  w.word.value += in_.substr(start, pos_ - start);
  w.word.literal = false;
  w.after_dollar = false;
}

absl::Status ShellScanner::ScanWord(WordBuilder& w, int depth) {
  std::string& text = w.word.text;
  bool bracket = false, brace = false, brace_list = false;  // for globs and {a,b}
  while (pos_ < in_.size()) {
    RETURN_IF_ERROR(Spend(1));
    char c = in_[pos_];
    // Only an operator as bash reads it grows: an escaped or quoted '>' is
    // text, so in "\\>|" and "\\>&" the '|' and '&' separate commands.
    const std::optional<std::string_view> op = OperatorInProgress(text);
    if (c == '|' && op == ">") {  // ">|" (clobber) redirects
      text += c;
      Literal(w, c);
      ++pos_;
      continue;
    }
    if (IsShellBlank(c) || c == '\n' || c == ';' || c == '|' || c == '(' || c == ')') break;
    // A redirection operator starts a word of its own ("a>b" is "a" ">b",
    // "2>&1>f" is "2>&1" ">f"), unless what precedes it is the file
    // descriptor ("2>&1") or the operator so far (">>").
    bool redirects = ((c == '<' || c == '>') && !At(1, '(')) || (c == '&' && At(1, '>'));
    if (redirects && !text.empty() && !op) break;
    if (c == '&') {
      // ">&2" and "<&0" are redirections, not the background operator; so
      // is "&>file", which takes no descriptor: "2&>f" is "2" then "&>f".
      bool redirect = op == ">" || op == "<" || (text.empty() && At(1, '>'));
      if (!redirect) break;
      text += c;
      Literal(w, c);
      ++pos_;
    } else if (c == '\\') {
      if (At(1, '\n')) {
        continuations_.insert(pos_);
        pos_ += 2;
      } else {
        text += in_.substr(pos_, pos_ + 1 < in_.size() ? 2 : 1);
        Literal(w, pos_ + 1 < in_.size() ? in_[pos_ + 1] : '\\');
        pos_ = std::min(pos_ + 2, in_.size());
      }
    } else if (c == '\'') {
      RETURN_IF_ERROR(ScanSingleQuoted(w));
    } else if (c == '"') {
      RETURN_IF_ERROR(ScanDoubleQuoted(w, depth));
    } else if (c == '`') {
      RETURN_IF_ERROR(ScanBackticks(w, depth, false));
    } else if (c == '$') {
      RETURN_IF_ERROR(ScanDollar(w, depth, false));
    } else if ((c == '<' || c == '>') && At(1, '(')) {
      RETURN_IF_ERROR(ScanSubstitution(w, depth, "process substitution"));
    } else if (c == '<' && At(1, '<') && !At(2, '<')) {
      // The body of a here-document is not a command, but telling it apart
      // needs the following lines; refuse rather than guess.
      return absl::InvalidArgumentError(
          absl::StrCat("here-documents (<<) are not supported (at offset ", pos_, ")"));
    } else if (c == '<' && At(1, '<')) {
      text += "<<<";  // a here-string is an ordinary word
      w.word.value += "<<<";
      pos_ += 3;
    } else {
      if (c == '*' || c == '?' || (c == ']' && bracket) || (c == '}' && brace_list)) {
        w.word.literal = false;  // pathname or brace expansion
      }
      bracket = bracket || c == '[';
      brace = brace || c == '{';
      brace_list =
          brace && (brace_list || c == ',' || (c == '.' && !text.empty() && text.back() == '.'));
      text += c;
      Literal(w, c);
      ++pos_;
    }
  }
  return absl::OkStatus();
}

absl::Status ShellScanner::ScanSingleQuoted(WordBuilder& w) {
  size_t end = in_.find('\'', pos_ + 1);
  if (end == std::string_view::npos) return Unterminated("single quote", pos_);
  RETURN_IF_ERROR(Spend(end - pos_));
  kept_spans_.emplace_back(pos_, end);
  w.word.text += in_.substr(pos_, end + 1 - pos_);
  for (char c : in_.substr(pos_ + 1, end - pos_ - 1)) Literal(w, c);
  pos_ = end + 1;
  return absl::OkStatus();
}

absl::Status ShellScanner::ScanAnsiC(WordBuilder& w) {
  size_t open_at = pos_;
  size_t i = pos_ + 2;
  while (i < in_.size() && in_[i] != '\'') i += in_[i] == '\\' ? 2 : 1;
  if (i >= in_.size()) return Unterminated("quote \"$'\"", open_at);
  RETURN_IF_ERROR(Spend(i - pos_));
  kept_spans_.emplace_back(pos_ + 1, i);
  w.word.text += in_.substr(pos_, i + 1 - pos_);
  for (char c : DecodeAnsiC(in_.substr(pos_ + 2, i - pos_ - 2))) Literal(w, c);
  pos_ = i + 1;
  return absl::OkStatus();
}

absl::Status ShellScanner::ScanDoubleQuoted(WordBuilder& w, int depth) {
  RETURN_IF_ERROR(CheckDepth(depth));
  size_t open_at = pos_;
  w.word.text += '"';
  ++pos_;
  while (pos_ < in_.size()) {
    RETURN_IF_ERROR(Spend(1));
    char c = in_[pos_];
    if (c == '"') {
      w.word.text += '"';
      ++pos_;
      return absl::OkStatus();
    }
    if (c == '\\' && pos_ + 1 < in_.size()) {
      char next = in_[pos_ + 1];
      if (next == '\n') continuations_.insert(pos_);
      w.word.text += in_.substr(pos_, 2);
      if (next != '$' && next != '`' && next != '"' && next != '\\' && next != '\n') Literal(w, c);
      if (next != '\n') Literal(w, next);
      pos_ += 2;
    } else if (c == '$') {
      RETURN_IF_ERROR(ScanDollar(w, depth, true));
    } else if (c == '`') {
      RETURN_IF_ERROR(ScanBackticks(w, depth, true));
    } else {
      w.word.text += c;
      Literal(w, c);
      ++pos_;
    }
  }
  return Unterminated("double quote", open_at);
}

absl::Status ShellScanner::ScanDollar(WordBuilder& w, int depth, bool in_dquote) {
  if (At(1, '(') && At(2, '(')) return ScanArithmetic(w, depth);
  if (At(1, '(')) return ScanSubstitution(w, depth, "command substitution \"$(\"");
  if (At(1, '{')) return ScanParameter(w, depth, in_dquote);
  if (!in_dquote && At(1, '\'')) return ScanAnsiC(w);
  size_t start = pos_++;
  if (At(0, '[')) Hidden(kHiddenInArithmetic);     // $[ … ], the old arithmetic
  if (At(0, '[') || (!in_dquote && At(0, '"'))) {  // $"…" is translated
    Expansion(w, start);
    return absl::OkStatus();
  }
  size_t end = pos_;
  while (end < in_.size() &&
         (absl::ascii_isalnum(static_cast<unsigned char>(in_[end])) || in_[end] == '_')) {
    if (end == pos_ && absl::ascii_isdigit(static_cast<unsigned char>(in_[end]))) {
      ++end;  // $0 … $9 are one digit
      break;
    }
    ++end;
  }
  if (end == pos_ && pos_ < in_.size() &&
      std::string_view("@*#?$!-").find(in_[pos_]) != std::string_view::npos) {
    end = pos_ + 1;
  }
  if (end == pos_) {  // a '$' bash keeps
    w.word.text += '$';
    Literal(w, '$');
    return absl::OkStatus();
  }
  pos_ = end;
  Expansion(w, start);
  return absl::OkStatus();
}

absl::Status ShellScanner::ScanSubstitution(WordBuilder& w, int depth, const std::string& what) {
  size_t start = pos_;
  pos_ += 2;  // "$(", "<(" or ">("
  RETURN_IF_ERROR(ParseList(')', depth + 1, what, start));
  Expansion(w, start);
  return absl::OkStatus();
}

absl::Status ShellScanner::ScanArithmetic(WordBuilder& w, int depth) {
  // "$(( … ))": an expression, but it may contain substitutions that run.
  // Like bash, text that does not close with "))" is a command substitution
  // whose command starts with a subshell: "$((cd a; make) | tee log)".
  RETURN_IF_ERROR(CheckDepth(depth));
  size_t start = pos_;
  if (open_arithmetic_.contains(start)) {
    return ScanSubstitution(w, depth, "command substitution \"$(\"");
  }
  size_t commands_before = line_.commands.size();
  size_t hidden_before = line_.hidden.size();
  pos_ += 3;
  int parens = 2;
  WordBuilder ignored;
  while (pos_ < in_.size()) {
    RETURN_IF_ERROR(Spend(1));
    char c = in_[pos_];
    if (c == '$' || c == '`') {
      RETURN_IF_ERROR(c == '$' ? ScanDollar(ignored, depth + 1, false)
                               : ScanBackticks(ignored, depth + 1, false));
      continue;
    }
    ++pos_;
    if (c == '(') ++parens;
    if (c != ')' || --parens > 1) continue;
    if (parens == 1 && !At(0, ')')) break;
    ++pos_;
    if (!IsConstantArithmetic(in_.substr(start + 3, pos_ - start - 5))) {
      Hidden(kHiddenInArithmetic);
    }
    Expansion(w, start);
    return absl::OkStatus();
  }
  open_arithmetic_.insert(start);
  pos_ = start;
  line_.commands.resize(commands_before);
  line_.hidden.resize(hidden_before);
  return ScanSubstitution(w, depth, "command substitution \"$(\"");
}

absl::Status ShellScanner::ScanParameter(WordBuilder& w, int depth, bool in_dquote) {
  // "${name…}": the operand after :- and the like may hold quotes and
  // substitutions that run. Even inside double quotes, bash reads '…' and
  // $'…' here as quotes while it looks for the closing '}': in
  // "${x#'"'}" the '"' does not end the double quotes.
  RETURN_IF_ERROR(CheckDepth(depth));
  size_t start = pos_;
  pos_ += 2;
  WordBuilder operand;  // its value shows text hidden in quotes
  while (pos_ < in_.size()) {
    RETURN_IF_ERROR(Spend(1));
    char c = in_[pos_];
    if (c == '}') {
      ++pos_;
      if (const char* why = HiddenInParameter(in_.substr(start, pos_ - start))) Hidden(why);
      Expansion(w, start);
      return absl::OkStatus();
    }
    absl::Status status = absl::OkStatus();
    if (c == '\\') {
      if (At(1, '\n')) {
        continuations_.insert(pos_);
      } else if (pos_ + 1 < in_.size()) {
        Literal(operand, in_[pos_ + 1]);
      }
      pos_ += 2;
    } else if (c == '\'' && in_dquote) {
      status = ScanQuotedInParameter(operand, depth);
    } else if (c == '\'') {
      status = ScanSingleQuoted(operand);
    } else if (c == '$' && At(1, '\'')) {
      status = ScanAnsiC(operand);
    } else if (c == '"') {
      status = ScanDoubleQuoted(operand, depth + 1);
    } else if (c == '$') {
      status = ScanDollar(operand, depth + 1, in_dquote);
    } else if (c == '`') {
      status = ScanBackticks(operand, depth + 1, in_dquote);
    } else {
      Literal(operand, c);
      ++pos_;
    }
    RETURN_IF_ERROR(status);
  }
  return Unterminated("parameter expansion \"${\"", start);
}

absl::Status ShellScanner::ScanQuotedInParameter(WordBuilder& w, int depth) {
  // Inside "${…}" bash finds the end of '…' as it would outside double
  // quotes (no escapes), but then expands what it holds as in double
  // quotes: "${x:-'$(cmd)'}" runs cmd. A substitution that does not end
  // before the closing quote, or a backslash, is not judged.
  const size_t open_at = pos_;
  const size_t end = in_.find('\'', pos_ + 1);
  if (end == std::string_view::npos) return Unterminated("single quote", pos_);
  ++pos_;
  while (pos_ < end) {
    RETURN_IF_ERROR(Spend(1));
    const char c = in_[pos_];
    if (c == '\\') {
      return absl::InvalidArgumentError(absl::StrCat(
          "a backslash in single quotes inside \"${\" is not supported (at offset ", pos_, ")"));
    }
    if (c == '$') {
      RETURN_IF_ERROR(ScanDollar(w, depth + 1, true));
    } else if (c == '`') {
      RETURN_IF_ERROR(ScanBackticks(w, depth + 1, true));
    } else {
      Literal(w, c);
      ++pos_;
    }
  }
  if (pos_ != end) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an expansion crosses the single quote opened at offset ", open_at, " inside \"${\""));
  }
  ++pos_;
  return absl::OkStatus();
}

absl::Status ShellScanner::ScanBackticks(WordBuilder& w, int depth, bool in_dquote) {
  size_t start = pos_;
  const auto key = std::make_pair(start, in_dquote);
  auto parsed = backquotes_.find(key);
  if (parsed == backquotes_.end()) {
    size_t i = pos_ + 1;
    std::string inner;  // the command, with the backquote-level escapes undone
    while (i < in_.size() && in_[i] != '`') {
      if (in_[i] == '\\' && i + 1 < in_.size()) {
        char next = in_[i + 1];
        // Bash removes a continuation in backquotes before anything else,
        // even inside the quotes of the command: `echo 'a\⏎b'` prints ab.
        if (next == '\n') {
          continuations_.insert(i);
        } else if (next == '`' || next == '\\' || next == '$' || (in_dquote && next == '"')) {
          inner += next;
        } else {
          inner += in_.substr(i, 2);
        }
        i += 2;
      } else {
        inner += in_[i++];
      }
    }
    if (i >= in_.size()) return Unterminated("backquote \"`\"", start);
    RETURN_IF_ERROR(Spend(i - start));
    const int deepest_outside = work_.deepest;
    work_.deepest = depth;
    ParsedBackquote result;
    absl::Status status = CheckDepth(depth + 1);
    if (status.ok()) status = ParseText(inner, depth + 1, result.line);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("in the backquoted command at offset ", start, ": ", status.message()));
    }
    result.height = work_.deepest - depth;
    work_.deepest = std::max(deepest_outside, work_.deepest);
    result.end = i + 1;
    // A failed parse fails the whole line, so only a success is kept.
    parsed = backquotes_.emplace(key, std::move(result)).first;
  } else {
    RETURN_IF_ERROR(Spend(parsed->second.end - start));
    RETURN_IF_ERROR(CheckDepth(depth + parsed->second.height));
  }
  const ParsedBackquote& command = parsed->second;
  line_.commands.insert(line_.commands.end(), command.line.commands.begin(),
                        command.line.commands.end());
  for (const std::string& why : command.line.hidden) Hidden(why.c_str());
  pos_ = command.end;
  Expansion(w, start);
  return absl::OkStatus();
}

}  // namespace raw::tools::policy
