#include "daemon/tools/policy/command_subjects.h"

#include <optional>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "daemon/tools/policy/command_splitter.h"
#include "daemon/tools/policy/command_wrappers.h"
#include "daemon/tools/policy/environment_names.h"
#include "daemon/tools/policy/hidden_evaluation.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

// Stands for the arguments xargs reads from its input.
constexpr char kInputArguments[] = " \u2026";

constexpr char kSetsCommandTable[] =
    "the command line sets BASH_CMDS, which makes a command name run the program at another path";

std::string JoinTexts(const std::vector<ShellWord>& words) {
  return absl::StrJoin(words, " ",
                       [](std::string* out, const ShellWord& w) { out->append(w.text); });
}

std::string JoinValues(const std::vector<ShellWord>& words) {
  return absl::StrJoin(words, " ",
                       [](std::string* out, const ShellWord& w) { out->append(w.value); });
}

// "/usr/bin/rm" -> "rm"; a name ending in '/' stays as it is.
std::string WithoutDirectories(const std::string& name) {
  size_t slash = name.rfind('/');
  if (slash == std::string::npos || slash + 1 == name.size()) return name;
  return name.substr(slash + 1);
}

class Analyzer {
 public:
  explicit Analyzer(CommandSubjects& out) : out_(out) {}

  absl::Status Line(std::string_view line, int depth);

 private:
  // One simple command as written (its `words`, their text `written`);
  // `suffix` stands for arguments added when it runs (xargs).
  absl::Status Command(const std::vector<ShellWord>& words, const std::string& written,
                       const std::string& suffix, int depth);
  void Opaque(std::string reason) {
    if (out_.opaque_reason.empty()) out_.opaque_reason = std::move(reason);
  }
  // `text` sets or exports a variable ("NAME=…", "NAME+=…", "NAME").
  void Sets(std::string_view text);
  // The redirection made of `redirection` (operator and target as written
  // together, or the operator word) and, for an operator alone, `target`.
  void Redirect(const ShellWord& redirection, const ShellWord* target);

  CommandSubjects& out_;
  // A command before may have changed the working directory (cd, pushd,
  // popd, a sourced file, autocd, a wrapper's chdir option): from then on a
  // relative redirect target names a file only running the line tells.
  bool directory_may_change_ = false;
};

// Commands that change the shell's working directory, or may (a sourced
// file runs anything; with autocd a directory's name is a cd).
bool ChangesDirectory(const std::vector<ShellWord>& run) {
  const std::string& name = run[0].value;
  if (name == "cd" || name == "pushd" || name == "popd" || name == "source" || name == ".") {
    return true;
  }
  if (name != "shopt") return false;
  for (const ShellWord& word : run) {
    if (!word.literal || word.value == "autocd") return true;
  }
  return false;
}

void Analyzer::Sets(std::string_view text) {
  std::string_view name = text.substr(0, text.find_first_of("+=["));
  // Each element of BASH_CMDS is a command name's entry in bash's table of
  // program paths, as `hash -p` makes it.
  if (name == "BASH_CMDS") Opaque(kSetsCommandTable);
  if (!IsVariableName(name) || !ChangesWhatRuns(name)) return;
  for (const std::string& known : out_.environment) {
    if (known == name) return;
  }
  out_.environment.emplace_back(name);
}

void Analyzer::Redirect(const ShellWord& redirection, const ShellWord* target) {
  // {NAME}>file assigns NAME the descriptor it opens.
  if (redirection.text.starts_with("{")) {
    Sets(std::string_view(redirection.text).substr(1, redirection.text.find('}') - 1));
  }
  std::string written = redirection.value;
  bool known = redirection.literal;
  if (target != nullptr) {
    written += target->value;
    known = target->literal;
  }
  std::optional<std::string_view> file = WrittenFile(written);
  if (!file) return;
  if (file->empty()) known = false;  // bash refuses it; nothing to allow
  // The target as written, for tilde expansion: only an unquoted leading
  // "~" followed by "/" or nothing is the user's home.
  std::string_view as_written = target != nullptr
                                    ? std::string_view(target->text)
                                    : WrittenFile(redirection.text).value_or(std::string_view());
  if (as_written.starts_with("~") && !(as_written == "~" || as_written.starts_with("~/"))) {
    known = false;  // ~user
  }
  std::string path(*file);
  if (path.starts_with("~") && !as_written.starts_with("~")) path = "./" + path;  // quoted: a name
  if (directory_may_change_ && !path.starts_with("/") && !as_written.starts_with("~")) {
    known = false;  // relative to a directory only running the line tells
  }
  out_.subjects.push_back({CommandSubject::Kind::kRedirect, std::move(path), known});
}

