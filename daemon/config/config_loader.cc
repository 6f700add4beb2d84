// ParseConfig and LoadConfigFile: the document level of config.json (its
// sections, the references between them) and reading the file. The entries
// themselves are read by model_entry.cc and agent_entry.cc.
#include "daemon/config/config_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "daemon/config/agent_entry.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/duplicate_keys.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/mcp_server_entry.h"
#include "daemon/config/model_entry.h"
#include "daemon/config/package_ref.h"
#include "daemon/config/policy_entry.h"
#include "daemon/config/raven_entry.h"
#include "daemon/config/variable_entry.h"
#include "daemon/config/withheld_env.h"

namespace raw::config {
namespace {

// Largest config file read (a real one is a few KiB).
constexpr off_t kMaxConfigFileBytes = 4 << 20;
// Largest sessions.idle_unload_seconds (a day).
constexpr int64_t kMaxIdleUnloadSeconds = 86400;
// Largest sessions.expire_after_days (about a hundred years).
constexpr int64_t kMaxExpireAfterDays = 36500;

// Bounds of the status message of an invalid config (JoinProblems).
constexpr size_t kMaxErrorLines = 20;
constexpr size_t kMaxErrorLineBytes = 512;
constexpr size_t kMaxErrorBytes = 4096;
// Longest path and message of a problem in the list (BoundProblems).
constexpr size_t kMaxProblemPathBytes = 256;
constexpr size_t kMaxProblemMessageBytes = 1024;

constexpr char kNameRule[] = "use letters, digits, '_', '.' and '-'";

std::vector<std::string> Names(const auto& map) {
  std::vector<std::string> names;
  for (const auto& [name, value] : map) names.push_back(name);
  return names;
}

// Reads models (or the built-in ones when the section is absent). Names of
// entries that had problems go to `broken`, so that checks relating agents
// to models do not repeat them.
void ReadModels(FieldReader& doc, Config& config, std::set<std::string>& broken,
                std::vector<ConfigProblem>& problems) {
  const Json* models = doc.Find("models");
  if (models == nullptr) {
    config.models = BuiltinDefaults().models;
    return;
  }
  FieldReader section(*models, "models", problems);
  if (!section.is_object()) return;
  if (models->empty()) {
    section.Report("",
                   "at least one model is required (leave \"models\" out to use the built-in "
                   "ones)");
  }
  for (const auto& [name, value] : models->items()) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath("models", name);
    size_t before = problems.size();
    if (!IsValidName(name)) {
      problems.push_back({path, absl::StrCat("invalid model name (", kNameRule, ")")});
    }
    ModelConfig model = ParseModelEntry(name, value, path, problems);
    if (problems.size() != before) broken.insert(name);
    if (IsValidName(name)) config.models[name] = std::move(model);
  }
}

void ReadAgents(FieldReader& doc, Config& config, std::vector<ConfigProblem>& problems) {
  const Json* agents = doc.Find("agents");
  if (agents == nullptr) {
    config.agents = BuiltinDefaults().agents;
    return;
  }
  FieldReader section(*agents, "agents", problems);
  if (!section.is_object()) return;
  if (agents->empty()) {
    section.Report("",
                   "at least one agent is required (leave \"agents\" out to use the built-in "
                   "\"default\" agent)");
  }
  for (const auto& [name, value] : agents->items()) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath("agents", name);
    if (!IsValidName(name)) {
      problems.push_back({path, absl::StrCat("invalid agent name (", kNameRule, ")")});
    }
    AgentConfig agent = ParseAgentEntry(name, value, path, problems);
    if (IsValidName(name)) config.agents[name] = std::move(agent);
  }
}

