#include "daemon/tools/builtin/path_glob.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools::builtin {
namespace {

using ::testing::HasSubstr;

PathGlob Compiled(const std::string& pattern) {
  absl::StatusOr<PathGlob> glob = PathGlob::Compile(pattern);
  EXPECT_TRUE(glob.ok()) << glob.status();
  return glob.ok() ? *std::move(glob) : *PathGlob::Compile("never-matches-anything");
}

TEST(PathGlobTest, StarAndQuestionMarkStayWithinASegment) {
  PathGlob glob = Compiled("src/*.cc");
  EXPECT_TRUE(glob.Matches("src/a.cc"));
  EXPECT_TRUE(glob.Matches("src/.hidden.cc"));
  EXPECT_FALSE(glob.Matches("src/x/a.cc"));
  EXPECT_FALSE(glob.Matches("a.cc"));
  EXPECT_TRUE(Compiled("?.h").Matches("a.h"));
  EXPECT_FALSE(Compiled("?.h").Matches("ab.h"));
}

TEST(PathGlobTest, DoubleStarMatchesAnyNumberOfSegments) {
  PathGlob glob = Compiled("a/**/b.txt");
  EXPECT_TRUE(glob.Matches("a/b.txt"));
  EXPECT_TRUE(glob.Matches("a/x/b.txt"));
  EXPECT_TRUE(glob.Matches("a/x/y/z/b.txt"));
  EXPECT_FALSE(glob.Matches("b.txt"));
  EXPECT_TRUE(Compiled("**").Matches("any/thing"));
  EXPECT_TRUE(Compiled("**/*.cc").Matches("top.cc"));
  EXPECT_FALSE(Compiled("dir/**").Matches("dir"));
  EXPECT_TRUE(Compiled("dir/**").Matches("dir/x"));
}

TEST(PathGlobTest, BracesAndClasses) {
  PathGlob glob = Compiled("*.{h,cc,{c,cpp}}");
  for (const char* name : {"a.h", "a.cc", "a.c", "a.cpp"}) EXPECT_TRUE(glob.Matches(name)) << name;
  EXPECT_FALSE(glob.Matches("a.hpp"));
  EXPECT_TRUE(Compiled("[a-c]x").Matches("bx"));
  EXPECT_FALSE(Compiled("[a-c]x").Matches("dx"));
  EXPECT_TRUE(Compiled("\\{literal\\}").Matches("{literal}"));
}

TEST(PathGlobTest, PruningSaysWhichDirectoriesCanHoldMatches) {
  PathGlob glob = Compiled("src/*/test/*.cc");
  EXPECT_TRUE(glob.CouldMatchInside("src"));
  EXPECT_TRUE(glob.CouldMatchInside("src/lib"));
  EXPECT_TRUE(glob.CouldMatchInside("src/lib/test"));
  EXPECT_FALSE(glob.CouldMatchInside("docs"));
  EXPECT_FALSE(glob.CouldMatchInside("src/lib/other"));
  EXPECT_FALSE(glob.CouldMatchInside("src/lib/test/deeper"));
  EXPECT_TRUE(Compiled("**/*.cc").CouldMatchInside("any/depth/at/all"));
}

TEST(PathGlobTest, BadPatterns) {
  EXPECT_FALSE(PathGlob::Compile("").ok());
  EXPECT_THAT(std::string(PathGlob::Compile("a{b").status().message()),
              HasSubstr("unbalanced '{'"));
  EXPECT_THAT(std::string(PathGlob::Compile("a}b").status().message()),
              HasSubstr("unbalanced '}'"));
  EXPECT_THAT(std::string(PathGlob::Compile("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}")
                              .status()
                              .message()),
              HasSubstr("more than 256 alternatives"));
}

}  // namespace
}  // namespace raw::tools::builtin
