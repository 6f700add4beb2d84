#include "clients/tui/tui_main.h"

#include <unistd.h>

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/cli/exit_codes.h"
#include "clients/tui/app.h"
#include "clients/tui/terminal.h"

namespace raw::tui {

int RunInteractive(const cli::InteractiveRequest& request, cli::CliContext& ctx) {
  TuiOptions options;
  options.connect = ctx.connect;
  // Quitting waits for a call in flight; keep that short.
  options.connect.call_timeout = absl::Seconds(15);
  options.agent = request.agent;
  options.cwd = request.cwd;
  options.session_id = request.session_id;
  options.pick_session = request.pick_session;
  options.plain = request.plain;
  // https://no-color.org: present and not empty.
  std::optional<std::string> no_color = ctx.connect.env("NO_COLOR");
  options.no_color = no_color.has_value() && !no_color->empty();
  options.client_name = absl::StrCat("raw (pid ", getpid(), ")");

  auto terminal = Terminal::Open(options.plain, options.no_color);
  if (!terminal.ok()) {
    ctx.err << "raw: " << terminal.status().message() << "\n";
    return cli::kExitUsage;
  }
  int code;
  std::string session_id;
  std::string message;
  {
    TuiApp app(options, **terminal);
    code = app.Run();
    session_id = app.session_id();
    message = app.exit_message();
  }
  (*terminal)->Close();
  if (!message.empty()) ctx.err << "raw: " << message << "\n";
  if (!session_id.empty()) {
    ctx.out << "Session " << session_id << "; resume it with: raw resume " << session_id << "\n";
  }
  ctx.out.flush();
  return code;
}

}  // namespace raw::tui