void ReadToolSettings(FieldReader& doc, ToolSettings& tools, std::vector<ConfigProblem>& problems) {
  const Json* section = doc.Find("tools");
  if (section == nullptr) return;
  FieldReader r(*section, "tools", problems);
  r.RejectUnknownKeys(kToolsKeys);
  if (const Json* bash = r.Find("bash")) {
    FieldReader b(*bash, "tools.bash", problems);
    b.RejectUnknownKeys(kToolsBashKeys);
    if (auto ms = b.SecondsAsMillis("timeout_seconds", kMaxTimeoutSeconds)) {
      tools.bash.timeout_ms = *ms;
    }
    if (auto n = b.Integer("max_output_bytes", 1, kMaxByteLimit)) tools.bash.max_output_bytes = *n;
  }
  if (const Json* files = r.Find("files")) {
    FieldReader f(*files, "tools.files", problems);
    f.RejectUnknownKeys(kToolsFilesKeys);
    if (auto n = f.Integer("max_read_bytes", 1, kMaxByteLimit)) tools.files.max_read_bytes = *n;
    if (auto n = f.Integer("max_results", 1, kMaxResults)) tools.files.max_results = *n;
  }
  if (const Json* web = r.Find("web_fetch")) {
    FieldReader w(*web, "tools.web_fetch", problems);
    w.RejectUnknownKeys(kToolsWebFetchKeys);
    if (auto ms = w.SecondsAsMillis("timeout_seconds", kMaxTimeoutSeconds)) {
      tools.web_fetch.timeout_ms = *ms;
    }
    if (auto n = w.Integer("max_bytes", 1, kMaxByteLimit)) tools.web_fetch.max_bytes = *n;
    if (auto n = w.Integer("max_output_bytes", 1, kMaxByteLimit)) {
      tools.web_fetch.max_output_bytes = *n;
    }
  }
}

void ReadSessions(FieldReader& doc, SessionSettings& sessions,
                  std::vector<ConfigProblem>& problems) {
  const Json* section = doc.Find("sessions");
  if (section == nullptr) return;
  FieldReader r(*section, "sessions", problems);
  r.RejectUnknownKeys(kSessionsKeys);
  if (auto days = r.Integer("expire_after_days", 0, kMaxExpireAfterDays)) {
    sessions.expire_after_days = *days;
  }
  if (auto seconds = r.Integer("idle_unload_seconds", 1, kMaxIdleUnloadSeconds)) {
    sessions.idle_unload_seconds = *seconds;
  }
  if (auto bytes = r.Integer("max_live_bytes", kMinLiveBytes, kMaxLiveBytes)) {
    sessions.max_live_bytes = *bytes;
  }
}

// Every agents.<name>.model names a defined model, and a compaction
// threshold fits that model.
void CheckAgentModels(const Config& config, const std::set<std::string>& broken_models,
                      std::vector<ConfigProblem>& problems) {
  for (const auto& [name, agent] : config.agents) {
    if (ProblemsFull(problems)) break;
    // A package's model preset is looked up when the agent is resolved.
    if (agent.model.empty() || IsPackageRef(agent.model)) continue;
    std::string path = JoinPath(JoinPath("agents", name), "model");
    auto it = config.models.find(agent.model);
    if (it == config.models.end()) {
      if (broken_models.contains(agent.model)) continue;
      problems.push_back({path, absl::StrCat(DescribeValue(Json(agent.model)),
                                             " is not a defined model (defined: ",
                                             JoinNames(Names(config.models)), ")")});
      continue;
    }
    if (broken_models.contains(agent.model)) continue;
    if (auto error = CheckCompactFits(agent, it->second)) {
      problems.push_back(
          {JoinPath(JoinPath(JoinPath("agents", name), "compact"), "trigger_tokens"), *error});
    }
  }
}

void ReadDefaultAgent(FieldReader& doc, Config& config) {
  if (doc.Find("default_agent") == nullptr) {
    if (config.agents.contains(kDefaultAgentName) || config.agents.empty()) {
      config.default_agent = kDefaultAgentName;
    } else {
      config.default_agent = config.agents.begin()->first;  // the first by name
    }
    return;
  }
  std::optional<std::string> name = doc.String("default_agent");
  if (!name) return;
  if (!config.agents.contains(*name)) {
    doc.Report("default_agent",
               absl::StrCat(DescribeValue(Json(*name)), " is not a defined agent (defined: ",
                            JoinNames(Names(config.agents)), ")"));
    return;
  }
  config.default_agent = *name;
}

