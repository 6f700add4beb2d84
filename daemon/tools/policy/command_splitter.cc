#include "daemon/tools/policy/command_splitter.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "daemon/tools/policy/shell_scanner.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

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

// Reads lists of commands; its scanner base reads the words.
class Splitter : public ShellScanner {
 public:
  Splitter(std::string_view input, ShellLine& line, ScanWork& work)
      : ShellScanner(input, line, work) {}

  absl::Status ParseList(char close, int depth, const std::string& opener, size_t open_at) override;

  const std::set<size_t>& continuations() const { return continuations_; }
  const std::vector<std::pair<size_t, size_t>>& kept_spans() const { return kept_spans_; }

 private:
  absl::Status ParseText(std::string_view text, int depth, ShellLine& into) override {
    Splitter nested(text, into, work_);
    return nested.ParseList(0, depth, "", 0);
  }
  void SkipBlanks();
  void Flush(std::vector<ShellWord>& words);
};

void Splitter::SkipBlanks() {
  while (pos_ < in_.size()) {
    if (IsBlank(in_[pos_])) {
      ++pos_;
    } else if (in_[pos_] == '\\' && At(1, '\n')) {
      continuations_.insert(pos_);
      pos_ += 2;  // line continuation
    } else {
      break;
    }
  }
}

void Splitter::Flush(std::vector<ShellWord>& words) {
  if (!words.empty()) line_.commands.push_back(SimpleCommand{std::move(words)});
  words.clear();
}

absl::Status Splitter::ParseList(char close, int depth, const std::string& opener, size_t open_at) {
  RETURN_IF_ERROR(CheckDepth(depth));
  std::vector<ShellWord> words;
  int open_groups = 0;  // `{` minus `}` seen at command starts in this list
  size_t group_at = 0;
  bool in_test = false;  // inside [[ … ]]
  auto finish = [&]() -> absl::Status {
    Flush(words);
    if (open_groups > 0) return Unterminated("group \"{\"", group_at);
    return absl::OkStatus();
  };
  while (true) {
    size_t blanks_at = pos_;
    SkipBlanks();
    RETURN_IF_ERROR(Spend(pos_ - blanks_at + 1));
    if (pos_ == in_.size()) {
      RETURN_IF_ERROR(finish());
      if (close != 0) return Unterminated(opener, open_at);
      return absl::OkStatus();
    }
    char c = in_[pos_];
    if (in_test && (c == '(' || c == ')' || (c == '&' && At(1, '&')) || (c == '|' && At(1, '|')))) {
      size_t length = c == '(' || c == ')' ? 1 : 2;  // grouping and && || of the test
      std::string op(in_.substr(pos_, length));
      words.push_back(ShellWord{op, op, true});
      pos_ += length;
      continue;
    }
    if (c == ')') {
      if (close != ')') {
        return absl::InvalidArgumentError(absl::StrCat("unbalanced \")\" at offset ", pos_));
      }
      ++pos_;
      return finish();
    }
    if (c == '\n' || c == ';' || c == '|' || (c == '&' && !At(1, '>'))) {
      Flush(words);
      in_test = false;
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
        std::string before = SimpleCommand{words}.Text();
        return absl::InvalidArgumentError(
            absl::StrCat("unexpected \"(\" at offset ", pos_, " after \"", before, "\""));
      }
      if (At(1, '(')) Hidden(kHiddenInArithmetic);  // (( … )) may be arithmetic
      size_t at = pos_++;
      RETURN_IF_ERROR(ParseList(')', depth + 1, "subshell \"(\"", at));
      continue;
    }
    if (c == '#') {  // a comment runs to the end of the line
      size_t end = std::min(in_.find('\n', pos_), in_.size());
      RETURN_IF_ERROR(Spend(end - pos_));
      kept_spans_.emplace_back(pos_, end);
      pos_ = end;
      continue;
    }
    size_t word_at = pos_;
    WordBuilder w;
    RETURN_IF_ERROR(ScanWord(w, depth));
    const std::string& text = w.word.text;
    if (words.empty() && text == "{") {
      if (open_groups++ == 0) group_at = word_at;
    } else if (words.empty() && text == "}") {
      if (--open_groups < 0) {
        return absl::InvalidArgumentError(absl::StrCat("unbalanced \"}\" at offset ", word_at));
      }
    } else if (!words.empty() || !IsReservedLead(text)) {
      if (words.empty() && text == "[[") in_test = true;
      if (in_test && text == "]]") in_test = false;
      words.push_back(std::move(w.word));
    }
  }
}

}  // namespace

std::string SimpleCommand::Text() const {
  return absl::StrJoin(words, " ",
                       [](std::string* out, const ShellWord& word) { out->append(word.text); });
}

absl::StatusOr<ShellLine> ParseShellLine(std::string_view command, int depth) {
  ShellLine line;
  ScanWork work(command.size());
  Splitter splitter(command, line, work);
  RETURN_IF_ERROR(splitter.ParseList(0, depth, "", 0));
  if (splitter.continuations().empty()) return line;
  // Bash removes each line continuation before it reads the text around
  // it, so one can join an operator ("<\⏎<" is the here-document "<<",
  // "$\⏎(" a substitution) or a word. Read the line again without them.
  std::string joined;
  std::vector<size_t> joins;  // where each was removed, as offsets in `joined`
  size_t from = 0;
  for (size_t at : splitter.continuations()) {
    joined.append(command.substr(from, at - from));
    joins.push_back(joined.size());
    from = at + 2;
  }
  joined.append(command.substr(from));
  ShellLine again;
  ScanWork again_work(joined.size());
  Splitter rejoined(joined, again, again_work);
  RETURN_IF_ERROR(rejoined.ParseList(0, depth, "", 0));
  // The second reading must agree on where the continuations were: none
  // left to remove, and none of those removed inside quotes or a comment,
  // where bash keeps them. Otherwise the line is not judged.
  bool agrees = rejoined.continuations().empty();
  for (const auto& [open, close] : rejoined.kept_spans()) {
    auto join = std::upper_bound(joins.begin(), joins.end(), open);
    if (join != joins.end() && *join <= close) agrees = false;
  }
  if (!agrees) {
    return absl::InvalidArgumentError(
        "line continuations (backslash-newline) whose place bash reads differently");
  }
  return again;
}

absl::StatusOr<std::vector<std::string>> SplitShellCommand(std::string_view command) {
  ASSIGN_OR_RETURN(ShellLine line, ParseShellLine(command));
  std::vector<std::string> parts;
  parts.reserve(line.commands.size());
  for (const SimpleCommand& simple : line.commands) parts.push_back(simple.Text());
  return parts;
}

}  // namespace raw::tools::policy