#include "clients/tui/slash_commands.h"

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

TEST(SlashCommandsTest, ParsesCommandsAndArguments) {
  CommandParse p = ParseCommand("/resume  abc ");
  ASSERT_TRUE(p.command.has_value());
  EXPECT_EQ(p.command->command, Command::kResume);
  EXPECT_EQ(p.command->argument, "abc");
  EXPECT_EQ(ParseCommand("/exit").command->command, Command::kQuit);
  EXPECT_FALSE(ParseCommand("hello /stats").command.has_value());
  EXPECT_FALSE(ParseCommand("//not a command").command.has_value());
  EXPECT_TRUE(ParseCommand("//not a command").error.empty());
  EXPECT_EQ(ParseCommand("/frobnicate").error, "unknown command /frobnicate; /help lists the commands");
}

TEST(SlashCommandsTest, TabCompletes) {
  EXPECT_EQ(CompleteCommand("/st"), "/stats ");
  EXPECT_EQ(CompleteCommand("/c"), std::nullopt);  // /compact, /clear: no longer prefix
  EXPECT_EQ(CompleteCommand("/co"), "/compact ");
  EXPECT_EQ(CompleteCommand("/se"), "/sessions ");
  EXPECT_EQ(CompleteCommand("/stats x"), std::nullopt);
  EXPECT_EQ(CompleteCommand("plain"), std::nullopt);
  EXPECT_EQ(MatchCommands("/").size(), Commands().size());
}

TEST(SlashCommandsTest, TabCompletesAgentNames) {
  const std::vector<std::string> agents = {"coder", "coder-fast", "reviewer"};
  EXPECT_EQ(CompleteCommand("/ag", agents), "/agent ");
  EXPECT_EQ(CompleteCommand("/agent r", agents), "/agent reviewer ");
  EXPECT_EQ(CompleteCommand("/agent c", agents), "/agent coder");  // the common prefix
  EXPECT_EQ(CompleteCommand("/agent coder", agents), std::nullopt);  // coder, coder-fast
  EXPECT_EQ(CompleteCommand("/agent x", agents), std::nullopt);
  EXPECT_EQ(CompleteCommand("/agent r", {}), std::nullopt);  // agents not known (yet)
  EXPECT_EQ(CompleteCommand("/resume r", agents), std::nullopt);

  EXPECT_EQ(MatchAgentArgument("/agent ", agents), agents);
  EXPECT_EQ(MatchAgentArgument("/agent co", agents),
            (std::vector<std::string>{"coder", "coder-fast"}));
  EXPECT_EQ(MatchAgentArgument("/agent reviewer now", agents), std::nullopt);
  EXPECT_EQ(MatchAgentArgument("/agent", agents), std::nullopt);  // still the command name
  EXPECT_EQ(MatchAgentArgument("/stats ", agents), std::nullopt);
}

}  // namespace
}  // namespace raw::tui
