// ScriptArguments: which arguments of a command name a file that it runs
// as a program, besides argv[0]. A hook or variable command runs in a
// directory the config does not choose (a hook in the session's, which the
// project controls), so `["sh", "hooks/guard.sh"]` would run the project's
// hooks/guard.sh; the config resolves such an argument as it resolves a
// program path (config_path.h), and a package its package's directory.
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
//  - after `env` (its options and NAME=value assignments skipped): the
//    program it starts when that holds a '/' (a bare name is looked up on
//    PATH), and that program's script as above. `env -C DIR` and `env -S`
//    are not taken apart: nothing after them is found.
// Other wrappers (`timeout`, `nice`, `xargs`) are not taken apart.
//
// Pure function of its argument; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace raw::config {

// The indices (each above 0, in increasing order) of the arguments of
// `argv` found as above.
std::vector<size_t> ScriptArguments(const std::vector<std::string>& argv);

}  // namespace raw::config
