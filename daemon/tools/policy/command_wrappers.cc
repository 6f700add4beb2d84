#include "daemon/tools/policy/command_wrappers.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/tools/policy/shell_words.h"

namespace raw::tools::policy {
namespace {

// The options of a prefix command. Long options are listed by name with a
// suffix: "=" takes a value, "?" takes an optional "=value", "!" means the
// command runs nothing (it lists, edits, prints help), none is a flag.
struct PrefixSpec {
  std::string_view name;
  std::string_view flags;         // short options without a value
  std::string_view valued;        // short options with a value (attached or the next word)
  std::string_view optional;      // short options with an optional attached value
  std::string_view runs_nothing;  // short options after which no command runs
  std::string_view long_options;  // space separated, see above
  int operands = 0;               // words before the command (timeout's duration)
  // NAME=VALUE words may come before the command; they stay part of it (the
  // command rules see is "NAME=VALUE cmd …", as if written without the
  // prefix), because they change what it does.
  bool assignments = false;
  bool numeric = false;           // "-N" is an option (nice -5)
};

constexpr PrefixSpec kPrefixes[] = {
    {"command", "p", "", "", "vV", "", 0, false, false},
    {"builtin", "", "", "", "", "", 0, false, false},
    {"exec", "cl", "a", "", "", "", 0, false, false},
    {"env", "i0v", "uCS", "", "",
     "ignore-environment null debug unset= chdir= split-string= "
     "block-signal? default-signal? ignore-signal? list-signal-handling",
     0, true, false},
    {"nohup", "", "", "", "", "", 0, false, false},
    {"nice", "", "n", "", "", "adjustment=", 0, false, true},
    {"time", "pavq", "fo", "", "", "format= output= append verbose quiet portability", 0, false,
     false},
    {"timeout", "v", "ks", "", "", "kill-after= signal= preserve-status foreground verbose", 1,
     false, false},
    {"xargs", "0oprtx", "adELInPs", "eil", "",
     "null arg-file= delimiter= eof? replace? "
     "max-lines? max-args= max-procs= max-chars= interactive no-run-if-empty verbose exit "
     "show-limits open-tty process-slot-var=",
     0, false, false},
    {"sudo", "AbBEHiknNPSs", "CDgprRtTuU", "", "eKlvVh",
     "askpass background bell "
     "preserve-env? set-home login non-interactive preserve-groups stdin shell user= group= "
     "close-from= chdir= host= prompt= role= type= other-user= command-timeout= chroot= "
     "remove-timestamp! list! validate! version! edit! help!",
     0, true, false},
    {"doas", "ns", "u", "", "LC", "", 0, false, false},
    {"stdbuf", "", "ioe", "", "", "input= output= error=", 0, false, false},
    {"setsid", "cfw", "", "", "", "ctty fork wait", 0, false, false},
    {"coproc", "", "", "", "", "", 0, false, false},
    {"busybox", "", "", "", "", "", 0, false, false},
};

constexpr std::string_view kShells[] = {"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash"};

// Shells whose command language is not bash's: what they run is not read.
constexpr std::string_view kOtherShells[] = {"fish", "csh",  "tcsh", "nu",
                                             "elvish", "xonsh", "pwsh", "powershell"};

// Programs that run commands this analysis does not read: their options are
// not modelled, they read the commands from their input or a file, or what
// they run is not the command a rule would see (chroot runs another root's
// programs, ssh another machine's, su and runuser another user's shell).
constexpr std::string_view kUnreadRunners[] = {
    "flock",    "ionice",     "chroot",      "su",       "runuser",     "script",
    "watch",    "ssh",        "parallel",    "pkexec",   "strace",      "ltrace",
    "unshare",  "nsenter",    "firejail",    "systemd-run", "taskset", "chrt",
    "numactl",  "cgexec",     "unbuffer",    "expect",   "sg",          "newgrp",
    "runcon",   "setpriv",    "proot",       "fakeroot", "faketime",    "torsocks",
    "proxychains", "proxychains4", "catchsegv", "valgrind", "xvfb-run", "dbus-launch",
    "dbus-run-session", "tmux", "screen",    "at",       "batch",       "entr",
    "rlwrap",   "nix-shell",  "bwrap",       "sshpass",  "chpst",       "daemonize",
};

// A script operand that is really the line's input or a command's output
// (/dev/stdin, "<(curl …)"): the script is what some command produces.
bool ReadsGeneratedScript(const ShellWord& word) {
  return word.text.starts_with("<(") || word.value == "/dev/stdin" ||
         word.value.starts_with("/dev/fd/") || word.value.starts_with("/proc/self/fd/");
}

Wrapped Unknown(std::string reason) {
  Wrapped w;
  w.kind = Wrapped::Kind::kUnknown;
  w.reason = std::move(reason);
  return w;
}

// A command line made of the values of `words`; approximate (with a reason)
// when any is not literal.
Wrapped Line(const std::string& who, const std::vector<ShellWord>& words, size_t first) {
  Wrapped w;
  w.kind = Wrapped::Kind::kLine;
  for (size_t i = first; i < words.size(); ++i) {
    absl::StrAppend(&w.line, i > first ? " " : "", words[i].value);
    if (!words[i].literal && w.reason.empty()) {
      w.reason = absl::StrCat("the command line \"", who, "\" runs is only known when it runs");
    }
  }
  return w;
}

// How the long option `name` (without "--" and "=value") is described in
// `options`: '=', '?', '!' or ' ' (a flag); 0 when unknown.
char LongOption(std::string_view options, std::string_view name) {
  while (!options.empty()) {
    size_t space = options.find(' ');
    std::string_view option = options.substr(0, space);
    options = space == std::string_view::npos ? "" : options.substr(space + 1);
    if (option.empty()) continue;
    char kind =
        option.back() == '=' || option.back() == '?' || option.back() == '!' ? option.back() : ' ';
    if (kind != ' ') option.remove_suffix(1);
    if (option == name) return kind;
  }
  return 0;
}

// The assignment `value` ("NAME=anything") written so that a shell reads it
// as that assignment: its value single-quoted.
std::string AsAssignment(std::string_view value) {
  size_t equals = value.find('=');
  std::string text(value.substr(0, equals + 1));
  text += '\'';
  for (char c : value.substr(equals + 1)) {
    if (c == '\'') {
      text += "'\\''";
    } else {
      text += c;
    }
  }
  text += '\'';
  return text;
}

// xargs -I and find's actions put what they read or find in place of
// `replaced` ("{}") in the words they run: such a word is only known then
// (bash -c {} runs a file's name as a command line).
void MarkReplaced(std::vector<ShellWord>& command, std::string_view replaced) {
  if (replaced.empty()) return;
  for (ShellWord& word : command) {
    if (word.value.find(replaced) != std::string::npos) word.literal = false;
  }
}

Wrapped UnwrapPrefix(const PrefixSpec& spec, const std::vector<ShellWord>& words) {
  const std::string& name = words[0].value;
  auto unknown_option = [&](std::string_view option) {
    std::string text(option);
    return Unknown(absl::StrCat("cannot tell which command \"", name, "\" runs (option \"", text,
                                "\" is not understood)"));
  };
  bool shell = false;                // sudo -s/-i, doas -s: without a command, a shell reads input
  bool chdir = false;                // env -C, sudo -D, --chdir
  bool replaces = false;             // xargs -I/-i: no arguments are appended
  std::string replace_string;        // what xargs -I/-i replaces with what it reads
  std::optional<std::string> split;  // env -S: a command line
  size_t i = 1;
  // An option's value: `attached` ("-n5", "--signal=KILL") or the next word.
  auto value = [&](std::optional<std::string_view> attached) -> std::string {
    if (attached) return std::string(*attached);
    return ++i < words.size() ? words[i].value : "";
  };
  for (; i < words.size() && !split; ++i) {
    const ShellWord& word = words[i];
    if (!word.literal) {
      return Unknown(absl::StrCat("cannot tell which command \"", name, "\" runs (\"", word.text,
                                  "\" is only known when the line runs)"));
    }
    std::string_view v = word.value;
    if (v == "--") {
      ++i;
      break;
    }
    if (v == "-" && name == "env") continue;  // like -i
    if (v.size() < 2 || v[0] != '-') break;
    if (spec.numeric && absl::ascii_isdigit(static_cast<unsigned char>(v[1]))) continue;
    if (v.starts_with("--")) {
      std::string_view option = v.substr(2);
      std::string_view option_name = option.substr(0, option.find('='));
      std::optional<std::string_view> attached;
      if (option.size() > option_name.size()) attached = option.substr(option_name.size() + 1);
      char kind = LongOption(spec.long_options, option_name);
      if (kind == 0) return unknown_option(v);
      if (kind == '!') return {};
      replaces = replaces || option_name == "replace";
      if (option_name == "replace") replace_string = attached ? std::string(*attached) : "{}";
      chdir = chdir || option_name == "chdir";
      std::string given = kind == '=' ? value(attached) : "";
      if (option_name == "split-string") split = given;
      continue;
    }
    for (size_t j = 1; j < v.size(); ++j) {
      char c = v[j];
      if (spec.runs_nothing.find(c) != std::string_view::npos) return {};
      shell = shell || ((name == "sudo" || name == "doas") && (c == 's' || c == 'i'));
      replaces = replaces || (name == "xargs" && (c == 'I' || c == 'i'));
      if (name == "xargs" && c == 'i') {
        replace_string = j + 1 < v.size() ? std::string(v.substr(j + 1)) : "{}";
      }
      chdir = chdir || (name == "env" && c == 'C') || (name == "sudo" && c == 'D');
      if (spec.flags.find(c) != std::string_view::npos) continue;
      if (spec.optional.find(c) != std::string_view::npos) break;
      if (spec.valued.find(c) == std::string_view::npos) return unknown_option(v.substr(0, j + 1));
      std::optional<std::string_view> attached;
      if (j + 1 < v.size()) attached = v.substr(j + 1);
      std::string given = value(attached);
      if (name == "env" && c == 'S') split = given;
      if (name == "xargs" && c == 'I') replace_string = given;
      break;
    }
  }
  i = std::min(i, words.size());
  if (split) {  // env -S 'rm -f' x: the string split into words, then the rest
    std::vector<ShellWord> line{ShellWord{*split, *split, true}};
    line.insert(line.end(), words.begin() + static_cast<long>(i), words.end());
    return Line("env -S", line, 0);
  }
  i += static_cast<size_t>(spec.operands);
  std::vector<ShellWord> command(words.begin() + static_cast<long>(std::min(i, words.size())),
                                 words.end());
  size_t command_name = 0;  // past the assignments, which stay part of the command
  while (spec.assignments && command_name < command.size()) {
    ShellWord& word = command[command_name];
    if (!IsAssignment(word.text)) {
      // env and sudo take any word with "=" as an assignment once the shell
      // has removed its quotes ('A=1', "LD_PRELOAD=x"): written again as an
      // assignment, it is one for the command's analysis too.
      if (!word.literal || word.value.find('=') == std::string::npos) break;
      std::string text = AsAssignment(word.value);
      if (!IsAssignment(word.value) || !IsAssignment(text)) {
        return Unknown(absl::StrCat("\"", name, "\" sets the variable \"", word.value,
                                    "\", whose name a shell cannot set"));
      }
      word.text = std::move(text);
    }
    ++command_name;
  }
  MarkReplaced(command, replace_string);
  Wrapped w;
  if (command_name < command.size()) {
    w.kind = Wrapped::Kind::kCommand;
    w.commands.push_back(std::move(command));
  } else if (name == "xargs") {
    w.kind = Wrapped::Kind::kCommand;  // xargs runs echo by default
    w.commands.push_back({ShellWord{"echo", "echo", true}});
  } else if (shell) {
    return Unknown(absl::StrCat("\"", name,
                                "\" starts a shell that reads the commands it runs "
                                "from its input"));
  }
  w.appends_input = name == "xargs" && !replaces;
  w.changes_directory = chdir;
  return w;
}

Wrapped UnwrapShell(const std::vector<ShellWord>& words) {
  const std::string& name = words[0].value;
  bool command = false, input = false;
  size_t i = 1;
  for (; i < words.size(); ++i) {
    const ShellWord& word = words[i];
    std::string_view v = word.value;
    if (!word.literal && (v.empty() || v[0] == '-' || v[0] == '+' || !command)) {
      return Unknown(absl::StrCat("cannot tell what \"", name, "\" runs (\"", word.text,
                                  "\" is only known when the line runs)"));
    }
    if (v == "--" || v == "-") {
      ++i;
      break;
    }
    if (v.size() < 2 || (v[0] != '-' && v[0] != '+')) break;
    if (v.starts_with("--")) {
      if (v == "--rcfile" || v == "--init-file") ++i;
      continue;
    }
    for (char c : v.substr(1)) {
      command = command || c == 'c';
      input = input || c == 's';
      if (c == 'k' && v[0] == '-') return Unknown(kKeywordMode);
      if (c != 'o' && c != 'O') continue;
      ++i;  // -o pipefail, -O extglob
      if (c == 'o' && v[0] == '-' && i < words.size() &&
          (!words[i].literal || words[i].value == "keyword")) {
        return Unknown(kKeywordMode);
      }
    }
  }
  if (command && i < words.size()) {
    std::vector<ShellWord> string{words[i]};
    return Line(absl::StrCat(name, " -c"), string, 0);
  }
  // -c without its string: run alone, bash refuses it; run by a command
  // that appends arguments (xargs, find's -exec … {} +), the first of them
  // is the string, so what it runs is only known then.
  if (command) {
    return Unknown(absl::StrCat("cannot tell what \"", name,
                                " -c\" runs (its command string is not in the line)"));
  }
  if (input || i >= words.size() || ReadsGeneratedScript(words[i])) {
    return Unknown(absl::StrCat("\"", name, "\" reads the commands it runs from its input"));
  }
  return {};  // a script file: what it runs is not seen
}

Wrapped UnwrapTrap(const std::vector<ShellWord>& words) {
  size_t i = 1;
  if (i < words.size() && words[i].value == "--") ++i;
  if (i < words.size() && words[i].value.starts_with("-") && words[i].value != "-") {
    return {};  // -l, -p, -P: lists
  }
  if (words.size() - i < 2 || (words[i].literal && words[i].value == "-")) return {};
  std::vector<ShellWord> action{words[i]};
  return Line("trap", action, 0);
}

// find's actions -exec, -execdir, -ok and -okdir run the words after them
// up to ";" or "{} +" (to the end when unterminated, the stricter reading).
// A word whose value is only known when the line runs could be such an
// action or end one ("x=-exec; find . $x rm {} ;"), so it makes the line
// unknown.
Wrapped UnwrapFind(const std::vector<ShellWord>& words) {
  for (size_t i = 1; i < words.size(); ++i) {
    if (!words[i].literal) {
      return Unknown(absl::StrCat("cannot tell what \"find\" runs (\"", words[i].text,
                                  "\" is only known when the line runs)"));
    }
  }
  Wrapped w;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& v = words[i].value;
    if (v != "-exec" && v != "-execdir" && v != "-ok" && v != "-okdir") continue;
    w.changes_directory = w.changes_directory || v == "-execdir" || v == "-okdir";
    std::vector<ShellWord> command;
    for (++i; i < words.size(); ++i) {
      if (words[i].value == ";") break;
      if (words[i].value == "+" && !command.empty() && command.back().value == "{}") break;
      command.push_back(words[i]);
    }
    MarkReplaced(command, "{}");
    if (!command.empty()) w.commands.push_back(std::move(command));
  }
  if (!w.commands.empty()) w.kind = Wrapped::Kind::kCommand;
  return w;
}

}  // namespace

