#include "daemon/tools/policy/program_pattern.h"

#include "absl/strings/str_cat.h"
#include "common/pattern.h"
#include "daemon/tools/policy/command_splitter.h"
#include "daemon/tools/policy/command_wrappers.h"
#include "daemon/tools/policy/hidden_evaluation.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

// Interpreters, programs whose arguments are code, and builtins that
// change how later text is read; command runners are found by
// UnwrapCommand and HiddenEvaluation.
constexpr std::string_view kNeverWidened[] = {
    "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl",
    "ruby", "irb", "php", "lua", "luajit", "tclsh", "wish", "Rscript", "R", "julia", "awk",
    "gawk", "mawk", "nawk", "sed", "osascript", "java", "jshell", "groovy", "scala", "ghci",
    "npx", "uvx", "pipx", "bunx", "vim", "vi", "nvim", "emacs", "gdb", "lldb", "source", ".",
    "eval", "exec", "trap", "alias", "unalias", "set", "shopt", "enable", "hash", "bind",
    "complete", "fc", "history", "builtin", "command", "function", "coproc", "time", "let",
    "declare", "typeset", "local", "readonly", "export", "read", "unset", "mapfile",
    "readarray", "getopts", "printf", "wait", "test", "[", "[[", "env", "xargs", "find",
    "busybox", "nohup", "nice", "timeout", "stdbuf", "setsid", "sudo", "doas",
};

// Tools whose first argument names the action: widened to program and
// subcommand, never to the program alone.
constexpr std::string_view kSubcommandTools[] = {
    "git",     "npm",     "pnpm",      "yarn",  "cargo",  "go",      "docker", "podman",
    "kubectl", "helm",    "pip",       "pip3",  "uv",     "poetry",  "apt",    "apt-get",
    "brew",    "gh",      "dotnet",    "rustup", "conda", "bundle",  "gem",    "composer",
    "mvn",     "gradle",  "terraform", "systemctl", "nix", "swift",  "bazel",  "pnpx",
};

bool IsPlain(const ShellWord& word) {
  return word.literal && word.text == word.value && !word.text.empty() &&
         word.text.find_first_of("\\*?/=") == std::string::npos;
}

}  // namespace

std::optional<std::string> ProgramPattern(std::string_view command) {
  auto line = ParseShellLine(command);
  if (!line.ok() || line->commands.size() != 1 || !line->hidden.empty()) return std::nullopt;
  const std::vector<ShellWord>& words = line->commands[0].words;
  if (words.empty() || !IsPlain(words[0]) ||
      ClassifyRedirection(words[0].text) != Redirection::kNone) {
    return std::nullopt;
  }
  const std::string& name = words[0].value;
  for (std::string_view never : kNeverWidened) {
    if (name == never) return std::nullopt;
  }
  if (HiddenEvaluation(words) != nullptr) return std::nullopt;
  if (UnwrapCommand({words[0]}).kind != Wrapped::Kind::kNone ||
      UnwrapCommand(words).kind != Wrapped::Kind::kNone) {
    return std::nullopt;  // a shell, prefix or other command runner
  }
  for (std::string_view tool : kSubcommandTools) {
    if (name != tool) continue;
    if (words.size() < 2 || !IsPlain(words[1]) || words[1].value.starts_with("-") ||
        ClassifyRedirection(words[1].text) != Redirection::kNone) {
      return std::nullopt;
    }
    return absl::StrCat(name, " ", EscapeGlob(words[1].value), " *");
  }
  return absl::StrCat(name, " *");
}

}  // namespace raw::tools::policy
