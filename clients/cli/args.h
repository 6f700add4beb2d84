// Command-line argument parsing for the `raw` subcommands.
//
// A command describes its options as OptionSpecs; ParseArgs splits the
// arguments into flags, option values and positionals. Accepted forms:
// `--name`, `--name VALUE`, `--name=VALUE`, a short alias such as `-h`, and
// `--` to end the options. A lone `-` is a positional. Pure functions, no
// state.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::cli {

struct OptionSpec {
  // kRepeatedValue: a value option that may be given more than once.
  enum class Kind { kFlag, kValue, kRepeatedValue };
  std::string name;   // "--agent"
  Kind kind = Kind::kFlag;
  std::string alias;  // optional short form, "-h"
};

enum class OptionOrder {
  // Options may follow positionals (`raw sessions show ID --json`).
  kAnywhere,
  // The first positional ends the options: the rest is taken verbatim, so a
  // prompt may contain words that look like options.
  kBeforePositionals,
};

struct ParsedArgs {
  std::set<std::string> flags;                // by spec name
  std::map<std::string, std::string> values;  // by spec name
  // kRepeatedValue options, their values in order, by spec name.
  std::map<std::string, std::vector<std::string>> repeated;
  std::vector<std::string> positionals;

  bool Has(const std::string& flag) const { return flags.count(flag) != 0; }
  std::optional<std::string> Value(const std::string& name) const;
};

// Fails with kInvalidArgument naming the offending argument: an unknown
// option, a missing value, a value given to a flag, or an option given twice.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<OptionSpec>& specs, OptionOrder order);

}  // namespace raw::cli
