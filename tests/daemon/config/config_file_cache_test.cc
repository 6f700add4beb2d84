#include "daemon/config/config_file_cache.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::HasSubstr;

class ConfigFileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-cfg-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/config.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& text) {
    std::ofstream(path_, std::ios::trunc) << text;
  }
  static std::string Agent(const std::string& mode) {
    return R"({"agents": {"default": {"approval_mode": ")" + mode + R"("}}})";
  }

  std::string dir_;
  std::string path_;
};

// Every load reads the file: an edit that keeps the size and lands within
// the same timestamp tick is seen all the same.
TEST_F(ConfigFileCacheTest, AnEditIsSeenAtTheNextLoadWhateverItsSizeAndTime) {
  ConfigFileCache cache;
  Write(Agent("ask_all"));
  const auto before = std::filesystem::last_write_time(path_);
  absl::StatusOr<Config> first = cache.Load(path_);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->agents.at("default").approval_mode, ApprovalMode::kAskAll);

  Write(Agent("deny_all"));  // the same number of bytes
  std::filesystem::last_write_time(path_, before);
  absl::StatusOr<Config> second = cache.Load(path_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->agents.at("default").approval_mode, ApprovalMode::kDenyAll);
}

TEST_F(ConfigFileCacheTest, TheSameBytesGiveWhatLoadConfigFileGives) {
  ConfigFileCache cache;
  Write(Agent("ask_all"));
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Config> cached = cache.Load(path_);
    absl::StatusOr<Config> loaded = LoadConfigFile(path_);
    ASSERT_TRUE(cached.ok() && loaded.ok());
    EXPECT_EQ(cached->source_path, loaded->source_path);
    EXPECT_EQ(cached->agents.at("default").approval_mode,
              loaded->agents.at("default").approval_mode);
  }
}

TEST_F(ConfigFileCacheTest, AnInvalidFileIsAnErrorAndAFixedOneLoadsAgain) {
  ConfigFileCache cache;
  Write(Agent("ask_all"));
  ASSERT_TRUE(cache.Load(path_).ok());
  Write(R"({"agents": 3})");
  absl::StatusOr<Config> broken = cache.Load(path_);
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr("is invalid"));
  Write(Agent("ask_all"));
  EXPECT_TRUE(cache.Load(path_).ok());
}

// With no file a daemon runs on the built-in defaults; once it has read a
// file, that file's going away is an error until it is back: the defaults
// would drop its rules, hooks and approval modes in the middle of a session.
TEST_F(ConfigFileCacheTest, AFileThatWasReadAndIsGoneIsAnErrorNotTheDefaults) {
  ConfigFileCache cache;
  absl::StatusOr<Config> never_written = cache.Load(path_);
  ASSERT_TRUE(never_written.ok()) << never_written.status();
  EXPECT_TRUE(never_written->builtin_defaults);
  EXPECT_EQ(never_written->source_path, path_);

  Write(Agent("deny_all"));
  ASSERT_TRUE(cache.Load(path_).ok());
  std::filesystem::remove(path_);
  absl::StatusOr<Config> gone = cache.Load(path_);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(gone.status().message(), HasSubstr("was read before and is gone now"));
  EXPECT_EQ(cache.LastLoaded(path_)->agents.at("default").approval_mode, ApprovalMode::kDenyAll);

  Write(Agent("ask_all"));
  absl::StatusOr<Config> back = cache.Load(path_);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->agents.at("default").approval_mode, ApprovalMode::kAskAll);
}

// "~/" is read against $HOME at parse time: another home is another parse.
// While the file does not load, the last config that did stays known, for
// what must still be shown (when sessions expire); none before any loaded.
TEST_F(ConfigFileCacheTest, TheLastLoadedConfigOutlivesABrokenEdit) {
  ConfigFileCache cache;
  Write(R"({"agents": 3})");
  EXPECT_FALSE(cache.Load(path_).ok());
  EXPECT_FALSE(cache.LastLoaded(path_).has_value());
  Write(R"({"sessions": {"expire_after_days": 7}})");
  ASSERT_TRUE(cache.Load(path_).ok());
  Write(R"({"sessions": {"expire_after_days": "soon"}})");
  EXPECT_FALSE(cache.Load(path_).ok());
  std::optional<Config> last = cache.LastLoaded(path_);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->sessions.expire_after_days, 7);
  EXPECT_FALSE(cache.LastLoaded(dir_ + "/other.json").has_value());
  // A path with no file, never read, loads (the built-in defaults), and so
  // becomes the last.
  const std::string other = dir_ + "/other.json";
  ASSERT_TRUE(cache.Load(other).ok());
  EXPECT_TRUE(cache.LastLoaded(other)->builtin_defaults);
}

TEST_F(ConfigFileCacheTest, AnotherHomeDirectoryParsesAgain) {
  const char* home = getenv("HOME");
  const std::string saved = home != nullptr ? home : "";
  ConfigFileCache cache;
  Write(R"({"mcp_servers": {"fs": {"command": ["fs-server"], "cwd": "~/work"}}})");
  setenv("HOME", "/home/first", 1);
  absl::StatusOr<Config> first = cache.Load(path_);
  setenv("HOME", "/home/second", 1);
  absl::StatusOr<Config> second = cache.Load(path_);
  setenv("HOME", saved.c_str(), 1);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->mcp_servers.at("fs").cwd, "/home/first/work");
  EXPECT_EQ(second->mcp_servers.at("fs").cwd, "/home/second/work");
}

}  // namespace
}  // namespace raw::config
