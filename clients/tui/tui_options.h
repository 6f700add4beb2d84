// TuiOptions: what the terminal client is asked to open, and how.
#pragma once

#include <string>

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
};

}  // namespace raw::tui
