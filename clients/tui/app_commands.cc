// TuiApp: slash commands.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/lib/image_file.h"
#include "clients/present/terminal_text.h"
#include "clients/present/text.h"
#include "clients/tui/app.h"
#include "clients/tui/footer.h"
#include "clients/tui/text_width.h"
#include "common/paths.h"
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
        controller_.OpenSession(command.argument);
      }
      return;
    case Command::kNew:
      controller_.CreateSession(controller_.session().agent(), SessionCwd());
      return;
    case Command::kAgent:
      if (command.argument.empty()) {
        LoadAgents(/*pick=*/true);
        return;
      }
      controller_.ChangeAgent(command.argument, options_.cwd);
      return;
    case Command::kImage:
      AttachImage(command.argument);
      return;
    case Command::kHelp:
      ShowHelp();
      return;
    case Command::kQuit:
      quit_ = true;
      return;
  }
}

void TuiApp::AttachImage(const std::string& path) {
  if (path.empty()) {
    transcript_.AddInfoText(
        attached_images_.empty()
            ? "No image is attached"
            : absl::StrCat("Dropped ", attached_images_.size(),
                           attached_images_.size() == 1 ? " image" : " images"));
    attached_images_.clear();
    return;
  }
  if (attached_images_.size() >= kMaxAttachedImages) {
    transcript_.AddInfoText(absl::StrCat("A message takes at most ", kMaxAttachedImages, " images"),
                            Level::kError);
    return;
  }
  // Relative to the directory new sessions get (--cwd, else where raw
  // started).
  absl::StatusOr<v1::Image> image = client::ReadImageFile(AbsolutePath(path, options_.cwd));
  if (!image.ok()) {
    transcript_.AddInfoText(std::string(image.status().message()), Level::kError);
    return;
  }
  transcript_.AddInfoText(absl::StrCat("Attached ",
                                       present::ImageLabel(image->mime_type(), image->width(),
                                                           image->height(), image->data().size()),
                                       ": it goes with your next message (/image alone drops it)"));
  attached_images_.push_back(*std::move(image));
}

void TuiApp::ShowPicker() {
  controller_.ListSessions(200, [this](const absl::StatusOr<v1::ListSessionsResponse>& response) {
    if (!response.ok()) {
      if (!controller_.has_session()) {
        Fail(response.status());
      } else {
        AddError("Cannot list the sessions", response.status());
      }
      return;
    }
    picker_.Open({response->sessions().begin(), response->sessions().end()},
                 raw::SystemClock().NowUnixMs());
  });
}

void TuiApp::ShowSessions() {
  controller_.ListSessions(50, [this](const absl::StatusOr<v1::ListSessionsResponse>& response) {
    if (!response.ok()) {
      AddError("Cannot list the sessions", response.status());
      return;
    }
    Lines lines;
    lines.emplace_back("Sessions, most recently active first (/resume ID opens one)",
                       Style{Role::kAccent, kAttrBold});
    for (const v1::Session& s : response->sessions()) {
      StyledLine line;
      // Ids, agents and titles can come from any client of the daemon: shown
      // as the session picker shows them.
      line.Add(
          absl::StrFormat("  %s  %-12s  %-16s  ", SanitizeLine(s.id()), SanitizeLine(s.agent()),
                          present::FormatLocalTime(s.last_activity_unix_ms())),
          s.id() == controller_.session().id() ? Style{Role::kAccent} : Style{});
      line.Add(
          s.title().empty()
              ? "-"
              : present::Truncate(present::OneLine(present::SanitizeForTerminal(s.title())), 60),
          Style{Role::kDim});
      lines.push_back(std::move(line));
    }
    if (response->sessions().empty()) lines.emplace_back("  no sessions", Style{Role::kDim});
    transcript_.AddInfo(std::move(lines));
  });
}

void TuiApp::ShowStats() {
  controller_.GetStats([this](const absl::StatusOr<v1::GetStatsResponse>& response) {
    if (!response.ok()) {
      AddError("Cannot get the statistics", response.status());
      return;
    }
    transcript_.AddInfo(RenderStats(*response));
  });
}

void TuiApp::Compact() {
  if (!controller_.can_write()) {
    SetStatus("Read-only: only the client holding the session can compact it");
    return;
  }
  if (Busy()) {
    SetStatus("Wait for the agent to finish before compacting");
    return;
  }
  if (absl::Status s = controller_.Compact(ReportError("Cannot compact")); !s.ok()) {
    AddError("Cannot compact", s);
  }
}

void TuiApp::ClearContext() {
  if (!controller_.can_write()) {
    SetStatus("Read-only: only the client holding the session can clear it");
    return;
  }
  if (absl::Status s = controller_.ClearContext(ReportError("Cannot clear the context")); !s.ok()) {
    AddError("Cannot clear the context", s);
  }
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
