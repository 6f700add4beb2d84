// How the wrappers that start a program given as their arguments (timeout,
// nice, nohup, setsid, stdbuf, ionice, chrt, taskset, flock, env) read
// their options and operands, as GNU coreutils and util-linux read them;
// the part of ScriptArguments (script_args.h) that takes them apart.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace raw::config {

// How a wrapper reads its arguments before the program it starts (GNU
// getopt with a leading '+': options end at the first operand). Word lists
// are separated by spaces.
struct Wrapper {
  absl::string_view names;
  // Short options (letters of a cluster such as "-vk5"): one of `flags`
  // takes no value; one of `value` takes the rest of the cluster or, when
  // it ends the cluster, the next argument; after one of `stop` the wrapper
  // runs no program.
  absl::string_view flags = "";
  absl::string_view value = "";
  absl::string_view stop = "hV";
  // Long options, written "--name", "--name=value" or as a unique prefix.
  absl::string_view long_flags = "";
  absl::string_view long_values = "";
  absl::string_view long_stops = "";
  size_t operands = 0;              // before the program: DURATION, PRIORITY, MASK, FILE
  bool numeric_operand = false;     // chrt: an operand not all digits is the program
  bool number_options = false;      // nice: "-5", "--5", "-+5" set the adjustment
  bool code_after_operand = false;  // flock: "FILE -c CODE" runs shell code
};

// What a wrapper's arguments lead to.
struct WrapperNext {
  enum class Kind { kNothing, kProgram, kOpaque };
  Kind kind = Kind::kNothing;
  size_t index = 0;    // kProgram: the program; kOpaque: where reading stopped
  std::string reason;  // kOpaque: why, completing "\"x\" is a relative path <reason>"
};

// The wrapper of base name `name` (env excepted); nullptr when none.
const Wrapper* FindWrapper(absl::string_view name);

// env's options; -C and -S take a value, read by the caller.
const Wrapper& EnvWrapper();

// True when `word` is one of the space-separated `words`.
bool InWordList(absl::string_view words, absl::string_view word);

// The long option `word` ("--name", without "=value") names in `w`, the
// whole name or a unique prefix of one; "" when none. "--help" and
// "--version" are options of every wrapper.
absl::string_view WrapperLongOption(const Wrapper& w, absl::string_view word);

// A kOpaque at `i`, whose option `option` is not one of `wrapper`'s.
WrapperNext UnknownOption(size_t i, absl::string_view option, absl::string_view wrapper);

// Reads the options of wrapper `w` (argv[program] names it) and its
// operands: the program it starts, nothing, or kOpaque at an option not
// known.
WrapperNext ReadWrapper(const Wrapper& w, const std::vector<std::string>& argv, size_t program);

}  // namespace raw::config