Wrapped UnwrapCommand(const std::vector<ShellWord>& words) {
  if (words.empty()) return {};
  const std::string& name = words[0].value;
  for (std::string_view shell : kShells) {
    if (name == shell) return UnwrapShell(words);
  }
  if (name == "eval") {
    size_t first = words.size() > 1 && words[1].value == "--" ? 2 : 1;
    return first < words.size() ? Line("eval", words, first) : Wrapped{};
  }
  if (name == "trap") return UnwrapTrap(words);
  if ((name == "source" || name == ".") && words.size() > 1 && ReadsGeneratedScript(words[1])) {
    return Unknown(absl::StrCat("\"", name, "\" reads the commands it runs from its input"));
  }
  for (std::string_view shell : kOtherShells) {
    if (name == shell) {
      return Unknown(absl::StrCat("cannot tell what \"", name,
                                  "\" runs (its command language is not read)"));
    }
  }
  for (std::string_view runner : kUnreadRunners) {
    if (name == runner) {
      return Unknown(absl::StrCat("cannot tell what \"", name,
                                  "\" runs (the commands it runs are not read)"));
    }
  }
  if (name == "find") return UnwrapFind(words);
  for (const PrefixSpec& spec : kPrefixes) {
    if (name == spec.name) return UnwrapPrefix(spec, words);
  }
  return {};
}

}  // namespace raw::tools::policy
