#include "daemon/config/session_mcp_servers.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/mcp_server_entry.h"

namespace raw::config {
namespace {

// The entry as the object mcp_servers.<name> would hold, so that the
// config's own reader applies its rules to it. Empty maps and an empty
// url or command are left out, as a client cannot tell them from unset.
Json AsConfigEntry(const SessionMcpServerSpec& spec) {
  Json entry = Json::object();
  if (!spec.command.empty()) {
    Json argv = Json::array({spec.command});
    for (const std::string& arg : spec.args) argv.push_back(arg);
    entry["command"] = std::move(argv);
  }
  if (!spec.url.empty()) entry["url"] = spec.url;
  if (!spec.env.empty()) entry["env"] = spec.env;
  if (!spec.headers.empty()) entry["headers"] = spec.headers;
  return entry;
}

// What only this kind of entry requires beyond a configured one's rules.
void CheckShape(const SessionMcpServerSpec& spec, const std::string& path,
                std::vector<ConfigProblem>& problems) {
  if (!spec.command.empty() && spec.command[0] != '/') {
    problems.push_back({JoinPath(path, "command"),
                        absl::StrCat("must be an absolute program path (got ",
                                     DescribeValue(Json(spec.command)),
                                     "); the daemon does not search the client's PATH")});
  }
  if (spec.command.empty() && !spec.args.empty()) {
    problems.push_back({JoinPath(path, "args"), "only a server with a \"command\" takes args"});
  }
}

}  // namespace

absl::StatusOr<std::map<std::string, McpServerConfig>> CheckSessionMcpServers(
    const std::vector<SessionMcpServerSpec>& specs, const Config& config,
    absl::string_view field, const std::string& session_id) {
  std::vector<ConfigProblem> problems;
  std::map<std::string, McpServerConfig> servers;
  std::map<std::string, std::string> first_path;  // name -> the entry that has it
  for (size_t i = 0; i < specs.size(); ++i) {
    const SessionMcpServerSpec& spec = specs[i];
    const std::string path = IndexPath(field, i);
    const std::string name_path = JoinPath(path, "name");
    const std::string quoted = DescribeValue(Json(spec.name));
    if (!IsMcpServerName(spec.name)) {
      problems.push_back({name_path, absl::StrCat(quoted, " is not a valid server name (1 to 32 "
                                                  "letters, digits, '_' and '-')")});
      continue;
    }
    if (std::optional<std::string> why = AmbiguousServerName(spec.name)) {
      problems.push_back({name_path, absl::StrCat(quoted, ": ", *why)});
      continue;
    }
    if (config.mcp_servers.contains(spec.name)) {
      problems.push_back(
          {name_path, absl::StrCat(quoted, " is the name of a configured server (",
                                   JoinPath("mcp_servers", spec.name), "); choose another")});
      continue;
    }
    if (auto [it, added] = first_path.emplace(spec.name, path); !added) {
      problems.push_back({name_path, absl::StrCat(quoted, " is also the name of ", it->second)});
      continue;
    }
    const size_t before = problems.size();
    CheckShape(spec, path, problems);
    McpServerConfig server =
        ReadMcpServerEntry(spec.name, AsConfigEntry(spec), path, DefaultParseContext(), problems);
    if (problems.size() != before) continue;
    server.session_id = session_id;
    servers.emplace(spec.name, std::move(server));
  }
  if (!problems.empty()) {
    std::vector<std::string> lines;
    for (const ConfigProblem& p : problems) lines.push_back(p.ToString());
    return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
  }
  return servers;
}

}  // namespace raw::config
