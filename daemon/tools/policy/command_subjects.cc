#include "daemon/tools/policy/command_subjects.h"

#include <optional>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "daemon/tools/policy/command_splitter.h"
#include "daemon/tools/policy/command_wrappers.h"
#include "daemon/tools/policy/environment_names.h"
#include "daemon/tools/policy/hidden_evaluation.h"
#include "daemon/tools/policy/redirect_target.h"
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
  // Marks the redirect targets that only running the whole line tells.
  void Finish();

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
  // Some command of the line, wherever it is, may change the directory.
  bool directory_changes_anywhere_ = false;
  // The line runs something again or later than it is written: a loop
  // (while, until, for, select), a trap, or what find or xargs runs.
  bool repeats_ = false;
  // Commands of the line may run at once (a pipeline, "&", coproc, process
  // substitution), so text order does not tell which runs first.
  bool concurrent_ = false;
  // The simple command whose redirections are being read (each command the
  // analysis meets, wrapped ones too, has the next number).
  int current_command_ = -1;
  int next_command_ = 0;
  // Commands that may change the file system (not in kLeavesFilesAlone):
  // a link or directory they make can send a redirection elsewhere.
  std::vector<int> file_changers_;
  // For each redirect subject, in the order they were added.
  struct RedirectSource {
    int command;         // the command it belongs to
    bool relative;       // names a file relative to the working directory
    bool harmless;       // /dev/null and the like
    bool after_changer;  // a command that may change files comes before it
  };
  std::vector<RedirectSource> redirects_;
};

// Commands that create, remove or rename no file, directory or link (they
// read, print, or change only the shell's own state), so that no redirect
// target of the line is resolved differently after they ran. A command run
// through a wrapper counts as itself; the wrapper as nothing.
constexpr std::string_view kLeavesFilesAlone[] = {
    "echo",     "printf",  "true",    "false",    ":",      "test",     "[",       "pwd",
    "cd",       "pushd",   "popd",    "dirs",     "ls",     "cat",      "head",    "tail",
    "wc",       "grep",    "egrep",   "fgrep",    "sleep",  "basename", "dirname", "realpath",
    "readlink", "stat",    "which",   "type",     "export", "unset",    "set",     "shopt",
    "local",    "declare", "typeset", "readonly", "read",   "exit",     "return",  "break",
    "continue", "shift",   "wait",    "let",      "umask",  "for",      "select",
};

bool LeavesFilesAlone(const ShellWord& name) {
  if (!name.literal) return false;
  for (std::string_view safe : kLeavesFilesAlone) {
    if (name.value == safe) return true;
  }
  return false;
}

// Words of bash that run a part of a line again: the loops. Found
// anywhere in the line's text (a quoted "for" too: reading more loops than
// there are only makes more targets unknown).
bool MayLoop(std::string_view line) {
  size_t i = 0;
  while (i < line.size()) {
    auto word_char = [](char c) {
      return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    if (!word_char(line[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < line.size() && word_char(line[i])) ++i;
    std::string_view word = line.substr(start, i - start);
    if (word == "while" || word == "until" || word == "for" || word == "select" || word == "do" ||
        word == "done") {
      return true;
    }
  }
  return false;
}

// True when commands of `line` may run at the same time: a pipe ("|",
// "|&"), a command put in the background ("&", not "&&", ">&", "<&",
// "&>"), coproc, or process substitution. Read from the text as written
// (a quoted "|" too: reading more than there is only makes more targets
// unknown).
bool MayRunAtOnce(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    const char before = i > 0 ? line[i - 1] : '\0';
    if (c == '|') {
      if (next == '|') {
        ++i;
        continue;
      }
      return true;
    }
    if (c == '&') {
      if (next == '&') {
        ++i;
        continue;
      }
      if (before == '>' || before == '<' || next == '>') continue;
      return true;
    }
    if (c == '(' && (before == '<' || before == '>')) return true;
  }
  return line.find("coproc") != std::string_view::npos;
}

// The length of the operator, with its descriptor number or {name}, that
// the redirection word written as `text` starts with; 0 when none. Only
// unquoted characters make an operator: in >'&'1 the operator is ">".
size_t OperatorLength(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 && text.starts_with("{")) {
    size_t close = text.find('}');
    if (close != std::string_view::npos && IsVariableName(text.substr(1, close - 1))) {
      i = close + 1;
    }
  }
  std::string_view rest = text.substr(i);
  for (std::string_view op : {"<<<", "&>>", ">>", "<&", ">&", "<>", ">|", "&>", "<", ">"}) {
    if (rest.starts_with(op)) return i + op.size();
  }
  return 0;
}

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
  // The operator as written; the target is what follows it, after quote
  // removal. Quote removal never makes an operator: >'&'1, >\&1 and > '&1'
  // write the file "&1", > '>a' the file ">a".
  const size_t op_length = OperatorLength(redirection.text);
  const std::string op = redirection.text.substr(0, op_length);
  std::string value;
  std::string_view as_written;  // the target as written, for tilde expansion
  bool known;
  if (target != nullptr) {
    value = target->value;
    as_written = target->text;
    known = target->literal && op_length == redirection.text.size();
  } else {
    as_written = std::string_view(redirection.text).substr(op_length);
    known = redirection.literal;
    if (redirection.value.starts_with(op)) {
      value = redirection.value.substr(op_length);
    } else {
      value = redirection.value;
      known = false;
    }
  }
  if (op_length == 0) known = false;
  std::string file;
  if (op.ends_with(">&")) {
    // ">&word": a descriptor to duplicate when word is a number or "-"
    // after expansion, else the file word names.
    const std::string joined = op + value;  // outlives the view WrittenFile returns
    std::optional<std::string_view> written = WrittenFile(joined);
    if (!written) return;
    file = std::string(*written);
  } else {
    if (op_length > 0 && !WrittenFile(op)) return;  // input, a here-string, <&
    file = value;
  }
  if (file.empty()) known = false;  // bash refuses it; nothing to allow
  // Only an unquoted leading "~" followed by "/" or nothing is the user's
  // home.
  if (as_written.starts_with("~") && !(as_written == "~" || as_written.starts_with("~/"))) {
    known = false;  // ~user
  }
  std::string path = std::move(file);
  if (path.starts_with("~") && !as_written.starts_with("~")) path = "./" + path;  // quoted: a name
  const bool relative = !path.starts_with("/") && !as_written.starts_with("~");
  if (directory_may_change_ && relative) {
    known = false;  // relative to a directory only running the line tells
  }
  redirects_.push_back(
      {current_command_, relative, IsHarmlessRedirectTarget(path), !file_changers_.empty()});
  out_.subjects.push_back({CommandSubject::Kind::kRedirect, std::move(path), known});
}

