#include "daemon/config/mcp_server_entry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/star_glob.h"
#include "daemon/config/base_url.h"
#include "daemon/config/command_entry.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/config_path.h"
#include "daemon/config/model_entry.h"
#include "daemon/config/package_ref.h"
#include "daemon/config/string_map_entry.h"

namespace raw::config {
namespace {

constexpr size_t kMaxServerNameChars = 32;
constexpr char kToolForm[] =
    "mcp/<server>/<tool>, or a glob such as mcp/<server>/* or mcp/*/* (every server)";

// Headers of the Streamable HTTP transport that the MCP client sets itself.
std::optional<std::string> RefuseMcpHeader(absl::string_view name) {
  if (name == "content-type" || name == "accept" || name == "mcp-session-id" ||
      name == "mcp-protocol-version") {
    return "the MCP client sends this header on every request; a second one is refused";
  }
  if (name == "host" || name == "content-length" || name == "transfer-encoding") {
    return "derived from the URL and the request body; it cannot be set";
  }
  return std::nullopt;
}

void ReadCommand(FieldReader& r, McpServerConfig& s, std::vector<ConfigProblem>& problems) {
  if (auto argv = ReadCommandArgv(r, "command",
                                  "the server's command as an array such as "
                                  "[\"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]",
                                  /*context=*/nullptr, problems)) {
    s.command = *std::move(argv);
  }
}

void ReadUrl(FieldReader& r, McpServerConfig& s) {
  std::optional<std::string> url = r.String("url");
  if (!url) return;
  UrlHints hints;
  hints.example = "https://mcp.example.com/mcp";
  hints.credentials = "send them in \"headers\", with a variable reference";
  absl::StatusOr<BaseUrlParts> parts = ParseBaseUrl(*url, hints);
  if (!parts.ok()) {
    // Neither credentials nor a query is quoted: either may carry a key.
    std::string shown =
        url->find('@') == std::string::npos ? DescribeValue(Json(UrlForMessages(*url))) : "the URL";
    r.Report("url", absl::StrCat(shown, " ", parts.status().message()));
    return;
  }
  s.url = *url;
}

// `key` is set although it belongs to the other transport.
void RefuseOtherTransport(FieldReader& r, absl::string_view key, bool stdio) {
  if (r.Find(key) == nullptr) return;
  r.Report(key, stdio ? absl::StrCat("only a server with a \"url\" (HTTP) takes ", key,
                                     "; this one has a \"command\"")
                      : absl::StrCat("only a server with a \"command\" (stdio) takes ", key,
                                     "; this one has a \"url\""));
}

void ReadTimeouts(FieldReader& r, McpServerConfig& s) {
  auto read = [&r](absl::string_view key, int64_t& ms) {
    if (auto seconds = r.Integer(key, 1, kMaxTimeoutSeconds)) ms = *seconds * 1000;
  };
  read("startup_timeout_seconds", s.startup_timeout_ms);
  read("call_timeout_seconds", s.call_timeout_ms);
  read("idle_timeout_seconds", s.idle_timeout_ms);
  if (auto bytes = r.Integer("max_progress_bytes", 16, kMaxProgressBytes)) {
    s.max_progress_bytes = *bytes;
  }
}

// mcp_servers.<name>: {"from": "pkg/<alias>/mcp/<name>"} and nothing else.
void ReadFrom(FieldReader& r, McpServerConfig& s, const Json& value) {
  std::optional<std::string> from = r.String("from");
  if (!from) return;
  absl::StatusOr<PackageRef> ref = ParsePackageRef(*from, kExportMcp);
  if (!ref.ok()) {
    r.Report("from", std::string(ref.status().message()));
    return;
  }
  for (const auto& [key, unused] : value.items()) {
    if (key != "from") {
      r.Report(key, "a server taken from a package (\"from\") sets nothing else; the "
                    "package's definition applies as it is");
    }
  }
  s.from = *from;
}

}  // namespace

McpServerConfig ReadMcpServerEntry(const std::string& name, const Json& value,
                                   const std::string& path, const ParseContext& context,
                                   std::vector<ConfigProblem>& problems) {
  McpServerConfig s;
  s.name = name;
  FieldReader r(value, path, problems);
  if (!r.is_object()) return s;
  r.RejectUnknownKeys(kMcpServerKeys);
  if (r.Find("from") != nullptr) {
    ReadFrom(r, s, value);
    return s;
  }
  bool has_command = r.Find("command") != nullptr;
  bool has_url = r.Find("url") != nullptr;
  if (has_command == has_url) {
    r.Report("", has_command ? "set either \"command\" (stdio) or \"url\" (HTTP), not both"
                             : "expected \"command\" (a stdio server's argv) or \"url\" (a "
                               "Streamable HTTP endpoint)");
  }
  ReadCommand(r, s, problems);
  ReadUrl(r, s);
  if (has_command && !has_url) {
    RefuseOtherTransport(r, "headers", /*stdio=*/true);
  } else if (has_url && !has_command) {
    RefuseOtherTransport(r, "env", /*stdio=*/false);
    RefuseOtherTransport(r, "cwd", /*stdio=*/false);
  }
  if (!has_url) s.env = ReadEnvironment(r, "env", problems);
  if (!has_url) {
    if (auto cwd = r.NonEmptyString("cwd", "a directory path")) {
      absl::StatusOr<std::string> dir = ResolveConfigPath(*cwd, context);
      if (dir.ok()) {
        s.cwd = *dir;
      } else {
        r.Report("cwd", std::string(dir.status().message()));
      }
    }
  }
  if (!has_command) s.headers = ReadHeaders(r, "headers", RefuseMcpHeader, problems);
  ReadTimeouts(r, s);
  if (auto roots = r.Boolean("roots")) s.roots = *roots;
  return s;
}

bool IsMcpServerGlob(absl::string_view server) {
  if (!absl::StrContains(server, '*') || server.size() > kMaxServerNameChars) return false;
  return std::all_of(server.begin(), server.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '*';
  });
}

