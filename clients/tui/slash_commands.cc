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
      {Command::kAgent, "/agent", "[NAME]",
       "start a new session with agent NAME (a list without NAME)"},
      {Command::kImage, "/image", "[PATH]",
       "attach an image to your next message (without PATH: drop the attached ones)"},
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

namespace {

constexpr char kAgentCommand[] = "/agent ";

// A unique candidate, with a trailing space; several, their common prefix
// when it is longer than `typed`.
std::optional<std::string> Complete(const std::string& typed,
                                    const std::vector<std::string>& candidates) {
  if (candidates.empty()) return std::nullopt;
  if (candidates.size() == 1) return candidates[0] + " ";
  std::string common = candidates[0];
  for (const std::string& c : candidates) {
    size_t i = 0;
    while (i < common.size() && i < c.size() && c[i] == common[i]) ++i;
    common.resize(i);
  }
  if (common.size() <= typed.size()) return std::nullopt;
  return common;
}

}  // namespace

std::optional<std::string> CompleteCommand(const std::string& text) {
  return CompleteCommand(text, {});
}

std::optional<std::string> CompleteCommand(const std::string& text,
                                           const std::vector<std::string>& agents) {
  if (std::optional<std::vector<std::string>> names = MatchAgentArgument(text, agents)) {
    std::string prefix = text.substr(sizeof kAgentCommand - 1);
    std::optional<std::string> completed = Complete(prefix, *names);
    if (!completed) return std::nullopt;
    return kAgentCommand + *completed;
  }
  if (!absl::StartsWith(text, "/") || text.find_first_of(" \t\n") != std::string::npos) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const CommandInfo* m : MatchCommands(text)) names.push_back(m->name);
  return Complete(text, names);
}

std::optional<std::vector<std::string>> MatchAgentArgument(const std::string& text,
                                                           const std::vector<std::string>& agents) {
  if (!absl::StartsWith(text, kAgentCommand)) return std::nullopt;
  std::string prefix = text.substr(sizeof kAgentCommand - 1);
  if (prefix.find_first_of(" \t\n") != std::string::npos) return std::nullopt;
  std::vector<std::string> matches;
  for (const std::string& name : agents) {
    if (absl::StartsWith(name, prefix)) matches.push_back(name);
  }
  return matches;
}

}  // namespace raw::tui
