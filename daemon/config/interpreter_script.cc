#include "daemon/config/interpreter_script.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace raw::config {
namespace {

// How an interpreter reads the arguments before its script. Word lists are
// separated by spaces.
struct Interpreter {
  absl::string_view names;  // base names, without version digits
  // Short options (letters of a cluster such as "-ec"): after one of
  // `stop`, the command runs no script file; one of `value` takes the rest
  // of the cluster or, when it ends the cluster, the next argument; one of
  // `attached` takes the rest of the cluster only; one of `script` is
  // followed by the script.
  absl::string_view stop;
  absl::string_view value;
  absl::string_view attached = "";
  absl::string_view script = "";
  // Whole arguments (long options, written alone or as "--name=value"):
  // after one of `stop_words` no script; one of `value_words` written
  // alone takes the next argument.
  absl::string_view stop_words = "";
  absl::string_view value_words = "";
  // A first positional argument that is a subcommand: one of `run_words` is
  // followed by the script, one of `other_words` runs none.
  absl::string_view run_words = "";
  absl::string_view other_words = "";
  bool plus_options = false;  // "+o name" reads as "-o name" (the shells)
};

constexpr std::array<Interpreter, 11> kInterpreters = {{
    {.names = "sh bash dash zsh ksh mksh ash yash rbash",
     .stop = "cs",
     .value = "oO",
     .value_words = "--rcfile --init-file --emulate",
     .plus_options = true},
    {.names = "fish",
     .stop = "c",
     .value = "Cdofp",
     .stop_words = "--command",
     .value_words = "--init-command --debug --debug-output --features --profile "
                    "--profile-startup"},
    {.names = "python pypy",
     .stop = "cm",
     .value = "WXQ",
     .value_words = "--check-hash-based-pycs"},
    {.names = "node nodejs",
     .stop = "ep",
     .value = "rC",
     .stop_words = "--eval --print --run --test",
     .value_words = "--require --import --loader --experimental-loader --conditions "
                    "--input-type --env-file --title --inspect-port --redirect-warnings"},
    {.names = "deno",
     .stop = "",
     .value = "cL",
     .value_words = "--config --import-map --cert --location --seed --log-level --ext",
     .run_words = "run serve",
     .other_words = "eval repl task test bench fmt lint check compile install"},
    {.names = "bun",
     .stop = "ep",
     .value = "r",
     .stop_words = "--eval --print",
     .value_words = "--preload --config --env-file --tsconfig-override --conditions",
     .run_words = "run",
     .other_words = "x exec test install add remove update link unlink pm build init create "
                    "upgrade repl"},
    {.names = "perl", .stop = "eE", .value = "I", .attached = "CdDiMmxV"},
    {.names = "ruby",
     .stop = "e",
     .value = "ICEr",
     .attached = "FKTWx0",
     .value_words = "--encoding --external-encoding --internal-encoding"},
    {.names = "php", .stop = "rRBEa", .value = "cdztS", .script = "fF"},
    {.names = "lua luajit", .stop = "eb", .value = "lj", .attached = "O"},
    {.names = "tclsh wish", .stop = "", .value = "", .value_words = "-encoding"},
}};

bool HasWord(absl::string_view words, absl::string_view word) {
  for (absl::string_view w : absl::StrSplit(words, ' ', absl::SkipEmpty())) {
    if (w == word) return true;
  }
  return false;
}

bool HasLetter(absl::string_view letters, char c) {
  return letters.find(c) != absl::string_view::npos;
}

const Interpreter* FindInterpreter(absl::string_view name) {
  for (const Interpreter& in : kInterpreters) {
    if (HasWord(in.names, name)) return &in;
  }
  return nullptr;
}

// The index of the script `in` runs, reading argv from `start`.
std::optional<size_t> Script(const Interpreter& in, const std::vector<std::string>& argv,
                             size_t start) {
  bool subcommand_seen = false;
  for (size_t i = start; i < argv.size(); ++i) {
    absl::string_view a = argv[i];
    if (a == "--") return i + 1 < argv.size() ? std::optional<size_t>(i + 1) : std::nullopt;
    if (a == "-") return std::nullopt;  // the script is standard input
    const bool option = a.size() > 1 && (a[0] == '-' || (in.plus_options && a[0] == '+'));
    if (!option) {
      if (!subcommand_seen && HasWord(in.run_words, a)) {
        subcommand_seen = true;
        continue;
      }
      if (!subcommand_seen && HasWord(in.other_words, a)) return std::nullopt;
      return i;
    }
    absl::string_view word = a.substr(0, a.find('='));
    if (HasWord(in.stop_words, word)) return std::nullopt;
    if (HasWord(in.value_words, word)) {
      if (word.size() == a.size()) ++i;
      continue;
    }
    if (absl::StartsWith(a, "--")) continue;  // a long option without a value
    for (size_t j = 1; j < a.size(); ++j) {
      const char c = a[j];
      const bool ends_cluster = j + 1 == a.size();
      if (HasLetter(in.stop, c)) return std::nullopt;
      if (HasLetter(in.script, c)) {
        // "-f FILE"; a file written in the cluster ("-fFILE") is not found.
        if (!ends_cluster || i + 1 >= argv.size()) return std::nullopt;
        return i + 1;
      }
      if (HasLetter(in.value, c)) {
        if (ends_cluster) ++i;
        break;
      }
      if (HasLetter(in.attached, c)) break;
    }
  }
  return std::nullopt;
}

// True when `option` (lowercased, without its '-') is one of `names` or a
// prefix of at least `min` characters of one of `long_names`. PowerShell
// takes any unambiguous prefix of a parameter's name.
bool PwshOption(absl::string_view option, absl::string_view names, absl::string_view long_names,
                size_t min) {
  if (HasWord(names, option)) return true;
  if (option.size() < min) return false;
  for (absl::string_view n : absl::StrSplit(long_names, ' ', absl::SkipEmpty())) {
    if (absl::StartsWith(n, option)) return true;
  }
  return false;
}

// pwsh: parameters are words with one '-', in any case; the first argument
// that is not a parameter is the script (as after -File).
std::optional<size_t> PwshScript(const std::vector<std::string>& argv, size_t start) {
  for (size_t i = start; i < argv.size(); ++i) {
    const std::string a = absl::AsciiStrToLower(argv[i]);
    if (a.size() < 2 || a[0] != '-') return a == "-" ? std::nullopt : std::optional<size_t>(i);
    absl::string_view option = absl::string_view(a).substr(1);
    option = option.substr(0, option.find(':'));
    if (PwshOption(option, "f", "file", 2)) {
      return i + 1 < argv.size() ? std::optional<size_t>(i + 1) : std::nullopt;
    }
    if (PwshOption(option, "c e ec cwa", "command commandwithargs encodedcommand", 3)) {
      return std::nullopt;
    }
    if (PwshOption(option, "ep ex wd of if o w",
                   "executionpolicy workingdirectory configurationname configurationfile "
                   "outputformat inputformat settingsfile windowstyle custompipename",
                   3)) {
      ++i;
    }
  }
  return std::nullopt;
}

}  // namespace

absl::string_view ProgramName(absl::string_view program) {
  size_t slash = program.rfind('/');
  if (slash != absl::string_view::npos) program.remove_prefix(slash + 1);
  while (!program.empty() && (absl::ascii_isdigit(static_cast<unsigned char>(program.back())) ||
                              program.back() == '.')) {
    program.remove_suffix(1);
  }
  return program;
}

std::optional<size_t> InterpreterScript(const std::vector<std::string>& argv, size_t program) {
  const absl::string_view name = ProgramName(argv[program]);
  if (name == "pwsh" || name == "powershell") return PwshScript(argv, program + 1);
  if (const Interpreter* in = FindInterpreter(name)) return Script(*in, argv, program + 1);
  return std::nullopt;
}

}  // namespace raw::config
