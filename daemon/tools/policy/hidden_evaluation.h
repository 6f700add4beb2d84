// HiddenEvaluation: whether a simple command makes bash evaluate text as
// code later, where no static reading of the line sees what runs. Bash
// evaluates array subscripts in arithmetic and in variable names given as
// text, so `read "$x"` or `[[ $n -gt 1 ]]` can run a command hidden in a
// value. Covered: let; declare, typeset, local, readonly and export with a
// name that is not plain or with -i/-n; read, unset, mapfile/readarray,
// getopts, printf -v, wait -p, test/[ -v and [[ -v with such a name;
// mapfile -C; arithmetic comparisons in [[ … ]] on anything but integers.
// Pure; thread-safe.
#pragma once

#include <vector>

#include "daemon/tools/policy/command_splitter.h"

namespace raw::tools::policy {

// `words` is a simple command from its name on (no leading assignments or
// redirections). Returns why bash may run hidden commands, or null.
const char* HiddenEvaluation(const std::vector<ShellWord>& words);

}  // namespace raw::tools::policy
