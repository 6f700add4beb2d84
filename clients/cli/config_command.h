// `raw config check|init`: validate the config file through the daemon, or
// write the daemon's starting template. See docs/cli.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"

namespace raw::cli {

extern const char kConfigUsage[];

// Runs the command; returns the exit code.
int ConfigCommand(const std::vector<std::string>& args, CliContext& ctx);

enum class Overwrite { kRefuse, kReplace };

// Largest starting config `raw config init` accepts from the daemon.
inline constexpr size_t kMaxConfigTemplateBytes = 1 << 20;

// Checks the starting config the daemon sent before `raw config init`
// writes it: at most kMaxConfigTemplateBytes, valid UTF-8, no control
// characters but newline and tab (no terminal escapes), and a JSON object
// (comments allowed). kDataLoss says what is wrong.
absl::Status ValidateConfigTemplate(const std::string& text);

// The starting config with a "$schema" member naming `schema_url` first in
// its top-level object (editors then complete and check the file against
// it). `text` unchanged when `schema_url` is empty or no line holds the
// object's opening brace alone.
std::string WithSchemaReference(const std::string& text, const std::string& schema_url);

// Writes `text` to `path`, creating its directory. kRefuse fails with
// kAlreadyExists when the file exists; kReplace swaps the new file in
// atomically (a temporary file renamed over it). The file is private (0600).
absl::Status WriteConfigFile(const std::string& path, const std::string& text,
                             Overwrite overwrite);

// The options the command takes (for help and shell completion).
const std::vector<OptionSpec>& ConfigOptionSpecs();

}  // namespace raw::cli
