#include "daemon/mcp/tool_naming.h"

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "daemon/config/mcp_server_entry.h"
#include "gmock/gmock.h"
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

// Names rules and tools.use patterns could not name exactly are unusable.
TEST(ToolNamingTest, NamesRulesCannotMatchExactlyAreUnusable) {
  for (const char* usable : {"read_file", "issues.list", "a/b:c-d", "caf\u00e9", "\u65e5\u672c"}) {
    EXPECT_EQ(ToolNameProblem(usable), "") << usable;
  }
  EXPECT_EQ(ToolNameProblem("delete\nall"), "whitespace");
  EXPECT_EQ(ToolNameProblem("a b"), "whitespace");
  EXPECT_EQ(ToolNameProblem(std::string("nul\0x", 5)), "a control character");
  EXPECT_EQ(ToolNameProblem("del\x7f"), "a control character");
  EXPECT_EQ(ToolNameProblem("c1\u0085"), "a control character");
  EXPECT_EQ(ToolNameProblem("nb\u00a0sp"), "whitespace or an invisible character");
  EXPECT_EQ(ToolNameProblem("line\u2028sep"), "whitespace or an invisible character");
  EXPECT_EQ(ToolNameProblem("bom\ufeff"), "whitespace or an invisible character");
  EXPECT_EQ(ToolNameProblem("rlo\u202e"), "a bidirectional formatting character");
  EXPECT_EQ(ToolNameProblem("all*"), "'*'");
  EXPECT_EQ(ToolNameProblem("a?"), "'?'");
  EXPECT_EQ(ToolNameProblem("a\\b"), "'\\'");
  EXPECT_EQ(ToolNameProblem("bad\xff"), "ill-formed UTF-8");
}

TEST(ToolNamingTest, EscapedNamesAreSafeToShow) {
  EXPECT_EQ(EscapedToolName("delete\nall"), "delete\\nall");
  EXPECT_EQ(EscapedToolName("esc\x1b]0;x\x07"), "esc\\x1B]0;x\\x07");
  EXPECT_EQ(EscapedToolName("a\\b"), "a\\\\b");
  EXPECT_EQ(EscapedToolName("rlo\u202e caf\u00e9"), "rlo\\u202E caf\u00e9");
  EXPECT_EQ(EscapedToolName("bad\xff"), "bad\\xFF");
  std::string long_name = EscapedToolName(std::string(1000, 'a'));
  EXPECT_LE(long_name.size(), 210u);
  EXPECT_EQ(long_name.substr(long_name.size() - 3), "…");
}

TEST(ToolNamingTest, ShortensLongNames) {
  std::string tool(100, 'a');
  std::string name = ModelFacingToolName("server", tool);
  EXPECT_EQ(name.size(), 64u);
  EXPECT_TRUE(IsValidModelName(name));
  EXPECT_NE(name, ModelFacingToolName("server", tool + "b"));
}

// Every string of length 1..max_length over `alphabet`.
std::vector<std::string> AllStrings(const std::string& alphabet, size_t max_length) {
  std::vector<std::string> out;
  std::vector<std::string> last = {""};
  for (size_t length = 1; length <= max_length; ++length) {
    std::vector<std::string> next;
    for (const std::string& prefix : last) {
      for (char c : alphabet) next.push_back(prefix + c);
    }
    out.insert(out.end(), next.begin(), next.end());
    last = std::move(next);
  }
  return out;
}

TEST(ToolNamingTest, ServerNamesWithDoubleUnderscoresAreHashedApart) {
  // "mcp__a__b__c" would be both (a__b, c) and (a, b__c); config refuses
  // such server names, and the naming hashes them should one get through.
  EXPECT_EQ(ModelFacingToolName("a", "b__c"), "mcp__a__b__c");
  std::string odd = ModelFacingToolName("a__b", "c");
  EXPECT_NE(odd, "mcp__a__b__c");
  EXPECT_TRUE(IsValidModelName(odd)) << odd;
  EXPECT_NE(ModelFacingToolName("a_", "_b"), ModelFacingToolName("a", "__b"));
}

TEST(ToolNamingTest, DifferentPairsNeverShareAName) {
  // Every server name config accepts and every tool name over a small
  // alphabet that keeps names unhashed: the pair is always recoverable.
  std::vector<std::string> servers;
  for (const std::string& s : AllStrings("a_-", 4)) {
    if (config::IsMcpServerName(s) && !config::AmbiguousServerName(s)) servers.push_back(s);
  }
  ASSERT_THAT(servers, ::testing::Contains("a_a"));
  ASSERT_THAT(servers, ::testing::Not(::testing::Contains("a__a")));
  ASSERT_THAT(servers, ::testing::Not(::testing::Contains("a_")));
  std::map<std::string, std::string> seen;  // model-facing name -> qualified
  for (const std::string& server : servers) {
    for (const std::string& tool : AllStrings("a_-", 4)) {
      std::string name = ModelFacingToolName(server, tool);
      auto [it, inserted] = seen.emplace(name, QualifiedToolName(server, tool));
      EXPECT_TRUE(inserted) << name << " is both " << it->second << " and "
                            << QualifiedToolName(server, tool);
    }
  }
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
