// Slash commands of the terminal client: the table, parsing a submitted
// line, and Tab completion of command names and of /agent's agent names.
//
// Pure functions over a static table; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace raw::tui {

enum class Command {
  kCompact,
  kClear,
  kStats,
  kSessions,
  kResume,
  kNew,
  kAgent,
  kImage,
  kHelp,
  kQuit,
};

struct CommandInfo {
  Command command;
  const char* name;  // "/compact"
  const char* args;  // "[ID]", "" when none
  const char* help;
};

const std::vector<CommandInfo>& Commands();

struct ParsedCommand {
  Command command;
  std::string argument;  // trimmed; empty when none
};

// nullopt when `line` is not a slash command (does not start with "/", or
// starts with "//", which sends the text with one slash less). An unknown
// command is an error naming it.
struct CommandParse {
  std::optional<ParsedCommand> command;
  std::string error;
};
CommandParse ParseCommand(const std::string& line);

// The commands whose name starts with `prefix` (which starts with "/").
std::vector<const CommandInfo*> MatchCommands(const std::string& prefix);

// Tab on `text`: the completed text, or nullopt when nothing completes. A
// unique match gets a trailing space; several extend to their common
// prefix.
std::optional<std::string> CompleteCommand(const std::string& text);

// The same, and on "/agent PREFIX" the names in `agents` (those the daemon
// listed) that start with PREFIX complete the same way.
std::optional<std::string> CompleteCommand(const std::string& text,
                                           const std::vector<std::string>& agents);

// While "/agent PREFIX" is typed (one line): the names in `agents` that
// start with PREFIX, in their order; nullopt when `text` has another form.
std::optional<std::vector<std::string>> MatchAgentArgument(const std::string& text,
                                                           const std::vector<std::string>& agents);

}  // namespace raw::tui
