#include "clients/cli/sessions_command.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "clients/cli/args.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/history_printer.h"
#include "clients/cli/json_line.h"
#include "clients/present/terminal_text.h"
#include "clients/present/text.h"
#include "common/time.h"

namespace raw::cli {
namespace {

constexpr int kPageSize = 100;
constexpr int kHistoryPageSize = 200;
constexpr size_t kTitleChars = 60;

const std::vector<OptionSpec>& SessionsSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--json", OptionSpec::Kind::kFlag, ""},
      {"--full", OptionSpec::Kind::kFlag, ""},
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

bool PrintJson(const google::protobuf::Message& message, CliContext& ctx) {
  auto line = ToJsonLine(message);
  if (!line.ok()) {
    ctx.err << "raw sessions: " << line.status().message() << "\n";
    return false;
  }
  ctx.out << *line << "\n";
  return true;
}

int List(client::RawClient& client, bool json, CliContext& ctx) {
  std::vector<v1::Session> sessions;
  v1::ListSessionsRequest request;
  request.set_page_size(kPageSize);
  for (;;) {
    auto page = client.ListSessions(request);
    if (!page.ok()) {
      ctx.err << "raw sessions list: " << present::SanitizeForStream(page.status().message())
              << "\n";
      return ExitCodeFor(page.status());
    }
    for (const auto& session : page->sessions()) {
      if (json) {
        if (!PrintJson(session, ctx)) return kExitError;
      } else {
        sessions.push_back(session);
      }
    }
    if (page->next_page_token().empty()) break;
    request.set_page_token(page->next_page_token());
  }
  if (!json) PrintSessionTable(sessions, SystemClock().NowUnixMs(), ctx.out);
  return kExitOk;
}

int Show(client::RawClient& client, const std::string& id, bool json, bool full, CliContext& ctx) {
  // GetSession first: an unknown id gets the daemon's clear "not found".
  v1::GetSessionRequest get;
  get.set_session_id(id);
  auto session = client.GetSession(get);
  if (!session.ok()) {
    ctx.err << "raw sessions show: " << present::SanitizeForStream(session.status().message())
            << "\n";
    return ExitCodeFor(session.status());
  }
  HistoryPrinter printer(ctx.out, full);
  if (!json) {
    ctx.out << "session " << present::SanitizeForStream(session->session().id()) << " (agent "
            << present::SanitizeForStream(session->session().agent()) << ", "
            << present::SanitizeForStream(session->session().cwd()) << ")\n\n";
  }
  v1::GetHistoryRequest request;
  request.set_session_id(id);
  request.set_limit(kHistoryPageSize);
  request.set_direction(v1::HISTORY_DIRECTION_FORWARD);
  for (;;) {
    auto page = client.GetHistory(request);
    if (!page.ok()) {
      ctx.err << "raw sessions show: " << present::SanitizeForStream(page.status().message())
              << "\n";
      return ExitCodeFor(page.status());
    }
    for (const auto& event : page->events()) {
      if (json) {
        if (!PrintJson(event, ctx)) return kExitError;
      } else {
        printer.Print(event);
      }
    }
    if (page->next_cursor().empty()) break;
    request.set_cursor(page->next_cursor());
  }
  ctx.out.flush();
  return kExitOk;
}

}  // namespace

const char kSessionsUsage[] =
    "usage: raw sessions list [--json]\n"
    "       raw sessions show ID [--full] [--json]\n"
    "\n"
    "list  every session, most recently active first: id, agent, last activity,\n"
    "      when it expires, title\n"
    "show  the history of session ID: messages, tool calls and results, notices\n"
    "\n"
    "options:\n"
    "  --full          show: every tool result whole (a Raven result's Artifact)\n"
    "  --json          one JSON object per line (sessions, or history events)\n"
    "  --socket PATH   daemon socket\n";

void PrintSessionTable(const std::vector<v1::Session>& sessions, int64_t now_unix_ms,
                       std::ostream& out) {
  if (sessions.empty()) {
    out << "no sessions\n";
    return;
  }
  // Ids and agents come from any client of the daemon: sanitized like the
  // titles, each on its line.
  auto shown = [](const std::string& text) {
    return present::SanitizeForStream(present::ShowLineBreaks(text));
  };
  size_t id_width = 2;
  size_t agent_width = 5;
  for (const auto& s : sessions) {
    id_width = std::max(id_width, shown(s.id()).size());
    agent_width = std::max(agent_width, shown(s.agent()).size());
  }
  auto pad = [](const std::string& text, size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
  };
  out << pad("ID", id_width) << "  " << pad("AGENT", agent_width) << "  "
      << pad("LAST ACTIVITY", 16) << "  " << pad("EXPIRES", 11) << "  TITLE\n";
  for (const auto& s : sessions) {
    std::string title = s.title().empty() ? "-"
                                           : present::SanitizeForStream(present::Truncate(
                                                 present::OneLine(s.title()), kTitleChars));
    out << pad(shown(s.id()), id_width) << "  " << pad(shown(s.agent()), agent_width) << "  "
        << pad(present::FormatLocalTime(s.last_activity_unix_ms()), 16) << "  "
        << pad(present::FormatExpiry(s.expires_at_unix_ms(), now_unix_ms), 11) << "  " << title
        << "\n";
  }
}

int SessionsCommand(const std::vector<std::string>& args, CliContext& ctx) {
  auto parsed = ParseArgs(args, SessionsSpecs(), OptionOrder::kAnywhere);
  if (!parsed.ok()) {
    ctx.err << "raw sessions: " << parsed.status().message() << "\n"
            << "Run 'raw sessions --help' for usage.\n";
    return kExitUsage;
  }
  if (parsed->Has("--help")) {
    ctx.out << kSessionsUsage;
    return kExitOk;
  }
  const auto& pos = parsed->positionals;
  std::string action = pos.empty() ? "" : pos[0];
  if (action != "list" && action != "show") {
    ctx.err << (action.empty() ? std::string("raw sessions: which action? list or show")
                               : absl::StrCat("raw sessions: unknown action '", action,
                                              "' (expected list or show)"))
            << "\n"
            << "Run 'raw sessions --help' for usage.\n";
    return kExitUsage;
  }
  size_t expected = action == "list" ? 1 : 2;
  if (pos.size() != expected) {
    ctx.err << (pos.size() < expected ? "raw sessions show: a session ID is required"
                                      : absl::StrCat("raw sessions ", action,
                                                     ": unexpected argument '",
                                                     pos[expected], "'"))
            << "\n";
    return kExitUsage;
  }
  client::ConnectOptions connect = ctx.connect;
  if (auto socket = parsed->Value("--socket")) connect.socket_path = *socket;
  auto client = client::Connect(connect);
  if (!client.ok()) {
    ctx.err << "raw sessions: " << client.status().message() << "\n";
    return ExitCodeFor(client.status());
  }
  bool json = parsed->Has("--json");
  return action == "list" ? List(*client, json, ctx)
                           : Show(*client, pos[1], json, parsed->Has("--full"), ctx);
}

const std::vector<OptionSpec>& SessionsOptionSpecs() { return SessionsSpecs(); }

}  // namespace raw::cli
