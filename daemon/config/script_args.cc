#include "daemon/config/script_args.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "daemon/config/interpreter_script.h"
#include "daemon/config/wrapper_args.h"

namespace raw::config {
namespace {

// A command being read: its words, and for each the argument of argv it
// comes from. A word of env -S's string is not an argument of its own.
struct Origin {
  size_t index;
  bool in_string = false;
};
struct Command {
  std::vector<std::string> words;
  std::vector<Origin> origins;
};

// Whether what is found now is resolved, and why not.
struct Where {
  bool resolvable = true;
  std::string reason;
};

struct Findings {
  std::vector<size_t> scripts;
  std::vector<UnresolvedArgument> unresolved;
};

bool Relative(absl::string_view arg) { return !arg.empty() && arg[0] != '/'; }

void Report(const Command& cmd, size_t i, const Where& where, Findings& out) {
  const Origin& origin = cmd.origins[i];
  if (cmd.words[i].empty()) return;
  if (where.resolvable && !origin.in_string) {
    out.scripts.push_back(origin.index);
  } else if (Relative(cmd.words[i])) {
    out.unresolved.push_back(
        {origin.index, origin.in_string && where.resolvable
                           ? "in the string of env -S, which the config does not rewrite"
                           : where.reason});
  }
}

// env -S's string as env splits it; `exact` is false when the string holds
// quotes, escapes, variables or a comment, which are then only dropped.
std::vector<std::string> SplitString(absl::string_view s, bool& exact) {
  exact = s.find_first_of("'\"\\$#") == absl::string_view::npos;
  std::string text(s);
  if (!exact) {
    text = absl::StrReplaceAll(text, {{"\\_", " "}, {"\\t", " "}, {"\\n", " "}});
    text.erase(std::remove_if(text.begin(), text.end(),
                              [](char c) { return c == '\'' || c == '"' || c == '\\'; }),
               text.end());
  }
  return absl::StrSplit(text, absl::ByAnyChar(" \t\n\v\f\r"), absl::SkipEmpty());
}

void Walk(const Command& cmd, size_t start, Where where, Findings& out, std::vector<bool>* walked);

// Every argument from `from` on that holds a '/' or is found reading the
// command from there is unresolved: `cmd` cannot be taken apart past it.
void Scan(const Command& cmd, size_t from, const std::string& reason, Findings& out) {
  const Where where{false, reason};
  std::vector<bool> walked(cmd.words.size(), false);
  for (size_t j = from; j < cmd.words.size(); ++j) {
    if (cmd.words[j].find('/') != std::string::npos) Report(cmd, j, where, out);
    Walk(cmd, j, where, out, &walked);
  }
}

// Reads env's arguments (cmd.words[program] names it): the program it
// starts, or `resplit`, the command env reads anew when -S splits a string
// (its program at 0). -C makes `where` unresolvable.
WrapperNext ReadEnv(const Command& cmd, size_t program, Where& where, Findings& out,
                    std::optional<Command>& resplit) {
  const std::vector<std::string>& argv = cmd.words;
  size_t i = program + 1;
  for (; i < argv.size(); ++i) {
    absl::string_view a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-") continue;          // as -i
    std::optional<size_t> value_at;  // of -C or -S: where it starts in argv[value_index]
    size_t value_index = i;
    char option = 0;
    if (a.size() > 1 && absl::StartsWith(a, "--")) {
      absl::string_view word = a.substr(0, a.find('='));
      absl::string_view name = WrapperLongOption(EnvWrapper(), word);
      if (name.empty()) {
        return UnknownOption(i, a, "env");
      }
      if (name == "--help" || name == "--version") return {};
      if (!InWordList(EnvWrapper().long_values, name)) continue;
      if (word.size() == a.size()) {
        value_index = ++i;
        value_at = 0;
      } else {
        value_at = word.size() + 1;
      }
      option = name == "--chdir" ? 'C' : name == "--split-string" ? 'S' : 'u';
    } else if (a.size() > 1 && a[0] == '-') {
      for (size_t j = 1; j < a.size(); ++j) {
        if (EnvWrapper().value.find(a[j]) != absl::string_view::npos) {
          option = a[j];
          if (j + 1 == a.size()) {
            value_index = ++i;
            value_at = 0;
          } else {
            value_at = j + 1;
          }
          break;
        }
        if (EnvWrapper().flags.find(a[j]) == absl::string_view::npos) {
          return UnknownOption(i, a, "env");
        }
      }
    } else if (a.find('=') == absl::string_view::npos) {
      break;  // not NAME=value: the program
    }
    if (value_index >= argv.size()) return {};
    if (option == 'C') {
      where = {false, "after env -C, which runs the command in another directory"};
    } else if (option == 'S') {
      bool exact = true;
      const Origin origin{cmd.origins[value_index].index, true};
      std::vector<std::string> words =
          SplitString(absl::string_view(argv[value_index]).substr(*value_at), exact);
      if (!exact) {
        where = {false,
                 "in the string of env -S, which holds quotes, escapes, variables or a comment "
                 "and is split only roughly"};
        for (const std::string& w : words) {
          if (w.find('/') != std::string::npos && Relative(w)) {
            out.unresolved.push_back({origin.index, where.reason});
          }
        }
      }
      // env reads the words in the string's place, then what follows it.
      Command next;
      next.words = {argv[program]};
      next.origins = {cmd.origins[program]};
      for (std::string& w : words) {
        next.words.push_back(std::move(w));
        next.origins.push_back(origin);
      }
      for (size_t k = value_index + 1; k < argv.size(); ++k) {
        next.words.push_back(argv[k]);
        next.origins.push_back(cmd.origins[k]);
      }
      resplit = std::move(next);
      return {};
    }
  }
  if (i >= argv.size()) return {};
  return {WrapperNext::Kind::kProgram, i, ""};
}

// Programs that start a program given among their arguments, with options
// too many or too varied to read reliably (see the header).
bool IsOpaqueLauncher(absl::string_view name) {
  static constexpr absl::string_view kLaunchers[] = {
      "sudo",     "doas",  "runuser", "setpriv", "strace",   "ltrace",  "valgrind",
      "time",     "watch", "nsenter", "unshare", "chroot",   "prlimit", "systemd-run",
      "firejail", "bwrap", "capsh",   "script",  "faketime", "proot"};
  return std::find(std::begin(kLaunchers), std::end(kLaunchers), name) != std::end(kLaunchers);
}

// Reads `cmd` from its program at `start` (see the header). Within a Scan,
// `walked` marks the programs read already, and a command that cannot be
// taken apart ends the walk: the Scan reads all that follows it anyway.
// Iterative, so that a long chain of wrappers needs no deep stack.
void Walk(const Command& cmd, size_t start, Where where, Findings& out, std::vector<bool>* walked) {
  const Command* current = &cmd;
  std::optional<Command> owned;  // the command env -S made
  size_t program = start;
  while (program < current->words.size()) {
    if (walked != nullptr) {
      if ((*walked)[program]) return;
      (*walked)[program] = true;
    }
    const absl::string_view name = ProgramName(current->words[program]);
    WrapperNext next;
    if (name == "env") {
      std::optional<Command> resplit;
      next = ReadEnv(*current, program, where, out, resplit);
      if (resplit) {
        // The walk goes on in the new command: a Scan's marks do not apply.
        owned = *std::move(resplit);
        current = &*owned;
        walked = nullptr;
        program = 0;
        continue;
      }
    } else if (name == "xargs") {
      next = {WrapperNext::Kind::kOpaque, program + 1,
              "after xargs, which adds what it reads to its command's arguments"};
    } else if (IsOpaqueLauncher(name)) {
      next = {WrapperNext::Kind::kOpaque, program + 1,
              absl::StrCat("after ", name, ", whose options Raw does not read")};
    } else {
      const Wrapper* wrapper = FindWrapper(name);
      if (wrapper == nullptr) {
        std::optional<size_t> script = InterpreterScript(current->words, program);
        if (script) Report(*current, *script, where, out);
        return;
      }
      next = ReadWrapper(*wrapper, current->words, program);
    }
    switch (next.kind) {
      case WrapperNext::Kind::kNothing:
        return;
      case WrapperNext::Kind::kOpaque:
        if (walked == nullptr) Scan(*current, next.index, next.reason, out);
        return;
      case WrapperNext::Kind::kProgram:
        program = next.index;
        if (current->words[program].find('/') != std::string::npos) {
          Report(*current, program, where, out);
        }
        break;
    }
  }
}

Findings FindAll(const std::vector<std::string>& argv) {
  Findings out;
  if (argv.empty()) return out;
  Command cmd;
  cmd.words = argv;
  for (size_t i = 0; i < argv.size(); ++i) cmd.origins.push_back({i});
  Walk(cmd, 0, Where{}, out, nullptr);
  std::stable_sort(out.unresolved.begin(), out.unresolved.end(),
                   [](const auto& a, const auto& b) { return a.index < b.index; });
  out.unresolved.erase(std::unique(out.unresolved.begin(), out.unresolved.end(),
                                   [](const auto& a, const auto& b) { return a.index == b.index; }),
                       out.unresolved.end());
  std::sort(out.scripts.begin(), out.scripts.end());
  out.scripts.erase(std::unique(out.scripts.begin(), out.scripts.end()), out.scripts.end());
  std::erase_if(out.scripts, [&](size_t i) {
    return std::any_of(out.unresolved.begin(), out.unresolved.end(),
                       [i](const UnresolvedArgument& u) { return u.index == i; });
  });
  return out;
}

}  // namespace

std::vector<size_t> ScriptArguments(const std::vector<std::string>& argv) {
  return FindAll(argv).scripts;
}

std::vector<UnresolvedArgument> UnresolvedArguments(const std::vector<std::string>& argv) {
  return FindAll(argv).unresolved;
}

}  // namespace raw::config
