// Loading, validating and resolving config.
//
// Validation collects every problem (up to kMaxConfigProblems), each naming
// its JSON path and what was expected, for example:
//   agents.coder.model: "flsh" is not a defined model (defined: flash)
// Unknown keys are errors. `//` and `/* */` comments are accepted.
// docs/config.md documents the format; docs/config.schema.json describes it
// for editors.
//
// Thread-safety: every function here may be called from any thread. None
// does I/O of its own except LoadConfigFile, which reads its file;
// ResolveAgent calls only the lookups it is given.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/paths.h"
#include "daemon/config/config.h"

namespace raw::config {

struct ConfigProblem {
  std::string path;     // "agents.coder.model"; "" for the document itself
  std::string message;  // what is wrong and what was expected
  // "<path>: <message>", or just the message when the path is "".
  std::string ToString() const;
};

// How the file's paths are resolved: variables.<n>.file, a program path
// (one with a '/') in variables.<n>.command[0] and hooks.<n>.command[0],
// the script an interpreter runs in those commands (script_args.h), and
// mcp_servers.<n>.cwd. A
// leading "~/" is the home directory; another relative path is relative to
// the config file's directory. The Config holds them absolute.
struct ParseContext {
  std::string config_dir;  // absolute
  std::string home_dir;    // "" = "~/" is an error
};

// At most this many problems are collected by one parse: past it the
// loader stops reading entries and ends the list with one line saying so.
// A file of a few megabytes could otherwise yield hundreds of thousands of
// problems (one per unknown key), and as many lines of text.
inline constexpr size_t kMaxConfigProblems = 200;

// True once `problems` holds kMaxConfigProblems: loops over the entries of
// the document stop there.
inline bool ProblemsFull(const std::vector<ConfigProblem>& problems) {
  return problems.size() >= kMaxConfigProblems;
}

// The context of text that is not read from a file: the current directory
// and $HOME.
ParseContext DefaultParseContext();

// Parses and validates `text`. On failure returns kInvalidArgument whose
// message lists the first problems one per line (at most 20 lines and about
// 4 KiB, so that it fits the metadata of an RPC's error) and then says how
// many more there are; `problems` (if given) gets all of them, at most
// kMaxConfigProblems and a line saying the check stopped there. The first
// form uses DefaultParseContext().
absl::StatusOr<Config> ParseConfig(std::string_view text,
                                   std::vector<ConfigProblem>* problems = nullptr);
absl::StatusOr<Config> ParseConfig(std::string_view text, const ParseContext& context,
                                   std::vector<ConfigProblem>* problems = nullptr);

// Reads `path`. A missing file yields BuiltinDefaults(); an unreadable or
// invalid one is an error naming the file. Relative paths in the file are
// relative to its directory; "~/" is $HOME.
absl::StatusOr<Config> LoadConfigFile(const std::string& path,
                                      std::vector<ConfigProblem>* problems = nullptr);

// LoadConfigFile's parts. ReadConfigText: the file's bytes, nullopt when
// it does not exist (an unreadable, oversized or irregular file is an
// error). FileParseContext: the context its paths are resolved in.
// ParseConfigFile: ParseConfig with the error naming the file.
absl::StatusOr<std::optional<std::string>> ReadConfigText(const std::string& path);
ParseContext FileParseContext(const std::string& path);
absl::StatusOr<Config> ParseConfigFile(const std::string& path, std::string_view text,
                                       const ParseContext& context,
                                       std::vector<ConfigProblem>* problems = nullptr);

// One model per supported API keyed to the usual environment variables
// (OPENAI_API_KEY, DEEPSEEK_API_KEY, ...) plus an OpenAI-compatible local
// server at Ollama's default address, and agent "default" with no fixed
// model (resolved by ResolveAgent).
Config BuiltinDefaults();

// BuiltinDefaults() written out as a commented JSON starting file that
// ParseConfig accepts.
std::string ConfigTemplate();

struct ResolvedAgent {
  AgentConfig agent;
  ModelConfig model;
};

// Returns true when an OpenAI-compatible server answers at `base_url`; used
// to pick the local server for the default agent. Injected so the config
// layer does no I/O of its own.
using ServerProbe = std::function<bool(const std::string& base_url)>;

// Resolves `agent_name` ("" = default agent). An agent without a model takes
// the first model whose api_key_env is set (models in declaration order of
// BuiltinDefaults, then the rest by name), else a keyless local model (its
// base_url is a loopback address) whose server answers `probe`. Errors say
// exactly what to set or define: an unknown agent is kNotFound listing the
// defined agents; no usable model is kFailedPrecondition. An agent naming a
// model is returned as is: whether its key variable is set is checked by
// whoever builds the provider.
//
// A non-empty `model_override` (a session's chosen model entry) replaces
// the agent's model; a name that is not under "models" is
// kFailedPrecondition naming it and the defined ones.
absl::StatusOr<ResolvedAgent> ResolveAgent(const Config& config, const std::string& agent_name,
                                           const EnvLookup& env, const ServerProbe& probe,
                                           const std::string& model_override = "");

}  // namespace raw::config
