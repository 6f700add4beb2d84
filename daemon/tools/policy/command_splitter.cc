#include "daemon/tools/policy/command_splitter.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace raw::tools::policy {
namespace {

// Deeper nesting than any hand-written command needs; bounds the recursion.
constexpr int kMaxDepth = 64;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Words that only introduce or close a compound command: the simple command
// is what follows them ("if git diff; then rm x; fi" runs "git diff" and
// "rm x").
bool IsReservedLead(const std::string& word) {
  for (const char* reserved :
       {"!", "if", "then", "else", "elif", "do", "while", "until", "fi", "done"}) {
    if (word == reserved) return true;
  }
  return false;
}

class Splitter {
 public:
  Splitter(std::string_view input, std::vector<std::string>& parts) : in_(input), parts_(parts) {}

  // Parses a list of commands up to `close` (')') or, with close == 0, the
  // end of the input; consumes `close`. `opener` names what `close` ends.
  absl::Status ParseList(char close, int depth, const std::string& opener, size_t open_at);

 private:
  bool At(size_t offset, char c) const {
    return pos_ + offset < in_.size() && in_[pos_ + offset] == c;
  }
  absl::Status Unterminated(const std::string& what, size_t open_at) const {
    return absl::InvalidArgumentError(
        absl::StrCat("unterminated ", what, " (opened at offset ", open_at, ")"));
  }
  absl::Status CheckDepth(int depth) const {
    if (depth <= kMaxDepth) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("command nests more than ", kMaxDepth, " levels deep"));
  }
  void SkipBlanks();
  void Flush(std::vector<std::string>& words);
  absl::Status ScanWord(std::string& word, int depth);
  absl::Status ScanSingleQuoted(std::string& word);
  absl::Status ScanAnsiC(std::string& word);
  absl::Status ScanDoubleQuoted(std::string& word, int depth);
  absl::Status ScanDollar(std::string& word, int depth, bool in_dquote);
  absl::Status ScanSubstitution(std::string& word, int depth, const std::string& what);
  absl::Status ScanArithmetic(std::string& word, int depth);
  absl::Status ScanParameter(std::string& word, int depth, bool in_dquote);
  absl::Status ScanBackticks(std::string& word, int depth, bool in_dquote);

  std::string_view in_;
  size_t pos_ = 0;
  std::vector<std::string>& parts_;
};

void Splitter::SkipBlanks() {
  while (pos_ < in_.size()) {
    if (IsBlank(in_[pos_])) {
      ++pos_;
    } else if (in_[pos_] == '\\' && At(1, '\n')) {
      pos_ += 2;  // line continuation
    } else {
      break;
    }
  }
}

void Splitter::Flush(std::vector<std::string>& words) {
  if (!words.empty()) parts_.push_back(absl::StrJoin(words, " "));
  words.clear();
}

absl::Status Splitter::ParseList(char close, int depth, const std::string& opener, size_t open_at) {
  RETURN_IF_ERROR(CheckDepth(depth));
  std::vector<std::string> words;
  int open_groups = 0;  // `{` minus `}` seen at command starts in this list
  size_t group_at = 0;
  auto finish = [&]() -> absl::Status {
    Flush(words);
    if (open_groups > 0) return Unterminated("group \"{\"", group_at);
    return absl::OkStatus();
  };
  while (true) {
    SkipBlanks();
    if (pos_ == in_.size()) {
      RETURN_IF_ERROR(finish());
      if (close != 0) return Unterminated(opener, open_at);
      return absl::OkStatus();
    }
    char c = in_[pos_];
    if (c == ')') {
      if (close != ')') {
        return absl::InvalidArgumentError(absl::StrCat("unbalanced \")\" at offset ", pos_));
      }
      ++pos_;
      return finish();
    }
    if (c == '\n' || c == ';' || c == '|' || (c == '&' && !At(1, '>'))) {
      Flush(words);
      ++pos_;
      // &&, ||, |&, ;; and ;& are one operator each.
      if ((c == '&' && At(0, '&')) || (c == '|' && (At(0, '|') || At(0, '&'))) ||
          (c == ';' && (At(0, ';') || At(0, '&')))) {
        ++pos_;
      }
      continue;
    }
    if (c == '(') {
      if (!words.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unexpected \"(\" at offset ", pos_, " after \"", absl::StrJoin(words, " "), "\""));
      }
      size_t at = pos_++;
      RETURN_IF_ERROR(ParseList(')', depth + 1, "subshell \"(\"", at));
      continue;
    }
    if (c == '#') {  // a comment runs to the end of the line
      while (pos_ < in_.size() && in_[pos_] != '\n') ++pos_;
      continue;
    }
    size_t word_at = pos_;
    std::string word;
    RETURN_IF_ERROR(ScanWord(word, depth));
    if (words.empty() && word == "{") {
      if (open_groups++ == 0) group_at = word_at;
    } else if (words.empty() && word == "}") {
      if (--open_groups < 0) {
        return absl::InvalidArgumentError(absl::StrCat("unbalanced \"}\" at offset ", word_at));
      }
    } else if (!words.empty() || !IsReservedLead(word)) {
      words.push_back(std::move(word));
    }
  }
}