void Analyzer::Finish() {
  size_t next = 0;
  for (CommandSubject& subject : out_.subjects) {
    if (subject.kind != CommandSubject::Kind::kRedirect) continue;
    if (next >= redirects_.size()) {  // cannot happen; unknown if it does
      subject.known = false;
      continue;
    }
    const RedirectSource& source = redirects_[next++];
    // A loop or trap runs a redirection again after any command of the
    // line: a cd anywhere moves a relative target.
    if (repeats_ && directory_changes_anywhere_ && source.relative) subject.known = false;
    if (source.harmless) continue;
    // A command that may make a link or directory (git checkout, ln,
    // mkdir, tar, …) before the file is opened can send any target, absolute
    // too, elsewhere. In text order that is a command before the target's;
    // when commands run at once any other command counts, and when the line
    // runs them again the target's own too.
    if (source.after_changer) subject.known = false;
    for (int changer : file_changers_) {
      if (repeats_ || (concurrent_ && changer != source.command)) subject.known = false;
    }
  }
}

absl::Status Analyzer::Line(std::string_view line, int depth) {
  ASSIGN_OR_RETURN(ShellLine parsed, ParseShellLine(line, depth));
  if (MayLoop(line)) repeats_ = true;
  if (MayRunAtOnce(line)) concurrent_ = true;
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
  const int this_command = next_command_++;
  current_command_ = this_command;
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
  if (!run[0].literal || ChangesDirectory(run)) {
    directory_may_change_ = true;
    directory_changes_anywhere_ = true;
  }
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
    file_changers_.push_back(this_command);
    Opaque(absl::StrCat("the command name ", run[0].text, " is only known when the line runs"));
    return absl::OkStatus();
  }
  if (const char* why = HiddenEvaluation(run)) Opaque(why);
  for (const std::string& assigned : AssignedNames(run)) Sets(assigned);
  if (run[0].value == "trap") repeats_ = true;
  Wrapped wrapped = UnwrapCommand(run);
  // A wrapper (nice, xargs, find, bash -c, …) changes no link or directory
  // itself (find's -delete only removes); what it runs is judged in turn.
  // find and xargs may run it many times.
  const bool wraps =
      wrapped.kind == Wrapped::Kind::kCommand || wrapped.kind == Wrapped::Kind::kLine;
  if (!wraps && !LeavesFilesAlone(run[0])) file_changers_.push_back(this_command);
  if (wrapped.kind == Wrapped::Kind::kCommand &&
      (run[0].value == "find" || run[0].value == "xargs")) {
    repeats_ = true;
  }
  switch (wrapped.kind) {
    case Wrapped::Kind::kNone:
      return absl::OkStatus();
    case Wrapped::Kind::kUnknown:
      Opaque(wrapped.reason);
      return absl::OkStatus();
    case Wrapped::Kind::kCommand:
      if (wrapped.changes_directory) {
        directory_may_change_ = true;
        directory_changes_anywhere_ = true;
      }
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
  analyzer.Finish();
  return out;
}

}  // namespace raw::tools::policy
