#include "daemon/config/variable_entry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/config/command_entry.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/config_path.h"
#include "daemon/config/variable_refs.h"

namespace raw::config {
namespace {

constexpr char kSourceHelp[] =
    "\"env\" (an environment variable), \"file\" (a file's contents) or \"command\" (a "
    "command's output)";

void ReadEnvSource(FieldReader& r, VariableConfig& v) {
  const Json* env = r.Find("env");
  if (env == nullptr) return;
  if (env->is_string() && IsVariableName(env->get_ref<const std::string&>())) {
    v.env = env->get<std::string>();
    return;
  }
  // Not echoed: a pasted secret is the usual mistake.
  r.Report("env",
           "expected the name of an environment variable such as \"OPENAI_API_KEY\" (letters, "
           "digits and '_'), not its value");
}

void ReadFileSource(FieldReader& r, const ParseContext& context, VariableConfig& v) {
  std::optional<std::string> file = r.NonEmptyString("file", "a file path");
  if (!file) return;
  absl::StatusOr<std::string> path = ResolveConfigPath(*file, context);
  if (path.ok()) {
    v.file = *path;
  } else {
    r.Report("file", std::string(path.status().message()));
  }
}

void ReadCommandSource(FieldReader& r, const ParseContext& context, VariableConfig& v,
                       std::vector<ConfigProblem>& problems) {
  if (auto argv = ReadCommandArgv(
          r, "command", "the command to run, as an array such as [\"pass\", \"show\", \"api\"]",
          &context, problems)) {
    v.command = *std::move(argv);
  }
}

VariableConfig ReadVariable(const std::string& name, const Json& value, const std::string& path,
                            const ParseContext& context, std::vector<ConfigProblem>& problems) {
  VariableConfig v;
  v.name = name;
  FieldReader r(value, path, problems);
  if (!r.is_object()) return v;
  r.RejectUnknownKeys(kVariableKeys);
  std::vector<std::string> sources;
  for (size_t i = 0; i < kVariableSources.size(); ++i) {
    if (r.Find(kVariableSources[i]) == nullptr) continue;
    if (sources.empty()) v.source = static_cast<VariableSource>(i);
    sources.emplace_back(kVariableSources[i]);
  }
  if (sources.empty()) {
    r.Report("", absl::StrCat("expected exactly one source: ", kSourceHelp));
  } else if (sources.size() > 1) {
    r.Report("", absl::StrCat("has ", sources.size(), " sources (", absl::StrJoin(sources, ", "),
                              "); expected exactly one of ", kSourceHelp));
  }
  ReadEnvSource(r, v);
  ReadFileSource(r, context, v);
  ReadCommandSource(r, context, v, problems);
  if (auto ms = r.SecondsAsMillis("timeout_seconds", kMaxVariableTimeoutSeconds)) {
    if (r.Find("command") != nullptr) {
      v.timeout_ms = *ms;
    } else {
      r.Report("timeout_seconds", "only a \"command\" variable has a timeout");
    }
  }
  if (auto secret = r.Boolean("secret")) v.secret = *secret;
  return v;
}

// Checks one value that may hold references.
void CheckValue(const std::string& value, const std::string& path, const Config& config,
                const std::set<std::string>& broken, std::vector<ConfigProblem>& problems) {
  absl::StatusOr<std::vector<std::string>> names = ReferencedVariables(value);
  if (!names.ok()) {
    problems.push_back({path, std::string(names.status().message())});
    return;
  }
  for (const std::string& name : *names) {
    if (ProblemsFull(problems)) break;
    if (config.variables.contains(name) || broken.contains(name)) continue;
    std::vector<std::string> defined;
    for (const auto& [n, v] : config.variables) defined.push_back(n);
    problems.push_back({path, absl::StrCat("\"${", name,
                                           "}\" names no variable defined under "
                                           "\"variables\" (defined: ",
                                           JoinNames(defined), ")")});
  }
}

void CheckMap(const std::map<std::string, std::string>& values, const std::string& parent,
              const Config& config, const std::set<std::string>& broken,
              std::vector<ConfigProblem>& problems) {
  for (const auto& [key, value] : values) {
    if (ProblemsFull(problems)) break;
    CheckValue(value, JoinPath(parent, key), config, broken, problems);
  }
}

}  // namespace

void ReadVariables(FieldReader& doc, const ParseContext& context, Config& config,
                   std::set<std::string>& broken, std::vector<ConfigProblem>& problems) {
  const Json* variables = doc.Find("variables");
  if (variables == nullptr) return;
  FieldReader section(*variables, "variables", problems);
  if (!section.is_object()) return;
  for (const auto& [name, value] : variables->items()) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath("variables", name);
    if (!IsVariableName(name)) {
      problems.push_back(
          {path, "invalid variable name (letters, digits and '_', not starting with a digit)"});
      continue;
    }
    size_t before = problems.size();
    VariableConfig v = ReadVariable(name, value, path, context, problems);
    if (problems.size() != before) {
      broken.insert(name);
    } else {
      config.variables[name] = std::move(v);
    }
  }
}

void CheckVariableReferences(const Config& config, const std::set<std::string>& broken,
                             std::vector<ConfigProblem>& problems) {
  for (const auto& [name, model] : config.models) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath("models", name);
    if (!model.api_key.empty()) {
      CheckValue(model.api_key, JoinPath(path, "api_key"), config, broken, problems);
    }
    CheckMap(model.headers, JoinPath(path, "headers"), config, broken, problems);
  }
  for (const auto& [name, server] : config.mcp_servers) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath("mcp_servers", name);
    CheckMap(server.env, JoinPath(path, "env"), config, broken, problems);
    CheckMap(server.headers, JoinPath(path, "headers"), config, broken, problems);
  }
}

}  // namespace raw::config
