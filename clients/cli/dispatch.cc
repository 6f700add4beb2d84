#include "clients/cli/dispatch.h"

#include <filesystem>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"
#include "clients/cli/config_command.h"
#include "clients/cli/daemon_command.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/run_command.h"
#include "clients/cli/sessions_command.h"
#include "common/version.h"

namespace raw::cli {
namespace {

const std::vector<OptionSpec>& GlobalSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
      {"--version", OptionSpec::Kind::kFlag, ""},
  };
  return specs;
}

using Command = int (*)(const std::vector<std::string>&, CliContext&);

Command FindCommand(const std::string& name) {
  if (name == "run") return RunCommand;
  if (name == "sessions") return SessionsCommand;
  if (name == "daemon") return DaemonCommand;
  if (name == "config") return ConfigCommand;
  return nullptr;
}

}  // namespace

const char kMainUsage[] =
    "usage: raw [--socket PATH] COMMAND [ARGS...]\n"
    "\n"
    "Raw is a local coding-agent harness. Its daemon, rawd, runs the agents and\n"
    "keeps the sessions; raw talks to it and starts it when it is not running.\n"
    "\n"
    "commands:\n"
    "  run [options] PROMPT...         send a prompt to an agent, print the answer\n"
    "  sessions list                   list sessions, most recently active first\n"
    "  sessions show ID                print the history of a session\n"
    "  daemon start|status|stop        manage rawd\n"
    "  config check [--config PATH]    validate a config file\n"
    "  config init [--force]           write a starting config file\n"
    "\n"
    "options:\n"
    "  --socket PATH   daemon socket (default: $RAW_SOCKET, else\n"
    "                  $XDG_RUNTIME_DIR/raw/rawd.sock, else /tmp/raw-$UID/rawd.sock)\n"
    "  -h, --help      show this help; 'raw COMMAND --help' shows a command's\n"
    "  --version       print the version\n"
    "\n"
    "environment:\n"
    "  RAW_SOCKET        daemon socket path\n"
    "  RAW_NO_AUTOSTART  when set (and not 0), never start rawd automatically\n"
    "  RAW_DAEMON        the rawd executable to start\n";

int Dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const EnvLookup& env) {
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
  if (parsed->Has("--help") || parsed->positionals.empty()) {
    out << kMainUsage;
    return kExitOk;
  }
  const std::string& name = parsed->positionals[0];
  Command command = FindCommand(name);
  if (command == nullptr) {
    err << "raw: unknown command '" << name << "'\n"
        << "Run 'raw --help' for the list of commands.\n";
    return kExitUsage;
  }
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  CliContext ctx{out, err, client::ConnectOptions(), ec ? std::string("/") : cwd.string()};
  ctx.connect.env = env;
  ctx.connect.socket_path = parsed->Value("--socket").value_or("");
  std::vector<std::string> rest(parsed->positionals.begin() + 1, parsed->positionals.end());
  return command(rest, ctx);
}

}  // namespace raw::cli
