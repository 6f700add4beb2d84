// LoadConfigFile: missing, readable, invalid and unreadable files.
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/config/config_loader.h"
#include "daemon/config/named_paths.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "raw-config-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::string dir_;
};

TEST_F(ConfigFileTest, MissingFileYieldsBuiltinDefaults) {
  std::string path = dir_ + "/raw/config.json";
  std::vector<ConfigProblem> problems = {{"stale", "x"}};
  absl::StatusOr<Config> config = LoadConfigFile(path, &problems);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->builtin_defaults);
  EXPECT_EQ(config->source_path, path);
  EXPECT_THAT(problems, IsEmpty());
  Config expected = BuiltinDefaults();
  expected.source_path = path;
  EXPECT_EQ(*config, expected);
}

TEST_F(ConfigFileTest, ReadsAValidFile) {
  std::string path = Write("config.json", "// mine\n" + testing::DocWith("", R"("max_steps": 9)"));
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->builtin_defaults);
  EXPECT_EQ(config->source_path, path);
  EXPECT_EQ(config->agents.at("coder").max_steps, 9);
}

TEST_F(ConfigFileTest, RelativePathsAreRelativeToTheFile) {
  std::string path = Write("config.json", R"({
    "variables": {"K": {"file": "keys/openai"}, "C": {"command": ["bin/get-key", "x"]}},
    "mcp_servers": {"fs": {"command": ["fs-server"], "cwd": "../work"}}
  })");
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.status();
  std::string parent = std::filesystem::path(dir_).parent_path().string();
  EXPECT_EQ(config->variables.at("K").file, dir_ + "/keys/openai");
  EXPECT_EQ(config->variables.at("C").command, (std::vector<std::string>{dir_ + "/bin/get-key", "x"}));
  EXPECT_EQ(config->mcp_servers.at("fs").cwd, parent + "/work");
}

TEST_F(ConfigFileTest, InvalidFileNamesTheFileAndEveryProblem) {
  std::string path = Write("config.json", testing::DocWith(R"("modle": 1)", R"("max_steps": 0)"));
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = LoadConfigFile(path, &problems);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      config.status().message(),
      "config file " + path +
          " is invalid:\n"
          "models.flash.modle: unknown key (expected one of: provider, method, model_id, "
          "base_url, api_key_env, api_key, headers, context_window_tokens, "
          "max_output_tokens, system_role, max_tokens_field, idle_timeout_seconds, "
          "connect_timeout_seconds, cache, max_retries, reasoning_content, "
          "reasoning_effort, thought_summaries, max_response_bytes, max_stream_seconds, images)\n"
          "agents.coder.max_steps: expected a positive integer, got 0");
  ASSERT_THAT(problems, SizeIs(2));
  EXPECT_EQ(problems[0].path, "models.flash.modle");  // paths stay relative to the document
}

TEST_F(ConfigFileTest, SyntaxErrorNamesFileLineAndColumn) {
  std::string path = Write("config.json", "{\n  \"tools\": {\n    \"bash\": {,}\n  }\n}\n");
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith("config file " + path +
                         " is invalid:\ninvalid JSON: parse error at line 3, column 14"));
}

TEST_F(ConfigFileTest, DirectoryIsUnreadable) {
  std::string path = dir_ + "/config.json";
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(config.status().message(), "cannot read config file " + path + ": not a regular file");
}

TEST_F(ConfigFileTest, FifoIsRefusedWithoutBlocking) {
  std::string path = dir_ + "/config.json";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("not a regular file"));
}

TEST_F(ConfigFileTest, PathThroughAFileIsAnError) {
  std::string file = Write("plain", "{}");
  std::string path = file + "/config.json";
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());  // ENOTDIR is not "missing": the path is wrong
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith("cannot read config file " + path + ": "));
}

TEST_F(ConfigFileTest, PermissionDeniedIsAnError) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files regardless of their mode";
  std::string path = Write("config.json", "{}");
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith("cannot read config file " + path + ": "));
}

TEST_F(ConfigFileTest, OversizedFileIsRefused) {
  std::string path = Write("config.json", "{}" + std::string(5 << 20, ' '));
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("larger than"));
}

TEST_F(ConfigFileTest, EmptyFileIsInvalidNotDefault) {
  std::string path = Write("config.json", "");
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("the document is empty"));
}

// The loader accepts skill_dirs that do not exist (an agent without skills
// never reads them); the check names each one, relative entries resolved
// against the config file's directory as turns resolve them.
TEST_F(ConfigFileTest, CheckNamedPathsReportsSkillDirsThatDoNotExist) {
  std::filesystem::create_directories(dir_ + "/skills");
  Write("plain-file", "x");
  std::string path = Write("config.json", R"({"skill_dirs": ["skills", "/nonexistent/dir",
                                              "plain-file", "missing"]})");
  absl::StatusOr<Config> config = LoadConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.status();
  std::vector<std::string> lines;
  for (const ConfigProblem& p : CheckNamedPaths(*config)) lines.push_back(p.ToString());
  const std::string fail = "; every turn of an agent that selects skills would fail";
  EXPECT_THAT(lines, ElementsAre("skill_dirs[1]: \"/nonexistent/dir\" (/nonexistent/dir) does "
                                 "not exist" +
                                     fail,
                                 "skill_dirs[2]: \"plain-file\" (" + dir_ +
                                     "/plain-file) is not a directory" + fail,
                                 "skill_dirs[3]: \"missing\" (" + dir_ +
                                     "/missing) does not "
                                     "exist" +
                                     fail));
  std::string fine = Write("fine.json", R"({"skill_dirs": ["skills"]})");
  EXPECT_THAT(CheckNamedPaths(*LoadConfigFile(fine)), IsEmpty());
}

}  // namespace
}  // namespace raw::config
