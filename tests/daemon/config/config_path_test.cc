// ResolveConfigPath: "~/", relative and absolute paths written in the file.
#include "daemon/config/config_path.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::HasSubstr;

const ParseContext kContext{"/etc/raw-test", "/home/me"};

TEST(ConfigPathTest, RelativePathsAreRelativeToTheConfigDirectory) {
  EXPECT_EQ(*ResolveConfigPath("keys/openai", kContext), "/etc/raw-test/keys/openai");
  EXPECT_EQ(*ResolveConfigPath("./k", kContext), "/etc/raw-test/k");
  EXPECT_EQ(*ResolveConfigPath("../k", kContext), "/etc/k");
}

TEST(ConfigPathTest, AbsolutePathsAreNormalized) {
  EXPECT_EQ(*ResolveConfigPath("/run/secrets/key", kContext), "/run/secrets/key");
  EXPECT_EQ(*ResolveConfigPath("/run/./secrets/../key", kContext), "/run/key");
}

TEST(ConfigPathTest, TildeIsTheHomeDirectory) {
  EXPECT_EQ(*ResolveConfigPath("~/.config/key", kContext), "/home/me/.config/key");
  EXPECT_EQ(*ResolveConfigPath("~", kContext), "/home/me");
  EXPECT_EQ(*ResolveConfigPath("~/", kContext), "/home/me");
}

TEST(ConfigPathTest, UnsupportedTildeFormsAndMissingHomeAreErrors) {
  EXPECT_THAT(std::string(ResolveConfigPath("~bob/key", kContext).status().message()),
              HasSubstr("only \"~/\" (the home directory) is expanded"));
  ParseContext no_home{"/etc/raw-test", ""};
  EXPECT_THAT(std::string(ResolveConfigPath("~/key", no_home).status().message()),
              HasSubstr("HOME is not set"));
  EXPECT_FALSE(ResolveConfigPath("", kContext).ok());
}

}  // namespace
}  // namespace raw::config
