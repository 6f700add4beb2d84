#include "clients/tui/tui_main.h"

#include <unistd.h>

#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "clients/present/terminal_text.h"
#include "clients/tui/app.h"
#include "clients/tui/terminal.h"

namespace raw::tui {
namespace {

// A duration in milliseconds from the environment; `fallback` when unset
// or not a number.
absl::Duration DurationFromEnv(const EnvLookup& env, const char* name, absl::Duration fallback) {
  std::optional<std::string> value = env(name);
  int64_t ms = 0;
  if (!value || !absl::SimpleAtoi(*value, &ms) || ms < 0) return fallback;
  return absl::Milliseconds(ms);
}

}  // namespace

TuiExit RunInteractive(TuiOptions options, std::ostream& out, std::ostream& err) {
  // Quitting waits for a call in flight; keep that short.
  options.connect.call_timeout = absl::Seconds(15);
  // https://no-color.org: present and not empty.
  std::optional<std::string> no_color = options.connect.env("NO_COLOR");
  options.no_color = no_color.has_value() && !no_color->empty();
  options.client_name = absl::StrCat("raw (pid ", getpid(), ")");
  options.client_pid = getpid();
  options.handover.idle = DurationFromEnv(options.connect.env, "RAW_TUI_HANDOVER_IDLE_MS",
                                          options.handover.idle);
  options.handover.countdown = DurationFromEnv(
      options.connect.env, "RAW_TUI_HANDOVER_COUNTDOWN_MS", options.handover.countdown);
  options.approval_guard =
      DurationFromEnv(options.connect.env, "RAW_TUI_APPROVAL_GUARD_MS", options.approval_guard);

  auto terminal = Terminal::Open(options.plain, options.no_color);
  if (!terminal.ok()) {
    err << "raw: " << terminal.status().message() << "\n";
    return TuiExit{absl::FailedPreconditionError(terminal.status().message())};
  }
  TuiExit exit;
  std::string session_id;
  std::string message;
  {
    TuiApp app(options, **terminal);
    exit = app.Run();
    session_id = app.session_id();
    message = app.exit_message();
  }
  (*terminal)->Close();
  if (!message.empty()) err << "raw: " << present::SanitizeForStream(message) << "\n";
  if (!session_id.empty()) {
    out << "Session " << session_id << "; resume it with: raw resume " << session_id << "\n";
  }
  out.flush();
  return exit;
}

}  // namespace raw::tui
