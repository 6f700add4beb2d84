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

}  // namespace
}  // namespace raw::tui