bool McpEntryMayCoverServer(absl::string_view use, absl::string_view server) {
  if (!absl::StartsWith(use, "mcp/")) return false;
  const std::string prefix = absl::StrCat("mcp/", server, "/");
  return StarGlobMayMatchPrefix(std::string_view(use.data(), use.size()), prefix);
}

std::optional<std::string> AmbiguousServerName(absl::string_view name) {
  // The model sees "mcp__<server>__<tool>"; the server part ends at the
  // first "__" after "mcp__" only if the name holds none and does not end
  // in '_' (server "a_" + tool "_b" and server "a" + tool "__b" would both
  // read "mcp__a____b").
  if (absl::StrContains(name, "__")) {
    return "a server name may not contain \"__\" (it separates the server from the tool in "
           "model-facing names, mcp__<server>__<tool>)";
  }
  if (absl::EndsWith(name, "_")) {
    return "a server name may not end with \"_\" (the \"__\" after it in model-facing "
           "names, mcp__<server>__<tool>, would become ambiguous)";
  }
  return std::nullopt;
}

bool IsMcpServerName(absl::string_view name) {
  return !name.empty() && name.size() <= kMaxServerNameChars &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
         });
}

void ReadMcpServers(FieldReader& doc, const ParseContext& context, Config& config,
                    std::vector<ConfigProblem>& problems) {
  const Json* servers = doc.Find("mcp_servers");
  if (servers == nullptr) return;
  FieldReader section(*servers, "mcp_servers", problems);
  if (!section.is_object()) return;
  for (const auto& [name, value] : servers->items()) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath("mcp_servers", name);
    if (!IsMcpServerName(name)) {
      problems.push_back({path, "invalid server name (1 to 32 letters, digits, '_' and '-')"});
      continue;
    }
    if (std::optional<std::string> why = AmbiguousServerName(name)) {
      problems.push_back({path, *why});
      continue;
    }
    config.mcp_servers[name] = ReadMcpServerEntry(name, value, path, context, problems);
  }
}

void CheckAgentMcpTools(const Config& config, std::vector<ConfigProblem>& problems) {
  std::vector<std::string> defined;
  for (const auto& [name, server] : config.mcp_servers) defined.push_back(name);
  for (const auto& [agent_name, agent] : config.agents) {
    if (ProblemsFull(problems)) break;
    std::string use_path = JoinPath(JoinPath(JoinPath("agents", agent_name), "tools"), "use");
    for (size_t i = 0; i < agent.tools_use.size(); ++i) {
      if (ProblemsFull(problems)) break;
      absl::string_view entry = agent.tools_use[i];
      if (!absl::ConsumePrefix(&entry, "mcp/")) continue;
      std::string quoted = DescribeValue(Json(agent.tools_use[i]));
      size_t slash = entry.find('/');
      absl::string_view server = entry.substr(0, slash);
      if (IsMcpServerGlob(server)) continue;  // "mcp/*", "mcp/*/read_*": any server
      if (slash == absl::string_view::npos || !IsMcpServerName(server)) {
        problems.push_back(
            {IndexPath(use_path, i), absl::StrCat(quoted, " must name one server: ", kToolForm,
                                                  " (defined servers: ", JoinNames(defined), ")")});
      } else if (!config.mcp_servers.contains(std::string(server))) {
        problems.push_back(
            {IndexPath(use_path, i),
             absl::StrCat(quoted, " names MCP server \"", server,
                          "\", which is not defined under \"mcp_servers\" (defined: ",
                          JoinNames(defined), ")")});
      }
    }
  }
}

}  // namespace raw::config
