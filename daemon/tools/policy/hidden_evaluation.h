// HiddenEvaluation: whether a simple command makes bash evaluate text as
// code later, where no static reading of the line sees what runs. Bash
// evaluates array subscripts in arithmetic and in variable names given as
// text, so `read "$x"` or `[[ $n -gt 1 ]]` can run a command hidden in a
// value. Covered: let; declare, typeset, local, readonly and export with a
// name that is not plain or with -i/-n; read, unset, mapfile/readarray,
// getopts, printf -v, wait -p, test/[ -v and [[ -v with such a name;
// mapfile -C; arithmetic comparisons in [[ … ]] on anything but integers;
// `set -k` / `set -o keyword` / `shopt -o keyword` (keyword mode), after
// which NAME=value words anywhere in a command set its environment; and
// what makes a later command name run something else: `hash -p` (a path
// for a name), `enable -f` (a builtin loaded from a file), each also with a
// word only known when the line runs, and the reserved word `function` (a
// definition whose body follows on the next line; "f() {" does not split).
//
// AssignedNames: the variables a builtin or loop sets by name (read,
// printf -v, getopts, mapfile/readarray, wait -p, for, select, coproc);
// under `set -a`, or for a variable already exported (PATH, HOME), they
// reach the environment of later commands as NAME=value would.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "daemon/tools/policy/command_splitter.h"

namespace raw::tools::policy {

// `words` is a simple command from its name on (no leading assignments or
// redirections). Returns why bash may run hidden commands, or null.
const char* HiddenEvaluation(const std::vector<ShellWord>& words);

// `words` as for HiddenEvaluation. The plain names it assigns (a name that
// is not plain makes HiddenEvaluation report it instead).
std::vector<std::string> AssignedNames(const std::vector<ShellWord>& words);

}  // namespace raw::tools::policy
