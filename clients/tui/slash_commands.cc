#include "clients/tui/slash_commands.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace raw::tui {

const std::vector<CommandInfo>& Commands() {
  static const std::vector<CommandInfo> commands = {
      {Command::kCompact, "/compact", "", "summarize older turns to shrink the model context"},
      {Command::kClear, "/clear", "", "empty the model context (history and usage stay)"},
      {Command::kStats, "/stats", "", "token usage of this session, per field"},
      {Command::kSessions, "/sessions", "", "list sessions"},
      {Command::kResume, "/resume", "[ID]", "open another session (a picker without ID)"},
      {Command::kNew, "/new", "", "start a new session with the same agent"},
      {Command::kAgent, "/agent", "[NAME]", "start a new session with agent NAME"},
      {Command::kHelp, "/help", "", "keys and commands"},
      {Command::kQuit, "/quit", "", "leave raw (the session stays)"},
  };
  return commands;
}

CommandParse ParseCommand(const std::string& line) {
  CommandParse parse;
  std::string text(absl::StripAsciiWhitespace(line));
  if (!absl::StartsWith(text, "/") || absl::StartsWith(text, "//")) return parse;
  size_t space = text.find_first_of(" \t\n");
  std::string name = text.substr(0, space);
  std::string argument =
      space == std::string::npos ? "" : std::string(absl::StripAsciiWhitespace(text.substr(space)));
  if (name == "/exit") name = "/quit";
  for (const CommandInfo& info : Commands()) {
    if (name == info.name) {
      parse.command = ParsedCommand{info.command, argument};
      return parse;
    }
  }
  parse.error = absl::StrCat("unknown command ", name, "; /help lists the commands");
  return parse;
}

std::vector<const CommandInfo*> MatchCommands(const std::string& prefix) {
  std::vector<const CommandInfo*> matches;
  for (const CommandInfo& info : Commands()) {
    if (absl::StartsWith(info.name, prefix)) matches.push_back(&info);
  }
  return matches;
}

std::optional<std::string> CompleteCommand(const std::string& text) {
  if (!absl::StartsWith(text, "/") || text.find_first_of(" \t\n") != std::string::npos) {
    return std::nullopt;
  }
  std::vector<const CommandInfo*> matches = MatchCommands(text);
  if (matches.empty()) return std::nullopt;
  if (matches.size() == 1) return std::string(matches[0]->name) + " ";
  std::string common = matches[0]->name;
  for (const CommandInfo* m : matches) {
    size_t i = 0;
    while (i < common.size() && m->name[i] == common[i]) ++i;
    common.resize(i);
  }
  if (common.size() <= text.size()) return std::nullopt;
  return common;
}

}  // namespace raw::tui
