#include "daemon/mcp/tool_naming.h"

#include <regex>

#include "gtest/gtest.h"

namespace raw::mcp {
namespace {

bool IsValidModelName(const std::string& name) {
  return std::regex_match(name, std::regex("^[a-zA-Z0-9_-]{1,64}$"));
}

TEST(ToolNamingTest, KeepsCleanNames) {
  EXPECT_EQ(QualifiedToolName("fs", "read_file"), "mcp/fs/read_file");
  EXPECT_EQ(ModelFacingToolName("fs", "read_file"), "mcp__fs__read_file");
  EXPECT_EQ(ModelFacingToolName("everything", "get-sum"), "mcp__everything__get-sum");
}

TEST(ToolNamingTest, SanitizesWithAStableHash) {
  std::string dotted = ModelFacingToolName("gh", "issues.list");
  std::string underscored = ModelFacingToolName("gh", "issues_list");
  EXPECT_TRUE(IsValidModelName(dotted)) << dotted;
  EXPECT_EQ(underscored, "mcp__gh__issues_list");
  // Both sanitize to the same stem; the hash keeps them apart.
  EXPECT_NE(dotted, underscored);
  EXPECT_EQ(dotted.rfind("mcp__gh__issues_list_", 0), 0u) << dotted;
  // The same on every call (and run: the hash is FNV-1a of the name).
  EXPECT_EQ(dotted, ModelFacingToolName("gh", "issues.list"));
  EXPECT_EQ(dotted, "mcp__gh__issues_list_152d6992") << "the hash must never change";
}

TEST(ToolNamingTest, ShortensLongNames) {
  std::string tool(100, 'a');
  std::string name = ModelFacingToolName("server", tool);
  EXPECT_EQ(name.size(), 64u);
  EXPECT_TRUE(IsValidModelName(name));
  EXPECT_NE(name, ModelFacingToolName("server", tool + "b"));
}

TEST(ToolNamingTest, PatternMayMatchPrefix) {
  EXPECT_TRUE(PatternMayMatchPrefix("mcp/fs/*", "mcp/fs/"));
  EXPECT_TRUE(PatternMayMatchPrefix("mcp/fs/read_file", "mcp/fs/"));
  EXPECT_TRUE(PatternMayMatchPrefix("mcp/*", "mcp/fs/"));
  EXPECT_TRUE(PatternMayMatchPrefix("*", "mcp/fs/"));
  EXPECT_TRUE(PatternMayMatchPrefix("mcp/f*/x", "mcp/fs/"));
  EXPECT_TRUE(PatternMayMatchPrefix("*/fs/*", "mcp/fs/"));
  EXPECT_FALSE(PatternMayMatchPrefix("mcp/fsx/*", "mcp/fs/"));
  EXPECT_FALSE(PatternMayMatchPrefix("mcp/git/*", "mcp/fs/"));
  EXPECT_FALSE(PatternMayMatchPrefix("builtin/*", "mcp/fs/"));
  EXPECT_FALSE(PatternMayMatchPrefix("mcp/fs", "mcp/fs/"));
}

}  // namespace
}  // namespace raw::mcp
