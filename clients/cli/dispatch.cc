#include "clients/cli/dispatch.h"

#include <filesystem>

#include "clients/cli/args.h"
#include "clients/cli/catalog_command.h"
#include "clients/cli/cli_context.h"
#include "clients/cli/config_command.h"
#include "clients/cli/package_command.h"
#include "clients/cli/daemon_command.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/run_command.h"
#include "clients/cli/sessions_command.h"
#include "common/version.h"

namespace raw::cli {

extern const char kResumeUsage[];

namespace {

const std::vector<OptionSpec>& GlobalSpecs() {
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

const std::vector<OptionSpec>& ResumeSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--plain", OptionSpec::Kind::kFlag, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

int NoTerminal(CliContext& ctx) {
  ctx.err << "raw: the terminal interface needs a terminal on standard input and output;\n"
          << "use 'raw run PROMPT' for line output.\n";
  return kExitUsage;
}

// `raw resume [--plain] [ID]`.
int Resume(const std::vector<std::string>& args, bool plain, CliContext& ctx,
           const InteractiveLauncher& interactive) {
  auto parsed = ParseArgs(args, ResumeSpecs(), OptionOrder::kAnywhere);
  if (!parsed.ok()) {
    ctx.err << "raw resume: " << parsed.status().message() << "\n"
            << "Run 'raw resume --help' for usage.\n";
    return kExitUsage;
  }
  if (parsed->Has("--help")) {
    ctx.out << kResumeUsage;
    return kExitOk;
  }
  if (parsed->positionals.size() > 1) {
    ctx.err << "raw resume: unexpected argument '" << parsed->positionals[1] << "'\n";
    return kExitUsage;
  }
  if (auto socket = parsed->Value("--socket")) ctx.connect.socket_path = *socket;
  if (!interactive) return NoTerminal(ctx);
  InteractiveRequest request;
  request.cwd = ctx.cwd;
  request.plain = plain || parsed->Has("--plain");
  if (parsed->positionals.empty()) {
    request.pick_session = true;
  } else {
    request.session_id = parsed->positionals[0];
  }
  return interactive(request, ctx);
}

using Command = int (*)(const std::vector<std::string>&, CliContext&);

Command FindCommand(const std::string& name) {
  if (name == "run") return RunCommand;
  if (name == "sessions") return SessionsCommand;
  if (name == "daemon") return DaemonCommand;
  if (name == "config") return ConfigCommand;
  if (name == "agents") return AgentsCommand;
  if (name == "mcp") return McpCommand;
  if (name == "package") return PackageCommand;
  return nullptr;
}

}  // namespace

const char kMainUsage[] =
    "usage: raw [--socket PATH] [--agent NAME] [--cwd DIR] [--plain]\n"
    "       raw [--socket PATH] COMMAND [ARGS...]\n"
    "\n"
    "Raw is a local coding-agent harness. Its daemon, rawd, runs the agents and\n"
    "keeps the sessions; raw talks to it and starts it when it is not running.\n"
    "Without a command, raw opens a new session in the full-screen terminal\n"
    "interface (see docs/terminal.md).\n"
    "\n"
    "commands:\n"
    "  resume [ID]                     reopen a session (a list to choose from without ID)\n"
    "  run [options] PROMPT...         send a prompt to an agent, print the answer\n"
    "  sessions list                   list sessions, most recently active first\n"
    "  sessions show ID                print the history of a session\n"
    "  agents                          list the configured agents\n"
    "  mcp                             list the MCP servers, their state and tools\n"
    "  daemon start|status|stop        manage rawd\n"
    "  config check [--config PATH]    validate a config file\n"
    "  config init [--force]           write a starting config file\n"
    "  package install|list|inspect|remove|gc|verify\n"
    "                                  manage packages (works without the daemon)\n"
    "\n"
    "options:\n"
    "  --socket PATH   daemon socket (default: $RAW_SOCKET, else\n"
    "                  $XDG_RUNTIME_DIR/raw/rawd.sock, else /tmp/raw-$UID/rawd.sock)\n"
    "  --agent NAME    agent of the new session (default: the configured default)\n"
    "  --cwd DIR       working directory of the new session (default: the current one)\n"
    "  --plain         no colours, ASCII borders (NO_COLOR=1 keeps bold and underline)\n"
    "  -h, --help      show this help; 'raw COMMAND --help' shows a command's\n"
    "  --version       print the version\n"
    "\n"
    "environment:\n"
    "  RAW_SOCKET        daemon socket path\n"
    "  RAW_NO_AUTOSTART  when set (and not 0), never start rawd automatically\n"
    "  RAW_DAEMON        the rawd executable to start\n";

const char kResumeUsage[] =
    "usage: raw resume [--plain] [ID]\n"
    "\n"
    "Reopens session ID in the terminal interface, with its history; without ID,\n"
    "lists the sessions to choose from. When another client holds the session,\n"
    "raw follows it read-only and offers to take it over (Ctrl-T).\n";

int Dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const EnvLookup& env, const InteractiveLauncher& interactive) {
  auto parsed = ParseArgs(args, GlobalSpecs(), OptionOrder::kBeforePositionals);
  if (!parsed.ok()) {
    err << "raw: " << parsed.status().message() << "\n"
        << "Run 'raw --help' for usage.\n";
    return kExitUsage;
  }
  if (parsed->Has("--version")) {
    out << "raw " << kVersion << " (protocol " << kProtocolVersion << ")\n";
    return kExitOk;
  }
  if (parsed->Has("--help")) {
    out << kMainUsage;
    return kExitOk;
  }
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  CliContext ctx{out, err, client::ConnectOptions(), ec ? std::string("/") : cwd.string()};
  ctx.connect.env = env;
  ctx.connect.socket_path = parsed->Value("--socket").value_or("");
  const bool plain = parsed->Has("--plain");
  auto agent = parsed->Value("--agent");
  auto dir = parsed->Value("--cwd");

  if (parsed->positionals.empty()) {
    // The terminal interface on a new session; the help without a terminal.
    if (!interactive) {
      if (!agent && !dir && !plain) {
        out << kMainUsage;
        return kExitOk;
      }
      return NoTerminal(ctx);
    }
    if (dir && dir->empty()) {
      err << "raw: --cwd needs a directory\n";
      return kExitUsage;
    }
    InteractiveRequest request;
    request.agent = agent.value_or("");
    request.cwd = dir ? AbsolutePath(*dir, ctx.cwd) : ctx.cwd;
    while (request.cwd.size() > 1 && request.cwd.back() == '/') request.cwd.pop_back();
    request.plain = plain;
    return interactive(request, ctx);
  }
  const std::string& name = parsed->positionals[0];
  std::vector<std::string> rest(parsed->positionals.begin() + 1, parsed->positionals.end());
  if (agent || dir) {
    err << "raw: " << (agent ? "--agent" : "--cwd")
        << " before a command applies only to a new session of the terminal interface;"
        << (name == "resume" ? " a resumed session keeps its agent and directory"
                             : " give it after the command")
        << "\n";
    return kExitUsage;
  }
  if (name == "resume") return Resume(rest, plain, ctx, interactive);
  if (plain) {
    err << "raw: --plain applies to the terminal interface (raw, raw resume)\n";
    return kExitUsage;
  }
  Command command = FindCommand(name);
  if (command == nullptr) {
    err << "raw: unknown command '" << name << "'\n"
        << "Run 'raw --help' for the list of commands.\n";
    return kExitUsage;
  }
  return command(rest, ctx);
}

}  // namespace raw::cli
