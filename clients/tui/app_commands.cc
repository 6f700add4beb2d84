// TuiApp: slash commands.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/present/text.h"
#include "clients/tui/app.h"
#include "clients/tui/footer.h"
#include "common/time.h"

namespace raw::tui {

void TuiApp::RunCommand(const ParsedCommand& command) {
  switch (command.command) {
    case Command::kCompact:
      Compact();
      return;
    case Command::kClear:
      ClearContext();
      return;
    case Command::kStats:
      ShowStats();
      return;
    case Command::kSessions:
      ShowSessions();
      return;
    case Command::kResume:
      if (command.argument.empty()) {
        ShowPicker();
      } else {
        LoadSession(command.argument);
      }
      return;
    case Command::kNew:
      CreateSession(session_.agent(), session_.cwd().empty() ? options_.cwd : session_.cwd());
      return;
    case Command::kAgent:
      if (command.argument.empty()) {
        LoadAgents(/*pick=*/true);
        return;
      }
      CreateSession(command.argument, session_.cwd().empty() ? options_.cwd : session_.cwd());
      return;
    case Command::kHelp:
      ShowHelp();
      return;
    case Command::kQuit:
      quit_ = true;
      return;
  }
}

void TuiApp::ShowPicker() {
  if (!client_) return;
  worker_.Run([this, client = client_] {
    v1::ListSessionsRequest request;
    request.set_page_size(200);
    auto response = client->ListSessions(request);
    ui_.Post([this, response] {
      if (!response.ok()) {
        if (session_.id().empty()) {
          Fail(response.status());
        } else {
          AddError("Cannot list the sessions", response.status());
        }
        return;
      }
      picker_.Open({response->sessions().begin(), response->sessions().end()},
                   raw::SystemClock().NowUnixMs());
    });
  });
}

void TuiApp::ShowSessions() {
  worker_.Run([this, client = client_] {
    v1::ListSessionsRequest request;
    request.set_page_size(50);
    auto response = client->ListSessions(request);
    ui_.Post([this, response] {
      if (!response.ok()) {
        AddError("Cannot list the sessions", response.status());
        return;
      }
      Lines lines;
      lines.emplace_back("Sessions, most recently active first (/resume ID opens one)",
                         Style{Role::kAccent, kAttrBold});
      for (const v1::Session& s : response->sessions()) {
        StyledLine line;
        line.Add(absl::StrFormat("  %s  %-12s  %-16s  ", s.id(), s.agent(),
                                 present::FormatLocalTime(s.last_activity_unix_ms())),
                 s.id() == session_.id() ? Style{Role::kAccent} : Style{});
        line.Add(s.title().empty() ? "-" : present::Truncate(present::OneLine(s.title()), 60),
                 Style{Role::kDim});
        lines.push_back(std::move(line));
      }
      if (response->sessions().empty()) lines.emplace_back("  no sessions", Style{Role::kDim});
      transcript_.AddInfo(std::move(lines));
    });
  });
}

void TuiApp::ShowStats() {
  v1::GetStatsRequest request;
  request.set_session_id(session_.id());
  worker_.Run([this, client = client_, request] {
    auto response = client->GetStats(request);
    ui_.Post([this, response] {
      if (!response.ok()) {
        AddError("Cannot get the statistics", response.status());
        return;
      }
      transcript_.AddInfo(RenderStats(*response));
    });
  });
}

void TuiApp::Compact() {
  if (!CanWrite()) {
    SetStatus("Read-only: only the client holding the session can compact it");
    return;
  }
  if (transcript_.turn_running() || transcript_.compacting()) {
    SetStatus("Wait for the agent to finish before compacting");
    return;
  }
  v1::CompactRequest request;
  request.set_session_id(session_.id());
  request.set_lease_id(lease_.lease_id());
  worker_.Run([this, client = client_, request] {
    auto response = client->Compact(request);
    if (response.ok()) return;
    ui_.Post([this, status = response.status()] { AddError("Cannot compact", status); });
  });
}

void TuiApp::ClearContext() {
  if (!CanWrite()) {
    SetStatus("Read-only: only the client holding the session can clear it");
    return;
  }
  v1::ClearContextRequest request;
  request.set_session_id(session_.id());
  request.set_lease_id(lease_.lease_id());
  worker_.Run([this, client = client_, request] {
    auto response = client->ClearContext(request);
    ui_.Post([this, response] {
      if (!response.ok()) {
        AddError("Cannot clear the context", response.status());
        return;
      }
      if (response->has_context()) *session_.mutable_context() = response->context();
    });
  });
}

void TuiApp::ShowHelp() {
  Lines lines;
  Style head{Role::kAccent, kAttrBold};
  Style dim{Role::kDim};
  auto row = [&lines, dim](const std::string& key, const std::string& what) {
    StyledLine line;
    line.Add(absl::StrFormat("  %-22s", key), Style{Role::kDefault, kAttrBold});
    line.Add(what, dim);
    lines.push_back(std::move(line));
  };
  lines.emplace_back("Keys", head);
  row("Enter", "send the message");
  row("Ctrl-J, Alt-Enter", "new line");
  row("Up, Down", "move between lines; at the edges, earlier prompts");
  row("Esc, Ctrl-C", "interrupt the agent");
  row("Ctrl-C twice, Ctrl-D", "quit when idle (Ctrl-D with an empty prompt)");
  row("PgUp, PgDn, wheel", "scroll the transcript");
  row("Ctrl-Up, Ctrl-Down", "scroll by a line");
  row("Ctrl-Home, Ctrl-End", "top of the history, back to the end");
  row("Ctrl-O, click", "expand or collapse tool results and reasoning");
  row("Ctrl-T", "ask the client holding this session to hand it over");
  row("Ctrl-L", "redraw");
  row("Tab", "complete a command");
  lines.emplace_back("Commands", head);
  for (const CommandInfo& info : Commands()) {
    row(absl::StrCat(info.name, *info.args ? " " : "", info.args), info.help);
  }
  row("//text", "send text that starts with a slash");
  transcript_.AddInfo(std::move(lines));
}

}  // namespace raw::tui
