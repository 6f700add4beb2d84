// TuiOptions: what the terminal client is asked to open, and how.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"

#include "clients/lib/handover_gate.h"
#include "clients/lib/raw_client.h"

namespace raw::tui {

struct TuiOptions {
  client::ConnectOptions connect;
  std::string agent;       // a new session's agent; empty: the default agent
  std::string cwd;         // a new session's directory (absolute)
  std::string session_id;  // resume this session
  bool pick_session = false;  // resume, choosing from a list
  bool plain = false;         // no colours, ASCII glyphs
  bool no_color = false;      // NO_COLOR was set
  std::string client_name;    // shown to other clients, "raw (pid N)"
  int64_t client_pid = 0;
  // When this client, holding the session, hands it over to one that asks
  // (see client::HandoverGate); 10 s each unless RAW_TUI_HANDOVER_IDLE_MS
  // and RAW_TUI_HANDOVER_COUNTDOWN_MS say otherwise.
  client::HandoverGate::Timing handover;
  // How long an approval's answers are on screen before keys answer them
  // (ApprovalPanel::kGuard unless RAW_TUI_APPROVAL_GUARD_MS says otherwise).
  absl::Duration approval_guard = absl::Milliseconds(500);
};

// How the terminal client ended.
struct TuiExit {
  // OK when the user quit; otherwise why the client could not go on (its
  // code says whether the request was refused as given).
  absl::Status status;
  int signal = 0;  // the signal that ended it (SIGTERM, SIGHUP, ...), or 0
};

}  // namespace raw::tui