absl::Status Splitter::ScanWord(std::string& word, int depth) {
  while (pos_ < in_.size()) {
    char c = in_[pos_];
    if (c == '|' && !word.empty() && word.back() == '>') {  // ">|" (clobber) redirects
      word += c;
      ++pos_;
      continue;
    }
    if (IsBlank(c) || c == '\n' || c == ';' || c == '|' || c == '(' || c == ')') break;
    if (c == '&') {
      // "&>file" and ">&2" are redirections, not the background operator.
      bool redirect = At(1, '>') || (!word.empty() && (word.back() == '>' || word.back() == '<'));
      if (!redirect) break;
      word += c;
      ++pos_;
    } else if (c == '\\') {
      if (At(1, '\n')) {
        pos_ += 2;
      } else {
        word += in_.substr(pos_, pos_ + 1 < in_.size() ? 2 : 1);
        pos_ += 2;
      }
    } else if (c == '\'') {
      RETURN_IF_ERROR(ScanSingleQuoted(word));
    } else if (c == '"') {
      RETURN_IF_ERROR(ScanDoubleQuoted(word, depth));
    } else if (c == '`') {
      RETURN_IF_ERROR(ScanBackticks(word, depth, false));
    } else if (c == '$' && At(1, '\'')) {
      RETURN_IF_ERROR(ScanAnsiC(word));
    } else if (c == '$') {
      RETURN_IF_ERROR(ScanDollar(word, depth, false));
    } else if ((c == '<' || c == '>') && At(1, '(')) {
      RETURN_IF_ERROR(ScanSubstitution(word, depth, "process substitution"));
    } else if (c == '<' && At(1, '<') && !At(2, '<')) {
      // The body of a here-document is not a command, but telling it apart
      // needs the following lines; refuse rather than guess.
      return absl::InvalidArgumentError(
          absl::StrCat("here-documents (<<) are not supported (at offset ", pos_, ")"));
    } else if (c == '<' && At(1, '<')) {
      word += "<<<";  // a here-string is an ordinary word
      pos_ += 3;
    } else {
      word += c;
      ++pos_;
    }
  }
  if (pos_ > in_.size()) pos_ = in_.size();
  return absl::OkStatus();
}

absl::Status Splitter::ScanSingleQuoted(std::string& word) {
  size_t end = in_.find('\'', pos_ + 1);
  if (end == std::string_view::npos) return Unterminated("single quote", pos_);
  word += in_.substr(pos_, end + 1 - pos_);
  pos_ = end + 1;
  return absl::OkStatus();
}

absl::Status Splitter::ScanAnsiC(std::string& word) {
  size_t open_at = pos_;
  size_t i = pos_ + 2;
  while (i < in_.size() && in_[i] != '\'') i += in_[i] == '\\' ? 2 : 1;
  if (i >= in_.size()) return Unterminated("quote \"$'\"", open_at);
  word += in_.substr(pos_, i + 1 - pos_);
  pos_ = i + 1;
  return absl::OkStatus();
}