absl::Status Analyzer::Line(std::string_view line, int depth) {
  ASSIGN_OR_RETURN(ShellLine parsed, ParseShellLine(line, depth));
  for (const std::string& why : parsed.hidden) Opaque(why);
  for (const SimpleCommand& command : parsed.commands) {
    RETURN_IF_ERROR(Command(command.words, command.Text(), "", depth));
  }
  return absl::OkStatus();
}

absl::Status Analyzer::Command(const std::vector<ShellWord>& words, const std::string& written,
                               const std::string& suffix, int depth) {
  if (depth > kMaxShellNesting) {
    return absl::InvalidArgumentError(
        absl::StrCat("command nests more than ", kMaxShellNesting, " levels deep"));
  }
  out_.subjects.push_back({CommandSubject::Kind::kCommand, written + suffix});
  size_t command_at = out_.subjects.size() - 1;
  // The name and arguments bash runs.
  std::vector<ShellWord> run;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    Redirection redirection = ClassifyRedirection(text);
    if (redirection == Redirection::kOperator) {
      Redirect(words[i], i + 1 < words.size() ? &words[i + 1] : nullptr);
      ++i;  // and its target
    } else if (redirection == Redirection::kComplete) {
      Redirect(words[i], nullptr);
    } else if (run.empty() && IsAssignment(text)) {
      Sets(text);
      if (const char* why = HiddenInAssignment(text)) Opaque(why);
    } else {
      run.push_back(words[i]);
    }
  }
  if (run.empty()) return absl::OkStatus();  // only assignments or redirections
  // Its own redirections are opened before it runs, in the directory it
  // starts in; the later commands' are not.
  if (!run[0].literal || ChangesDirectory(run)) directory_may_change_ = true;
  const std::string& name = run[0].value;
  if (run[0].literal && (name == "export" || name == "declare" || name == "typeset" ||
                         name == "readonly" || name == "local")) {
    for (size_t i = 1; i < run.size(); ++i) {
      if (!run[i].value.starts_with("-")) Sets(run[i].value);
    }
  }
  run[0].value = WithoutDirectories(run[0].value);
  std::string canonical = JoinValues(run) + suffix;
  if (canonical != out_.subjects[command_at].text) {
    // Right after its command, before the command's redirect subjects.
    out_.subjects.insert(out_.subjects.begin() + static_cast<long>(command_at) + 1,
                         {CommandSubject::Kind::kCanonical, canonical});
  }
  if (!run[0].literal) {
    Opaque(absl::StrCat("the command name ", run[0].text, " is only known when the line runs"));
    return absl::OkStatus();
  }
  if (const char* why = HiddenEvaluation(run)) Opaque(why);
  for (const std::string& assigned : AssignedNames(run)) Sets(assigned);
  Wrapped wrapped = UnwrapCommand(run);
  switch (wrapped.kind) {
    case Wrapped::Kind::kNone:
      return absl::OkStatus();
    case Wrapped::Kind::kUnknown:
      Opaque(wrapped.reason);
      return absl::OkStatus();
    case Wrapped::Kind::kCommand:
      if (wrapped.changes_directory) directory_may_change_ = true;
      for (const std::vector<ShellWord>& command : wrapped.commands) {
        RETURN_IF_ERROR(Command(command, JoinTexts(command),
                                wrapped.appends_input ? kInputArguments : suffix, depth + 1));
      }
      return absl::OkStatus();
    case Wrapped::Kind::kLine: {
      if (!wrapped.reason.empty()) Opaque(wrapped.reason);
      // What a command string runs is seen as far as it splits; if it does
      // not, only its command line as a whole is a subject.
      absl::Status status = Line(wrapped.line, depth + 1);
      if (!status.ok()) {
        Opaque(absl::StrCat("the command line ", run[0].value, " runs cannot be split (",
                            status.message(), ")"));
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CommandSubjects> AnalyzeShellCommand(std::string_view command) {
  CommandSubjects out;
  Analyzer analyzer(out);
  RETURN_IF_ERROR(analyzer.Line(command, 0));
  return out;
}

}  // namespace raw::tools::policy
