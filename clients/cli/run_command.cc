#include "clients/cli/run_command.h"

#include <unistd.h>

#include <iostream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "clients/cli/args.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/interrupt_watcher.h"
#include "clients/cli/timings_printer.h"
#include "clients/cli/turn_runner.h"
#include "clients/lib/image_file.h"
#include "clients/present/terminal_text.h"

namespace raw::cli {
namespace {

const std::vector<OptionSpec>& RunSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--agent", OptionSpec::Kind::kValue, ""},
      {"--cwd", OptionSpec::Kind::kValue, ""},
      {"--session", OptionSpec::Kind::kValue, ""},
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--json", OptionSpec::Kind::kFlag, ""},
      {"--yes", OptionSpec::Kind::kFlag, "-y"},
      {"--timings", OptionSpec::Kind::kFlag, ""},
      {"--image", OptionSpec::Kind::kRepeatedValue, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

// Runs on the watcher thread, never in signal context.
void WriteStderr(const char* text) {
  std::cerr << text;
  std::cerr.flush();
}

}  // namespace

const char kRunUsage[] =
    "usage: raw run [options] PROMPT...\n"
    "\n"
    "Sends PROMPT to an agent in a new session (or continues one) and prints the\n"
    "answer as it streams. PROMPT \"-\" reads the prompt from standard input.\n"
    "Options end at the first word of the prompt.\n"
    "\n"
    "options:\n"
    "  --agent NAME    agent to use (default: the configured default agent)\n"
    "  --cwd DIR       working directory of a new session (default: the current one)\n"
    "  --session ID    continue session ID instead of creating one\n"
    "  --json          print every event as one JSON object per line\n"
    "  --yes, -y       approve every tool call that asks (deny rules still deny);\n"
    "                  without it, calls that ask are put to you on a terminal\n"
    "                  and denied when there is none\n"
    "  --image FILE    send the image FILE (PNG, JPEG, GIF or WebP) with the\n"
    "                  prompt; may be given up to 10 times; the agent's model\n"
    "                  must be configured with \"images\": true\n"
    "  --timings       after the turn, print Raw's own time per step (rawd's\n"
    "                  timeline, without the model's, the tools' and your time)\n"
    "                  to standard error\n"
    "  --socket PATH   daemon socket\n"
    "\n"
    "exit status: 0 completed, 1 error, 2 usage or configuration problem,\n"
    "3 stopped at max_steps, 4 the session is held by another writer,\n"
    "130 cancelled.\n"
    "Ctrl-C interrupts the turn; a second Ctrl-C exits at once.\n";

absl::StatusOr<RunOptions> ParseRunArgs(const std::vector<std::string>& args,
                                        const std::string& cwd) {
  auto parsed = ParseArgs(args, RunSpecs(), OptionOrder::kBeforePositionals);
  if (!parsed.ok()) return parsed.status();
  RunOptions options;
  options.help = parsed->Has("--help");
  if (options.help) return options;
  options.agent = parsed->Value("--agent").value_or("");
  options.session_id = parsed->Value("--session").value_or("");
  options.socket = parsed->Value("--socket").value_or("");
  options.format = parsed->Has("--json") ? OutputFormat::kJson : OutputFormat::kText;
  options.yes = parsed->Has("--yes");
  options.timings = parsed->Has("--timings");
  if (auto images = parsed->repeated.find("--image"); images != parsed->repeated.end()) {
    for (const std::string& path : images->second) {
      if (path.empty()) return absl::InvalidArgumentError("--image needs a file");
      options.images.push_back(AbsolutePath(path, cwd));
    }
  }
  auto dir = parsed->Value("--cwd");
  if (!options.session_id.empty() && parsed->Value("--agent")) {
    return absl::InvalidArgumentError(
        "--agent cannot be combined with --session: a session keeps its agent");
  }
  if (!options.session_id.empty() && dir) {
    return absl::InvalidArgumentError(
        "--cwd cannot be combined with --session: a session keeps its directory");
  }
  if (dir && dir->empty()) return absl::InvalidArgumentError("--cwd needs a directory");
  options.cwd = dir ? AbsolutePath(*dir, cwd) : cwd;
  while (options.cwd.size() > 1 && options.cwd.back() == '/') options.cwd.pop_back();
  options.prompt = absl::StrJoin(parsed->positionals, " ");
  if (absl::StripAsciiWhitespace(options.prompt).empty()) {
    return absl::InvalidArgumentError("a prompt is required");
  }
  return options;
}

int RunCommand(const std::vector<std::string>& args, CliContext& ctx) {
  auto options = ParseRunArgs(args, ctx.cwd);
  if (!options.ok()) {
    ctx.err << "raw run: " << options.status().message() << "\n"
            << "Run 'raw run --help' for usage.\n";
    return kExitUsage;
  }
  if (options->help) {
    ctx.out << kRunUsage;
    return kExitOk;
  }
  if (options->prompt == "-") {
    options->prompt_from_stdin = true;
    options->prompt.assign(std::istreambuf_iterator<char>(std::cin),
                           std::istreambuf_iterator<char>());
    if (absl::StripAsciiWhitespace(options->prompt).empty()) {
      ctx.err << "raw run: the prompt read from standard input is empty\n";
      return kExitUsage;
    }
  }
  client::ConnectOptions connect = ctx.connect;
  if (!options->socket.empty()) connect.socket_path = options->socket;
  auto client = client::Connect(connect);
  if (!client.ok()) {
    ctx.err << "raw run: " << present::SanitizeForStream(client.status().message()) << "\n";
    return ExitCodeFor(client.status());
  }

  // A terminal shows the answer as it streams; a pipe or a file gets each
  // message once it is committed, nothing a restarted stream discarded.
  EventPrinter printer(options->format, ctx.out, ctx.err, ctx.out_is_terminal);
  // A prompt read from stdin ("-") leaves no terminal input to ask with.
  std::unique_ptr<ApprovalPrompter> approvals = MakeApprovalPrompter(
      options->yes, options->prompt_from_stdin ? -1 : STDIN_FILENO, ctx.err);
  TurnRunner runner(*client, printer, *approvals, ctx.err);
  // The second Ctrl-C ends the process inside the signal handler, even
  // while the first one's InterruptTurn call is still waiting.
  auto watcher = InterruptWatcher::Start(
      [&runner](int count) {
        if (count != 1) return;
        WriteStderr("\nraw run: interrupting the turn (press Ctrl-C again to quit now)\n");
        runner.Interrupt();
      },
      kExitCancelled);
  if (!watcher.ok()) {
    ctx.err << "raw run: " << watcher.status().message() << "\n";
    return kExitError;
  }
  TurnRequest request;
  request.session_id = options->session_id;
  request.agent = options->agent;
  request.cwd = options->cwd;
  request.prompt = options->prompt;
  for (const std::string& path : options->images) {
    absl::StatusOr<v1::Image> image = client::ReadImageFile(path);
    if (!image.ok()) {
      ctx.err << "raw run: " << image.status().message() << "\n";
      return kExitUsage;
    }
    request.images.push_back(*std::move(image));
  }
  request.client_name = absl::StrCat("raw run (pid ", getpid(), ")");
  request.client_pid = getpid();
  const int code = runner.Run(request);
  if (options->timings && !runner.session_id().empty()) {
    PrintTimings(*client, runner.session_id(), ctx.err);
  }
  return code;
}

const std::vector<OptionSpec>& RunOptionSpecs() { return RunSpecs(); }

}  // namespace raw::cli
