#include "common/star_glob.h"

#include <gtest/gtest.h>

namespace raw {
namespace {

TEST(StarGlobTest, StarMatchesAnyRunSlashesIncluded) {
  EXPECT_TRUE(StarGlobMatch("*", ""));
  EXPECT_TRUE(StarGlobMatch("mcp/*", "mcp/server/tool"));
  EXPECT_TRUE(StarGlobMatch("mcp/*/read", "mcp/a/b/read"));
  EXPECT_TRUE(StarGlobMatch("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(StarGlobMatch("builtin/*", "mcp/x"));
  EXPECT_FALSE(StarGlobMatch("a*c", "abd"));
  EXPECT_FALSE(StarGlobMatch("abc", "ab"));
}

TEST(StarGlobTest, APatternMayMatchWhatStartsWithAPrefix) {
  EXPECT_TRUE(StarGlobMayMatchPrefix("mcp/*", "mcp/files/"));
  EXPECT_TRUE(StarGlobMayMatchPrefix("mcp/fi*/read", "mcp/files/"));
  EXPECT_TRUE(StarGlobMayMatchPrefix("mcp/files/read", "mcp/files/"));
  EXPECT_TRUE(StarGlobMayMatchPrefix("*", "mcp/files/"));
  EXPECT_FALSE(StarGlobMayMatchPrefix("mcp/git*/read", "mcp/files/"));
  EXPECT_FALSE(StarGlobMayMatchPrefix("mcp/files", "mcp/files/"));
  EXPECT_FALSE(StarGlobMayMatchPrefix("builtin/*", "mcp/files/"));
}

}  // namespace
}  // namespace raw
