#include "daemon/tools/policy/program_pattern.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/pattern.h"
#include "daemon/tools/policy/command_splitter.h"
#include "daemon/tools/policy/hidden_evaluation.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

// Programs widened to "<program> *": no argument makes them run a program
// or code it gives, send data to a host it names, or write a file other
// than what the program exists to change (mkdir, rmdir, touch). Left out on
// purpose, among others: sort (--compress-program), tar (--to-command),
// rsync (-e), rg (--pre), fd (--exec), ag (--pager), split (--filter),
// tee, uniq, xxd, tree and file (write files), make (--eval), less and man
// (run commands), date (sets the clock), cp, mv, ln and chmod (plant or
// replace what later commands run), rm (removes anything).
constexpr std::string_view kInertPrograms[] = {
    "basename", "cat",      "cksum",   "cmp",   "column", "comm",    "cut",       "df",
    "diff",     "dirname",  "du",      "echo",  "egrep",  "expand",  "false",     "fgrep",
    "fmt",      "fold",     "grep",    "head",  "id",     "jq",      "join",      "ls",
    "md5sum",   "mkdir",    "nl",      "nproc", "od",     "paste",   "printenv",  "pwd",
    "readlink", "realpath", "rev",     "rmdir", "seq",    "sha1sum", "sha256sum", "sha512sum",
    "sleep",    "stat",     "strings", "tac",   "tail",   "touch",   "tr",        "true",
    "uname",    "unexpand", "wc",      "which", "whoami",
};

struct Subcommand {
  std::string_view program;
  std::string_view subcommand;
};

// (program, subcommand) pairs widened to "<program> <subcommand> *", with
// the same guarantee. Left out on purpose: git diff, log, show, blame,
// stash, reflog, shortlog and rev-list (write any file through --output),
// git grep (-O runs a command), fetch, pull, push, clone, ls-remote and
// archive (--upload-pack, --exec), rebase (-x), difftool and mergetool (-x,
// --tool), merge and cherry-pick (-s names a program), submodule (foreach),
// bisect (run), config, init (--template installs hooks), send-email; npm
// run, test, start, exec, install and ci (run package scripts); docker run,
// exec and build; every subcommand of uv, poetry, pnpm, yarn, cargo, go,
// kubectl, conda, nix, bundle and the other tools that run code.
constexpr Subcommand kInertSubcommands[] = {
    {"git", "add"},      {"git", "branch"},     {"git", "checkout"},   {"git", "commit"},
    {"git", "describe"}, {"git", "ls-files"},   {"git", "ls-tree"},    {"git", "merge-base"},
    {"git", "mv"},       {"git", "restore"},    {"git", "rev-parse"},  {"git", "rm"},
    {"git", "show-ref"}, {"git", "status"},     {"git", "switch"},     {"git", "tag"},
    {"git", "version"},  {"npm", "explain"},    {"npm", "list"},       {"npm", "ls"},
    {"npm", "why"},      {"docker", "images"},  {"docker", "inspect"}, {"docker", "logs"},
    {"docker", "ps"},    {"docker", "version"}, {"podman", "images"},  {"podman", "inspect"},
    {"podman", "logs"},  {"podman", "ps"},      {"podman", "version"},
};

bool IsPlain(const ShellWord& word) {
  return word.literal && word.text == word.value && !word.text.empty() &&
         word.text.find_first_of("\\*?/=") == std::string::npos &&
         ClassifyRedirection(word.text) == Redirection::kNone;
}

}  // namespace

std::optional<std::string> ProgramPattern(std::string_view command) {
  auto line = ParseShellLine(command);
  if (!line.ok() || line->commands.size() != 1 || !line->hidden.empty()) return std::nullopt;
  const std::vector<ShellWord>& words = line->commands[0].words;
  if (words.empty() || !IsPlain(words[0]) || HiddenEvaluation(words) != nullptr) {
    return std::nullopt;
  }
  const std::string& name = words[0].value;
  if (std::ranges::find(kInertPrograms, name) != std::end(kInertPrograms)) {
    return absl::StrCat(name, " *");
  }
  if (words.size() < 2 || !IsPlain(words[1])) return std::nullopt;
  for (const Subcommand& pair : kInertSubcommands) {
    if (pair.program == name && pair.subcommand == words[1].value) {
      return absl::StrCat(name, " ", EscapeGlob(words[1].value), " *");
    }
  }
  return std::nullopt;
}

}  // namespace raw::tools::policy
