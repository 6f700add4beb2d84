#include "clients/cli/dispatch.h"

#include <filesystem>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"
#include "clients/cli/command_table.h"
#include "clients/cli/exit_codes.h"
#include "common/version.h"

namespace raw::cli {

extern const char kResumeUsage[];

namespace {

int NoTerminal(CliContext& ctx) {
  ctx.err << "raw: the terminal interface needs a terminal on standard input and output;\n"
          << "use 'raw run PROMPT' for line output.\n";
  return kExitUsage;
}

// `raw resume [--plain] [ID]`.
int Resume(const std::vector<std::string>& args, bool plain, CliContext& ctx,
           const InteractiveLauncher& interactive) {
  auto parsed = ParseArgs(args, ResumeOptionSpecs(), OptionOrder::kAnywhere);
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


}  // namespace


const char kResumeUsage[] =
    "usage: raw resume [--plain] [ID]\n"
    "\n"
    "Reopens session ID in the terminal interface, with its history; without ID,\n"
    "lists the sessions to choose from. When another client holds the session,\n"
    "raw follows it read-only and offers to take it over (Ctrl-T).\n";

int Dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const EnvLookup& env, const InteractiveLauncher& interactive, bool out_is_terminal) {
  auto parsed = ParseArgs(args, GlobalOptionSpecs(), OptionOrder::kBeforePositionals);
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
    out << MainUsage();
    return kExitOk;
  }
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  CliContext ctx{out, err, client::ConnectOptions(), ec ? std::string("/") : cwd.string(),
                 out_is_terminal};
  ctx.connect.env = env;
  ctx.connect.socket_path = parsed->Value("--socket").value_or("");
  const bool plain = parsed->Has("--plain");
  auto agent = parsed->Value("--agent");
  auto dir = parsed->Value("--cwd");

  if (parsed->positionals.empty()) {
    // The terminal interface on a new session; the help without a terminal.
    if (!interactive) {
      if (!agent && !dir && !plain) {
        out << MainUsage();
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
  const CommandEntry* command = FindCommandEntry(name);
  if (command == nullptr || command->run == nullptr) {
    err << "raw: unknown command '" << name << "'\n"
        << "Run 'raw --help' for the list of commands.\n";
    return kExitUsage;
  }
  return command->run(rest, ctx);
}

}  // namespace raw::cli
