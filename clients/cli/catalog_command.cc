#include "clients/cli/catalog_command.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "clients/cli/args.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/json_line.h"
#include "clients/present/terminal_text.h"

namespace raw::cli {
namespace {

// What the daemon reports from sources Raw does not control (MCP servers,
// packages, configs: names, endpoints, error text) is written as text on one
// line: controls and escape sequences become U+FFFD, newlines spaces.
std::string ReportedLine(absl::string_view text) {
  std::string out = present::SanitizeForStream(text);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

std::string ReportedLine(const google::protobuf::RepeatedPtrField<std::string>& items) {
  return ReportedLine(absl::StrJoin(items, ", "));
}

// Sanitized multi-line text whose later lines are indented by `indent`.
std::string ReportedLines(absl::string_view text, absl::string_view indent) {
  std::string out = present::SanitizeForStream(text);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return absl::StrReplaceAll(out, {{"\n", absl::StrCat("\n", indent)}});
}

const std::vector<OptionSpec>& CatalogSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--json", OptionSpec::Kind::kFlag, ""},
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

// Parses the shared options and connects. nullopt with `*exit_code` set
// when the command ends here (usage, --help, no daemon).
std::optional<client::RawClient> Prepare(const std::vector<std::string>& args,
                                         const std::string& name, const char* usage,
                                         const std::vector<std::string>& allowed, bool* json,
                                         CliContext& ctx, int* exit_code) {
  auto parsed = ParseArgs(args, CatalogSpecs(), OptionOrder::kAnywhere);
  if (!parsed.ok()) {
    ctx.err << "raw " << name << ": " << parsed.status().message() << "\n"
            << "Run 'raw " << name << " --help' for usage.\n";
    *exit_code = kExitUsage;
    return std::nullopt;
  }
  if (parsed->Has("--help")) {
    ctx.out << usage;
    *exit_code = kExitOk;
    return std::nullopt;
  }
  const auto& pos = parsed->positionals;
  if (pos.size() > 1 || (pos.size() == 1 && std::find(allowed.begin(), allowed.end(), pos[0]) ==
                                                 allowed.end())) {
    ctx.err << "raw " << name << ": unexpected argument '" << pos.back() << "'\n"
            << "Run 'raw " << name << " --help' for usage.\n";
    *exit_code = kExitUsage;
    return std::nullopt;
  }
  *json = parsed->Has("--json");
  client::ConnectOptions connect = ctx.connect;
  if (auto socket = parsed->Value("--socket")) connect.socket_path = *socket;
  auto client = client::Connect(connect);
  if (!client.ok()) {
    ctx.err << "raw " << name << ": " << present::SanitizeForStream(client.status().message())
            << "\n";
    *exit_code = ExitCodeFor(client.status());
    return std::nullopt;
  }
  return std::move(*client);
}

bool PrintJson(const google::protobuf::Message& message, const std::string& name,
               CliContext& ctx) {
  auto line = ToJsonLine(message);
  if (!line.ok()) {
    ctx.err << "raw " << name << ": " << present::SanitizeForStream(line.status().message())
            << "\n";
    return false;
  }
  ctx.out << *line << "\n";
  return true;
}

std::string StateName(v1::McpServerState state) {
  switch (state) {
    case v1::MCP_SERVER_STATE_STOPPED:
      return "stopped";
    case v1::MCP_SERVER_STATE_STARTING:
      return "starting";
    case v1::MCP_SERVER_STATE_READY:
      return "ready";
    case v1::MCP_SERVER_STATE_FAILED:
      return "failed";
    default:
      return "unknown";
  }
}

}  // namespace

const char kAgentsUsage[] =
    "usage: raw agents [--json]\n"
    "\n"
    "The agents of the daemon's config: name (* = the default), model, the package\n"
    "preset it extends, tools, skills and prompt sections. Whatever comes from a\n"
    "package reads pkg/<alias>/... (raw package list shows the aliases).\n"
    "\n"
    "options:\n"
    "  --json          one JSON object per agent, one per line\n"
    "  --socket PATH   daemon socket\n";

const char kMcpUsage[] =
    "usage: raw mcp [list] [--json]\n"
    "\n"
    "The MCP servers of the daemon's config, then those a front end gave a\n"
    "loaded session (marked with the session): state (stopped, starting, ready,\n"
    "failed), transport and endpoint, the last error, and the tools each server\n"
    "last listed. Servers start when a session first needs them; this never\n"
    "starts one.\n"
    "\n"
    "options:\n"
    "  --json          one JSON object per server, one per line\n"
    "  --socket PATH   daemon socket\n";

int AgentsCommand(const std::vector<std::string>& args, CliContext& ctx) {
  bool json = false;
  int exit_code = kExitOk;
  auto client = Prepare(args, "agents", kAgentsUsage, {}, &json, ctx, &exit_code);
  if (!client) return exit_code;
  auto agents = client->ListAgents(v1::ListAgentsRequest());
  if (!agents.ok()) {
    ctx.err << "raw agents: " << present::SanitizeForStream(agents.status().message()) << "\n";
    return ExitCodeFor(agents.status());
  }
  for (const v1::AgentInfo& agent : agents->agents()) {
    if (json) {
      if (!PrintJson(agent, "agents", ctx)) return kExitError;
      continue;
    }
    ctx.out << (agent.is_default() ? "* " : "  ") << ReportedLine(agent.name()) << "  model "
            << (agent.model().empty() ? "(automatic)" : ReportedLine(agent.model())) << "\n";
    // What comes from a package reads pkg/<alias>/...: the package it came
    // from is its alias (raw package list).
    if (!agent.extends().empty())
      ctx.out << "    extends: " << ReportedLine(agent.extends()) << "\n";
    if (agent.tools_size() > 0) {
      ctx.out << "    tools: " << ReportedLine(agent.tools()) << "\n";
    }
    if (agent.skills_size() > 0) {
      ctx.out << "    skills: " << ReportedLine(agent.skills()) << "\n";
    }
    if (agent.prompts_size() > 0) {
      ctx.out << "    prompts: " << ReportedLine(agent.prompts()) << "\n";
    }
  }
  return kExitOk;
}

int McpCommand(const std::vector<std::string>& args, CliContext& ctx) {
  bool json = false;
  int exit_code = kExitOk;
  auto client = Prepare(args, "mcp", kMcpUsage, {"list"}, &json, ctx, &exit_code);
  if (!client) return exit_code;
  auto servers = client->ListMcpServers(v1::ListMcpServersRequest());
  if (!servers.ok()) {
    ctx.err << "raw mcp: " << present::SanitizeForStream(servers.status().message()) << "\n";
    return ExitCodeFor(servers.status());
  }
  if (!json && servers->servers_size() == 0) {
    ctx.out << "no MCP servers configured (mcp_servers in the config)\n";
    return kExitOk;
  }
  for (const v1::McpServerInfo& server : servers->servers()) {
    if (json) {
      if (!PrintJson(server, "mcp", ctx)) return kExitError;
      continue;
    }
    ctx.out << ReportedLine(server.name()) << "  " << StateName(server.state()) << "  "
            << ReportedLine(server.transport()) << " " << ReportedLine(server.endpoint());
    if (!server.protocol_version().empty()) {
      ctx.out << "  protocol " << ReportedLine(server.protocol_version());
    }
    if (!server.root().empty()) ctx.out << "  root " << ReportedLine(server.root());
    if (!server.session_id().empty()) ctx.out << "  session " << ReportedLine(server.session_id());
    ctx.out << "\n";
    if (!server.last_error().empty()) {
      ctx.out << "    last error: " << ReportedLines(server.last_error(), "      ");
      if (server.consecutive_failures() > 1) {
        ctx.out << " (" << server.consecutive_failures() << " failures in a row)";
      }
      ctx.out << "\n";
    }
    if (server.tools_size() > 0) {
      ctx.out << "    tools: " << ReportedLine(server.tools()) << "\n";
    }
  }
  return kExitOk;
}

const std::vector<OptionSpec>& CatalogOptionSpecs() { return CatalogSpecs(); }

}  // namespace raw::cli
