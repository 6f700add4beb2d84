#include "daemon/tools/policy/command_subjects.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "daemon/tools/policy/command_splitter.h"
#include "daemon/tools/policy/command_wrappers.h"
#include "daemon/tools/policy/hidden_evaluation.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

// Stands for the arguments xargs reads from its input.
constexpr char kInputArguments[] = " \u2026";

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

  CommandSubjects& out_;
};

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
  // The name and arguments bash runs.
  std::vector<ShellWord> run;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    Redirection redirection = ClassifyRedirection(text);
    if (redirection == Redirection::kOperator) {
      ++i;  // and its target
    } else if (redirection == Redirection::kNone && run.empty() && IsAssignment(text)) {
      if (const char* why = HiddenInAssignment(text)) Opaque(why);
    } else if (redirection == Redirection::kNone) {
      run.push_back(words[i]);
    }
  }
  if (run.empty()) return absl::OkStatus();  // only assignments or redirections
  run[0].value = WithoutDirectories(run[0].value);
  std::string canonical = JoinValues(run) + suffix;
  if (canonical != out_.subjects.back().text) {
    out_.subjects.push_back({CommandSubject::Kind::kCanonical, canonical});
  }
  if (!run[0].literal) {
    Opaque(absl::StrCat("the command name ", run[0].text, " is only known when the line runs"));
    return absl::OkStatus();
  }
  if (const char* why = HiddenEvaluation(run)) Opaque(why);
  Wrapped wrapped = UnwrapCommand(run);
  switch (wrapped.kind) {
    case Wrapped::Kind::kNone:
      return absl::OkStatus();
    case Wrapped::Kind::kUnknown:
      Opaque(wrapped.reason);
      return absl::OkStatus();
    case Wrapped::Kind::kCommand:
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