// Every string (key or value) holding U+0000 (written \u0000) is a problem:
// the paths, programs and values of the file go to the system as C strings,
// which would end there ("/x/plain.txt\u0000.nope" would read /x/plain.txt).
void FindNulStrings(const Json& value, const std::string& path,
                    std::vector<ConfigProblem>& problems) {
  constexpr char kNul[] = "contains U+0000 (a NUL character), which no name, path or value may";
  if (value.is_string()) {
    if (value.get_ref<const std::string&>().find('\0') != std::string::npos) {
      problems.push_back({path, kNul});
    }
  } else if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      if (ProblemsFull(problems)) break;
      std::string member_path = JoinPath(path, key);
      if (key.find('\0') != std::string::npos) {
        problems.push_back({member_path, absl::StrCat("the key ", kNul)});
      }
      FindNulStrings(member, member_path, problems);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size() && !ProblemsFull(problems); ++i) {
      FindNulStrings(value[i], IndexPath(path, i), problems);
    }
  }
}

Config ReadDocument(const Json& json, const ParseContext& context,
                    std::vector<ConfigProblem>& problems) {
  Config config;
  if (!json.is_object()) {
    problems.push_back(
        {"", absl::StrCat("expected a JSON object at the top level, got ", DescribeValue(json))});
    return config;
  }
  FieldReader doc(json, "", problems);
  doc.RejectUnknownKeys(kTopLevelKeys);
  doc.String("$schema");  // accepted for editors; its value is not used
  std::set<std::string> broken_models;
  ReadModels(doc, config, broken_models, problems);
  ReadAgents(doc, config, problems);
  ReadToolSettings(doc, config.tools, problems);
  ReadHooksAndSkillDirs(doc, context, config, problems);
  std::set<std::string> broken_variables;
  ReadVariables(doc, context, config, broken_variables, problems);
  ReadMcpServers(doc, context, config, problems);
  ReadSessions(doc, config.sessions, problems);
  ReadRaven(doc, config, broken_variables, problems);
  ReadDefaultAgent(doc, config);
  CheckAgentModels(config, broken_models, problems);
  CheckAgentHooks(config, problems);
  CheckPassSecretEnv(config, problems);
  CheckAgentMcpTools(config, problems);
  CheckVariableReferences(config, broken_variables, problems);
  return config;
}

// `text` cut to at most `max` bytes on a character boundary, marked "...".
void Shorten(std::string& text, size_t max) {
  if (text.size() > max) text = absl::StrCat(text.substr(0, Utf8Floor(text, max)), "...");
}

// The status message: the first problems, one per line, then how many
// more there are. Bounded (kMaxErrorLines lines of at most kMaxErrorLineBytes,
// kMaxErrorBytes in all) because it travels as an RPC's error, which must fit
// the 8 KiB of gRPC's metadata; `raw config check` lists the rest.
std::string JoinProblems(const std::vector<ConfigProblem>& problems) {
  std::string out;
  size_t shown = 0;
  for (const ConfigProblem& p : problems) {
    std::string line = p.ToString();
    Shorten(line, kMaxErrorLineBytes);
    if (shown == kMaxErrorLines || (shown > 0 && out.size() + 1 + line.size() > kMaxErrorBytes)) {
      break;
    }
    if (shown > 0) out += '\n';
    out += line;
    ++shown;
  }
  if (shown < problems.size()) {
    absl::StrAppend(&out, "\nand ", problems.size() - shown,
                    " more; run `raw config check` to list them");
  }
  return out;
}

