#include "daemon/config/wrapper_args.h"

#include <algorithm>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace raw::config {
namespace {

constexpr std::array<Wrapper, 9> kWrappers = {{
    {.names = "timeout",
     .flags = "v",
     .value = "ks",
     .stop = "",
     .long_flags = "--preserve-status --foreground --verbose",
     .long_values = "--kill-after --signal",
     .operands = 1},
    {.names = "nice",
     .value = "n",
     .stop = "",
     .long_values = "--adjustment",
     .number_options = true},
    {.names = "nohup", .stop = ""},
    {.names = "setsid", .flags = "cfw", .long_flags = "--ctty --fork --wait"},
    {.names = "stdbuf", .value = "ioe", .stop = "", .long_values = "--input --output --error"},
    {.names = "ionice",
     .flags = "t",
     .value = "cn",
     .stop = "pPuhV",
     .long_flags = "--ignore",
     .long_values = "--class --classdata",
     .long_stops = "--pid --pgid --uid"},
    {.names = "chrt",
     .flags = "abdfiorRv",
     .value = "TPD",
     .stop = "pmhV",
     .long_flags = "--all-tasks --batch --deadline --fifo --idle --other --rr --reset-on-fork "
                   "--verbose",
     .long_values = "--sched-runtime --sched-period --sched-deadline",
     .long_stops = "--pid --max",
     .operands = 1,
     .numeric_operand = true},
    {.names = "taskset",
     .flags = "ac",
     .stop = "phV",
     .long_flags = "--all-tasks --cpu-list",
     .long_stops = "--pid",
     .operands = 1},
    {.names = "flock",
     .flags = "sexnouF",
     .value = "wE",
     .long_flags = "--shared --exclusive --unlock --nonblocking --nb --close --no-fork --verbose",
     .long_values = "--wait --timeout --conflict-exit-code",
     .operands = 1,
     .code_after_operand = true},
}};

// env's options; -C and -S are read apart.
constexpr Wrapper kEnv = {.names = "env",
                          .flags = "iv0",
                          .value = "uaCS",
                          .stop = "",
                          .long_flags =
                              "--ignore-environment --null --debug --default-signal "
                              "--ignore-signal --block-signal --list-signal-handling",
                          .long_values = "--unset --argv0 --chdir --split-string"};

bool AllDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
}

}  // namespace

const Wrapper* FindWrapper(absl::string_view name) {
  for (const Wrapper& w : kWrappers) {
    if (InWordList(w.names, name)) return &w;
  }
  return nullptr;
}

const Wrapper& EnvWrapper() { return kEnv; }

bool InWordList(absl::string_view words, absl::string_view word) {
  for (absl::string_view w : absl::StrSplit(words, ' ', absl::SkipEmpty())) {
    if (w == word) return true;
  }
  return false;
}
// The long option `word` ("--name") names in `w`, exact or a unique prefix;
// "" when none.
absl::string_view WrapperLongOption(const Wrapper& w, absl::string_view word) {
  absl::string_view match;
  for (absl::string_view list :
       {w.long_flags, w.long_values, w.long_stops, absl::string_view("--help --version")}) {
    for (absl::string_view name : absl::StrSplit(list, ' ', absl::SkipEmpty())) {
      if (name == word) return name;
      if (absl::StartsWith(name, word) && word.size() > 2) {
        if (!match.empty() && match != name) return "";  // ambiguous
        match = name;
      }
    }
  }
  return match;
}

WrapperNext UnknownOption(size_t i, absl::string_view option, absl::string_view wrapper) {
  return {WrapperNext::Kind::kOpaque, i,
          absl::StrCat("after \"", option, "\", an option of ", wrapper, " not known")};
}

WrapperNext ReadWrapper(const Wrapper& w, const std::vector<std::string>& argv, size_t program) {
  const absl::string_view name = w.names;
  size_t i = program + 1;
  for (; i < argv.size(); ++i) {
    absl::string_view a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() < 2 || a[0] != '-') break;
    if (w.number_options && (absl::ascii_isdigit(static_cast<unsigned char>(a[1])) ||
                             ((a[1] == '-' || a[1] == '+') && a.size() > 2 &&
                              absl::ascii_isdigit(static_cast<unsigned char>(a[2]))))) {
      continue;
    }
    if (absl::StartsWith(a, "--")) {
      absl::string_view word = a.substr(0, a.find('='));
      absl::string_view option = WrapperLongOption(w, word);
      if (option.empty()) {
        return UnknownOption(i, a, name);
      }
      if (InWordList(w.long_stops, option) || option == "--help" || option == "--version")
        return {};
      if (InWordList(w.long_values, option) && word.size() == a.size()) ++i;
      continue;
    }
    for (size_t j = 1; j < a.size(); ++j) {
      const char c = a[j];
      if (w.stop.find(c) != absl::string_view::npos) return {};
      if (w.value.find(c) != absl::string_view::npos) {
        if (j + 1 == a.size()) ++i;
        break;
      }
      if (w.flags.find(c) == absl::string_view::npos) {
        return UnknownOption(i, a, name);
      }
    }
  }
  for (size_t k = 0; k < w.operands && i < argv.size(); ++k, ++i) {
    if (w.numeric_operand && !AllDigits(argv[i])) break;
  }
  if (i >= argv.size()) return {};
  if (w.code_after_operand && (argv[i] == "-c" || argv[i] == "--command")) return {};
  return {WrapperNext::Kind::kProgram, i, ""};
}
}  // namespace raw::config
