// `raw sessions list|show`: the daemon's sessions and their transcripts.
// See docs/cli.md for the output formats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"
#include "raw/v1/session.pb.h"

namespace raw::cli {

extern const char kSessionsUsage[];

// Runs the command; returns the exit code.
int SessionsCommand(const std::vector<std::string>& args, CliContext& ctx);

// Prints the `raw sessions list` table (text format) for `sessions`; the
// EXPIRES column is relative to `now_unix_ms`.
void PrintSessionTable(const std::vector<v1::Session>& sessions, int64_t now_unix_ms,
                       std::ostream& out);

// The options the command takes (for help and shell completion).
const std::vector<OptionSpec>& SessionsOptionSpecs();

}  // namespace raw::cli
