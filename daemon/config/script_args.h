// ScriptArguments: which arguments of a command name a file that it runs
// as a program, besides argv[0]. A hook or variable command runs in a
// directory the config does not choose (a hook in the session's, which the
// project controls), so `["sh", "hooks/guard.sh"]` would run the project's
// hooks/guard.sh; the config resolves such an argument as it resolves a
// program path (config_path.h), and a package its package's directory.
// UnresolvedArguments: the relative arguments that may name such a file
// but cannot be resolved that way; the config refuses the command.
//
// Found:
//  - the script of an interpreter: argv[0]'s base name, version digits
//    dropped ("python3.12" is "python"), is sh, bash, dash, zsh, ksh, mksh,
//    ash, yash, fish, python, pypy, node, nodejs, deno, bun, perl, ruby,
//    php, lua, luajit, tclsh, wish, pwsh or powershell. The script is the
//    first argument that is not an option, skipping the values of the
//    options that take one (`bash -o pipefail x.sh`, `python3 -W ignore
//    x.py`), and a leading `run` of deno and bun; php's `-f FILE` and
//    pwsh's `-File FILE` name it. After an option whose value is code or
//    that runs no script file (`-c` of the shells and python, `-m` of
//    python, `-e`/`-p`/`--eval`/`--print` of node and bun, `-e`/`-E` of
//    perl, `-e` of ruby and lua, `-r` of php, pwsh's `-Command`, a deno or
//    bun subcommand other than `run` (`deno eval`, `deno task`, `bun
//    test`), `-s` of the shells, `-` for standard input) there is none.
//  - after a wrapper, the program it starts when that holds a '/' (a bare
//    name is looked up on PATH), and that program's script as above, or
//    what the program it starts finds when it is a wrapper in turn
//    (`env A=1 timeout 5 nice sh x.sh`). The wrappers, read as GNU
//    coreutils and util-linux read them (options end at the first operand
//    or at `--`; a long option may be shortened to a unique prefix):
//      env [OPTION|NAME=value]... PROGRAM   (-u NAME, -a NAME, -C DIR, -S STRING)
//      timeout [OPTION]... DURATION PROGRAM (-s SIGNAL, -k DURATION)
//      nice [OPTION]... PROGRAM             (-n N, -N, --adjustment=N)
//      nohup PROGRAM
//      setsid [OPTION]... PROGRAM
//      stdbuf [OPTION]... PROGRAM           (-i/-o/-e MODE)
//      ionice [OPTION]... PROGRAM           (-c CLASS, -n LEVEL, -t)
//      chrt [OPTION]... PRIORITY PROGRAM    (a PRIORITY not all digits is
//                                            taken as the program)
//      taskset [OPTION]... MASK PROGRAM     (-c reads MASK as a list)
//      flock [OPTION]... FILE PROGRAM       (-w SECONDS, -E CODE)
//    The operands before PROGRAM (DURATION, PRIORITY, MASK, FILE) and the
//    values of options are never taken for a program or a script. Nothing
//    is found, and nothing refused, when the wrapper runs no program: no
//    PROGRAM, `ionice -p/-P/-u`, `chrt -p/-m`, `taskset -p`, `flock FILE
//    -c CODE` (shell code, as `sh -c`), `--help`, `--version`.
//
// Unresolved (each relative: not starting with '/'; "~/x" given to a
// program is relative too):
//  - behind `env -C DIR`: the program when it holds a '/', and its script,
//    found as above; they are relative to DIR, not to the command's
//    directory, so resolving them against the config's would change them.
//  - in the string of `env -S STRING` (split at blanks, as env splits one
//    without quotes, backslashes, '$' or '#'; the words then read as
//    arguments of env in its place): a program or script found in it, at
//    the index of STRING, which is not rewritten. A STRING with quotes,
//    backslashes, '$' or '#' is split roughly (quotes and backslashes
//    dropped) and, besides what is found in it, each of its words holding
//    a '/' is unresolved, as is everything found behind it.
//  - after `xargs` (it adds what it reads to its command's arguments),
//    after a program that starts another but whose many options are not
//    read here (sudo, doas, runuser, setpriv, strace, ltrace, valgrind,
//    time, watch, nsenter, unshare, chroot, prlimit, systemd-run, firejail,
//    bwrap, capsh, script, faketime, proot) and after an option of a
//    wrapper that is not known: every argument holding a '/', and
//    everything found when reading the command from any later argument
//    (`xargs -n1 sh x.sh`, `sudo -u ci sh x.sh`: x.sh).
// Other programs are not taken apart: their arguments are neither found
// nor unresolved.
//
// Pure functions of their argument; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace raw::config {

// The indices (each above 0, in increasing order) of the arguments of
// `argv` found as above.
std::vector<size_t> ScriptArguments(const std::vector<std::string>& argv);

struct UnresolvedArgument {
  size_t index;        // into argv, above 0
  std::string reason;  // where it is, completing "\"x\" is a relative path <reason>"
};

// The arguments of `argv` unresolved as above, in increasing order of
// index, each once; none of them is among ScriptArguments(argv).
std::vector<UnresolvedArgument> UnresolvedArguments(const std::vector<std::string>& argv);

}  // namespace raw::config