// Keeps the first kMaxConfigProblems, says that the check stopped there,
// and cuts overlong paths and messages (a key may be a megabyte long), so
// that the list `raw config check` receives stays well inside an RPC's
// message.
void BoundProblems(std::vector<ConfigProblem>& problems) {
  if (ProblemsFull(problems)) {
    problems.resize(kMaxConfigProblems);
    problems.push_back({"", absl::StrCat("the check stops after ", kMaxConfigProblems,
                                         " problems; fix these and check again for any others")});
  }
  for (ConfigProblem& p : problems) {
    Shorten(p.path, kMaxProblemPathBytes);
    Shorten(p.message, kMaxProblemMessageBytes);
  }
}

}  // namespace

std::string ConfigProblem::ToString() const {
  return path.empty() ? message : absl::StrCat(path, ": ", message);
}

ParseContext DefaultParseContext() {
  ParseContext context;
  std::error_code error;
  std::filesystem::path cwd = std::filesystem::current_path(error);
  context.config_dir = error ? "/" : cwd.string();
  context.home_dir = ProcessEnv()("HOME").value_or("");
  return context;
}

absl::StatusOr<Config> ParseConfig(std::string_view text, std::vector<ConfigProblem>* problems) {
  return ParseConfig(text, DefaultParseContext(), problems);
}

absl::StatusOr<Config> ParseConfig(std::string_view text, const ParseContext& context,
                                   std::vector<ConfigProblem>* problems) {
  std::vector<ConfigProblem> found;
  Config config;
  if (absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size())).empty()) {
    found.push_back({"",
                     "the document is empty (expected a JSON object; `raw config init` writes a "
                     "starting file)"});
  } else if (absl::StatusOr<Json> json = ParseJson(text, /*allow_comments=*/true); !json.ok()) {
    found.push_back({"", std::string(json.status().message())});
  } else {
    found = FindDuplicateKeys(text);
    FindNulStrings(*json, "", found);
    config = ReadDocument(*json, context, found);
  }
  BoundProblems(found);
  if (problems != nullptr) *problems = found;
  if (!found.empty()) return absl::InvalidArgumentError(JoinProblems(found));
  return config;
}

absl::StatusOr<std::optional<std::string>> ReadConfigText(const std::string& path) {
  // O_NONBLOCK: a FIFO at `path` must not hang the open; it is refused below.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot read config file ", path));
  }
  std::string text;
  absl::Status status;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    status = absl::ErrnoToStatus(errno, absl::StrCat("cannot read config file ", path));
  } else if (!S_ISREG(st.st_mode)) {
    status = absl::FailedPreconditionError(
        absl::StrCat("cannot read config file ", path, ": not a regular file"));
  } else if (st.st_size > kMaxConfigFileBytes) {
    status = absl::FailedPreconditionError(absl::StrCat(
        "cannot read config file ", path, ": larger than ", kMaxConfigFileBytes, " bytes"));
  } else {
    char buf[16384];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = absl::ErrnoToStatus(errno, absl::StrCat("cannot read config file ", path));
        break;
      }
      if (n == 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  RETURN_IF_ERROR(status);
  return text;
}

ParseContext FileParseContext(const std::string& path) {
  ParseContext context = DefaultParseContext();
  context.config_dir = Dirname(AbsolutePath(path, context.config_dir));
  return context;
}

absl::StatusOr<Config> ParseConfigFile(const std::string& path, std::string_view text,
                                       const ParseContext& context,
                                       std::vector<ConfigProblem>* problems) {
  absl::StatusOr<Config> config = ParseConfig(text, context, problems);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config file ", path, " is invalid:\n", config.status().message()));
  }
  config->source_path = path;
  return config;
}

absl::StatusOr<Config> LoadConfigFile(const std::string& path,
                                      std::vector<ConfigProblem>* problems) {
  if (problems != nullptr) problems->clear();
  ASSIGN_OR_RETURN(std::optional<std::string> text, ReadConfigText(path));
  if (!text) {
    Config config = BuiltinDefaults();
    config.source_path = path;
    return config;
  }
  return ParseConfigFile(path, *text, FileParseContext(path), problems);
}

}  // namespace raw::config
