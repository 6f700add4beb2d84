// InterpreterScript: which argument of an interpreter's command line is the
// script file it runs (the interpreter rules of script_args.h).
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace raw::config {

// The base name of a program path, its version digits dropped:
// "/usr/bin/python3.12" -> "python".
absl::string_view ProgramName(absl::string_view program);

// The index of the script that argv[program] runs when it is an
// interpreter (script_args.h lists them and their options); nullopt when it
// is none, or when it runs code given in an option, on standard input or no
// script at all. REQUIRES: program < argv.size().
std::optional<size_t> InterpreterScript(const std::vector<std::string>& argv, size_t program);

}  // namespace raw::config
