#include "clients/cli/command_table.h"

#include "absl/strings/str_cat.h"
#include "clients/cli/acp_command.h"
#include "clients/cli/catalog_command.h"
#include "clients/cli/completion_command.h"
#include "clients/cli/config_command.h"
#include "clients/cli/daemon_command.h"
#include "clients/cli/package_command.h"
#include "clients/cli/run_command.h"
#include "clients/cli/sessions_command.h"

namespace raw::cli {

const std::vector<OptionSpec>& GlobalOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
      {"--version", OptionSpec::Kind::kFlag, ""},
      {"--agent", OptionSpec::Kind::kValue, ""},
      {"--cwd", OptionSpec::Kind::kValue, ""},
      {"--plain", OptionSpec::Kind::kFlag, ""},
  };
  return specs;
}

const std::vector<OptionSpec>& ResumeOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--plain", OptionSpec::Kind::kFlag, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

// raw-acp's own options, which `raw acp` passes on.
const std::vector<OptionSpec>& AcpOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--agent", OptionSpec::Kind::kValue, ""},
      {"--listen", OptionSpec::Kind::kValue, ""},
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--max-message-bytes", OptionSpec::Kind::kValue, ""},
      {"--version", OptionSpec::Kind::kFlag, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

// raw-dashboard's own options, which `raw dashboard` passes on.
const std::vector<OptionSpec>& DashboardOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--port", OptionSpec::Kind::kValue, ""},
      {"--open", OptionSpec::Kind::kFlag, ""},
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--version", OptionSpec::Kind::kFlag, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

const std::vector<CommandEntry>& CommandTable() {
  static const std::vector<CommandEntry> table = {
      {"resume", nullptr, {}, ResumeOptionSpecs, false,
       {{"resume [ID]", "reopen a session (a list to choose from without ID)"}}},
      {"run", RunCommand, {}, RunOptionSpecs, false,
       {{"run [options] PROMPT...", "send a prompt to an agent, print the answer"}}},
      {"sessions", SessionsCommand, {"list", "show"}, SessionsOptionSpecs, false,
       {{"sessions list", "list sessions, most recently active first"},
        {"sessions show ID", "print the history of a session"}}},
      {"agents", AgentsCommand, {}, CatalogOptionSpecs, false,
       {{"agents", "list the configured agents"}}},
      {"mcp", McpCommand, {}, CatalogOptionSpecs, false,
       {{"mcp", "list the MCP servers, their state and tools"}}},
      {"daemon", DaemonCommand, {"start", "status", "stop", "install-service", "uninstall-service"},
       DaemonOptionSpecs, false,
       {{"daemon start|status|stop", "manage rawd"},
        {"daemon install-service", "run rawd as a systemd user service"}}},
      {"config", ConfigCommand, {"check", "init"}, ConfigOptionSpecs, false,
       {{"config check [--config PATH]", "validate a config file"},
        {"config init [--force]", "write a starting config file"}}},
      {"package", PackageCommand, {"install", "list", "inspect", "remove", "gc", "verify"},
       PackageOptionSpecs, true,
       {{"package install PATH|URL", "install a package for the config (no daemon needed)"},
        {"package ACTION", "list, inspect, remove, gc, verify packages"}}},
      {"acp", AcpCommand, {}, AcpOptionSpecs, true,
       {{"acp [ARGS...]", "serve sessions to an ACP client (raw-acp; docs/acp.md)"}}},
      {"dashboard", DashboardCommand, {}, DashboardOptionSpecs, true,
       {{"dashboard [ARGS...]", "serve the browser dashboard (raw-dashboard; docs/dashboard.md)"}}},
      {"completion", CompletionCommand, {"bash", "zsh", "fish"}, CompletionOptionSpecs, false,
       {{"completion bash|zsh|fish", "print a shell completion script"}}},
  };
  return table;
}

const CommandEntry* FindCommandEntry(const std::string& name) {
  for (const CommandEntry& entry : CommandTable()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string MainUsage() {
  std::string commands;
  for (const CommandEntry& entry : CommandTable()) {
    for (const auto& [usage, what] : entry.help) {
      std::string line = absl::StrCat("  ", usage);
      line.resize(std::max<size_t>(line.size() + 1, 34), ' ');
      absl::StrAppend(&commands, line, what, "\n");
    }
  }
  return absl::StrCat(
      "usage: raw [--socket PATH] [--agent NAME] [--cwd DIR] [--plain]\n"
      "       raw [--socket PATH] COMMAND [ARGS...]\n"
      "\n"
      "Raw is a local coding-agent harness. Its daemon, rawd, runs the agents and\n"
      "keeps the sessions; raw talks to it and starts it when it is not running.\n"
      "Without a command, raw opens a new session in the full-screen terminal\n"
      "interface (see docs/terminal.md).\n"
      "\n"
      "commands:\n",
      commands,
      "\n"
      "options:\n"
      "  --socket PATH   daemon socket (default: $RAW_SOCKET, else\n"
      "                  $XDG_RUNTIME_DIR/raw/rawd.sock, else\n"
      "                  $XDG_STATE_HOME/raw/run/rawd.sock; see docs/cli.md)\n"
      "  --agent NAME    agent of the new session (default: the configured default)\n"
      "  --cwd DIR       working directory of the new session (default: the current one)\n"
      "  --plain         no colours, ASCII borders (NO_COLOR=1 keeps bold and underline)\n"
      "  -h, --help      show this help; 'raw COMMAND --help' shows a command's\n"
      "  --version       print the version\n"
      "\n"
      "environment:\n"
      "  RAW_SOCKET        daemon socket path\n"
      "  RAW_NO_AUTOSTART  when set (and not 0), never start rawd automatically\n"
      "  RAW_DAEMON        the rawd executable to start\n");
}

}  // namespace raw::cli