absl::Status Splitter::ScanDoubleQuoted(std::string& word, int depth) {
  RETURN_IF_ERROR(CheckDepth(depth));
  size_t open_at = pos_;
  word += '"';
  ++pos_;
  while (pos_ < in_.size()) {
    char c = in_[pos_];
    if (c == '"') {
      word += '"';
      ++pos_;
      return absl::OkStatus();
    }
    if (c == '\\' && pos_ + 1 < in_.size()) {
      word += in_.substr(pos_, 2);
      pos_ += 2;
    } else if (c == '$') {
      RETURN_IF_ERROR(ScanDollar(word, depth, true));
    } else if (c == '`') {
      RETURN_IF_ERROR(ScanBackticks(word, depth, true));
    } else {
      word += c;
      ++pos_;
    }
  }
  return Unterminated("double quote", open_at);
}

absl::Status Splitter::ScanDollar(std::string& word, int depth, bool in_dquote) {
  if (At(1, '(') && At(2, '(')) return ScanArithmetic(word, depth);
  if (At(1, '(')) return ScanSubstitution(word, depth, "command substitution \"$(\"");
  if (At(1, '{')) return ScanParameter(word, depth, in_dquote);
  word += '$';
  ++pos_;
  return absl::OkStatus();
}

absl::Status Splitter::ScanSubstitution(std::string& word, int depth, const std::string& what) {
  size_t start = pos_;
  pos_ += 2;  // "$(", "<(" or ">("
  RETURN_IF_ERROR(ParseList(')', depth + 1, what, start));
  word += in_.substr(start, pos_ - start);
  return absl::OkStatus();
}

absl::Status Splitter::ScanArithmetic(std::string& word, int depth) {
  // "$(( … ))": an expression, but it may contain substitutions that run.
  // Like bash, text that does not close with "))" is a command substitution
  // whose command starts with a subshell: "$((cd a; make) | tee log)".
  RETURN_IF_ERROR(CheckDepth(depth));
  size_t start = pos_;
  size_t parts_before = parts_.size();
  pos_ += 3;
  int parens = 2;
  std::string ignored;
  while (pos_ < in_.size()) {
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
    word += in_.substr(start, pos_ - start);
    return absl::OkStatus();
  }
  pos_ = start;
  parts_.resize(parts_before);
  return ScanSubstitution(word, depth, "command substitution \"$(\"");
}

absl::Status Splitter::ScanParameter(std::string& word, int depth, bool in_dquote) {
  // "${name…}": the operand after :- and the like may hold quotes and
  // substitutions that run. Inside double quotes a single quote is literal.
  RETURN_IF_ERROR(CheckDepth(depth));
  size_t start = pos_;
  pos_ += 2;
  std::string ignored;
  while (pos_ < in_.size()) {
    char c = in_[pos_];
    if (c == '}') {
      ++pos_;
      word += in_.substr(start, pos_ - start);
      return absl::OkStatus();
    }
    absl::Status status = absl::OkStatus();
    if (c == '\\') {
      pos_ += 2;
    } else if (c == '\'' && !in_dquote) {
      status = ScanSingleQuoted(ignored);
    } else if (c == '"') {
      status = ScanDoubleQuoted(ignored, depth + 1);
    } else if (c == '$') {
      status = ScanDollar(ignored, depth + 1, in_dquote);
    } else if (c == '`') {
      status = ScanBackticks(ignored, depth + 1, in_dquote);
    } else {
      ++pos_;
    }
    RETURN_IF_ERROR(status);
  }
  return Unterminated("parameter expansion \"${\"", start);
}

absl::Status Splitter::ScanBackticks(std::string& word, int depth, bool in_dquote) {
  size_t start = pos_;
  size_t i = pos_ + 1;
  std::string inner;  // the command, with the backquote-level escapes undone
  while (i < in_.size() && in_[i] != '`') {
    if (in_[i] == '\\' && i + 1 < in_.size()) {
      char next = in_[i + 1];
      if (next == '`' || next == '\\' || next == '$' || (in_dquote && next == '"')) {
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
  RETURN_IF_ERROR(CheckDepth(depth + 1));
  Splitter nested(inner, parts_);
  absl::Status status = nested.ParseList(0, depth + 1, "", 0);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("in the backquoted command at offset ", start, ": ", status.message()));
  }
  pos_ = i + 1;
  word += in_.substr(start, pos_ - start);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitShellCommand(std::string_view command) {
  std::vector<std::string> parts;
  Splitter splitter(command, parts);
  RETURN_IF_ERROR(splitter.ParseList(0, 0, "", 0));
  return parts;
}

}  // namespace raw::tools::policy
