// The errors of an invalid config: bounded in size, whatever the file.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/config/base_url.h"
#include "daemon/config/config_file_cache.h"
#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Le;
using ::testing::Lt;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;
using std::string_literals::operator""s;

// gRPC refuses an error whose metadata passes 8 KiB; the load error
// travels there.
constexpr size_t kGrpcMetadataLimit = 8192;

class ConfigErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-cfgerr-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/config.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& text) { std::ofstream(path_, std::ios::trunc) << text; }

  // A document of `n` unknown top-level keys.
  static std::string UnknownKeys(int n) {
    std::string text = "{";
    for (int i = 0; i < n; ++i) absl::StrAppend(&text, i > 0 ? ", " : "", "\"k", i, "\": 1");
    return text + "}";
  }

  std::string dir_;
  std::string path_;
};

TEST_F(ConfigErrorsTest, ManyProblemsGiveAnErrorThatFitsAnRpcAndSaysHowManyMore) {
  Write(UnknownKeys(40));
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = LoadConfigFile(path_, &problems);
  ASSERT_FALSE(config.ok());
  const std::string message(config.status().message());
  EXPECT_THAT(message.size(), Lt(kGrpcMetadataLimit));
  EXPECT_THAT(message, StartsWith("config file " + path_ + " is invalid:\n"));
  EXPECT_THAT(message, HasSubstr("k0: unknown key"));
  EXPECT_THAT(message, EndsWith(" more; run `raw config check` to list them"));
  EXPECT_THAT(message, HasSubstr("\nand 2"));  // 20 lines at most: 20 or more left
  EXPECT_THAT(problems, SizeIs(40));           // the check lists every one
}

TEST_F(ConfigErrorsTest, TheProblemListStopsAtItsLimitAndSaysSo) {
  Write(UnknownKeys(5000));
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = LoadConfigFile(path_, &problems);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message().size(), Lt(kGrpcMetadataLimit));
  ASSERT_THAT(problems, SizeIs(kMaxConfigProblems + 1));
  EXPECT_EQ(problems.back().ToString(),
            "the check stops after 200 problems; fix these and check again for any others");
}

TEST_F(ConfigErrorsTest, AHugeKeyIsCutInTheErrorAndTheList) {
  const std::string key(100000, 'x');
  Write(absl::StrCat(R"({"agents": {"a": {")", key, R"(": 1}}, ")", key, R"(": 2})"));
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = LoadConfigFile(path_, &problems);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message().size(), Lt(kGrpcMetadataLimit));
  ASSERT_THAT(problems, SizeIs(2));
  for (const ConfigProblem& p : problems) {
    EXPECT_THAT(p.path.size(), Le(300u));
    EXPECT_THAT(p.ToString().size(), Le(1500u));
  }
}

// Defined names listed in a problem ("defined: ...") stop at 20: a file
// defining thousands would otherwise repeat all of them in each problem.
TEST_F(ConfigErrorsTest, ADefinedListNamesTwentyAndCountsTheRest) {
  std::string agents;
  for (int i = 0; i < 25; ++i) absl::StrAppend(&agents, i > 0 ? ", " : "", "\"a", i, "\": {}");
  Write(absl::StrCat(R"({"agents": {)", agents, R"(}, "default_agent": "nope"})"));
  std::vector<ConfigProblem> problems;
  ASSERT_FALSE(LoadConfigFile(path_, &problems).ok());
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0].message, HasSubstr("a0, a1, a10,"));
  EXPECT_THAT(problems[0].message, EndsWith(" and 5 more)"));
}

// A daemon loads its config at every turn and listing: an invalid file is
// not parsed again until its bytes change.
TEST_F(ConfigErrorsTest, AnInvalidFileIsParsedOnceUntilItChanges) {
  ConfigFileCache cache;
  Write(UnknownKeys(3));
  absl::StatusOr<Config> first = cache.Load(path_);
  absl::StatusOr<Config> second = cache.Load(path_);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(second.status(), first.status());
  EXPECT_EQ(cache.parses(), 1);
  Write(UnknownKeys(4));
  EXPECT_FALSE(cache.Load(path_).ok());
  EXPECT_EQ(cache.parses(), 2);
}

// Every run of 4 bytes of `secret` that `text` holds.
std::vector<std::string> PiecesOf(const std::string& secret, const std::string& text) {
  std::vector<std::string> found;
  for (size_t i = 0; i + 4 <= secret.size(); ++i) {
    if (text.find(secret.substr(i, 4)) != std::string::npos) found.push_back(secret.substr(i, 4));
  }
  return found;
}

// A value cut short by a line break is a syntax error whose message would
// quote the value (nlohmann's "last read: '...'"), a key pasted there.
TEST_F(ConfigErrorsTest, ASyntaxErrorGivesLineAndColumnAndNoTextOfTheFile) {
  const std::string key = "sk-live-PASTEDKEY123";
  Write("{\"models\": {\"m\": {\"api_key\": \"" + key + "\n\"}}}");
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = LoadConfigFile(path_, &problems);
  ASSERT_FALSE(config.ok());
  const std::string message(config.status().message());
  EXPECT_THAT(message, HasSubstr("invalid JSON: parse error at line 2, column 0: "));
  EXPECT_THAT(message, HasSubstr("control character U+000A (LF) must be escaped"));
  EXPECT_THAT(PiecesOf(key, message), ::testing::IsEmpty()) << message;
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(PiecesOf(key, problems[0].ToString()), ::testing::IsEmpty());
  // What was expected is still said.
  Write("{\"agents\": {sk-live-PASTEDKEY123: {}}}");
  config = LoadConfigFile(path_);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("; expected string literal"));
  EXPECT_THAT(PiecesOf(key, std::string(config.status().message())), ::testing::IsEmpty());
}

TEST_F(ConfigErrorsTest, AnInvalidUrlIsQuotedWithoutItsQueryOrCredentials) {
  Write(R"({"models": {"m": {"method": "google-generate-content", "model_id": "g",
            "base_url": "https://g.io/v1?key=AIzaSyPASTEDKEY"}},
            "mcp_servers": {"s": {"url": "https://mcp.io/x#token=PASTEDTOKEN"}}})");
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = LoadConfigFile(path_, &problems);
  ASSERT_FALSE(config.ok());
  const std::string message(config.status().message());
  EXPECT_THAT(message, HasSubstr("models.m.base_url: \"https://g.io/v1?...\" must not contain a "
                                 "query"));
  EXPECT_THAT(message, HasSubstr("mcp_servers.s.url: \"https://mcp.io/x#...\" must not contain"));
  EXPECT_THAT(message, Not(HasSubstr("PASTED")));
  EXPECT_EQ(UrlForMessages("https://u:pw@h.io:8/v1?k=s#f"), "https://...@h.io:8/v1?...");
  EXPECT_EQ(UrlForMessages("u:pw@h.io/a@b?k=s"), "...@h.io/a@b?...");
  EXPECT_EQ(UrlForMessages("http://h.io/v1"), "http://h.io/v1");
}

// nlohmann stops at a NUL byte and accepts what came before; strings with
// U+0000 would be cut where the system reads them as C strings.
TEST_F(ConfigErrorsTest, ANulByteIsRefusedWithItsLineAndColumn) {
  Write("{\"agents\": {\"a\": {}}}\n\0{not json"s);
  absl::StatusOr<Config> config = LoadConfigFile(path_);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("invalid JSON: a NUL byte at line 2, column 1"));
}

TEST_F(ConfigErrorsTest, StringsHoldingANulCharacterAreRefused) {
  Write(R"({"variables": {"K": {"file": "/x/plain.txt\u0000.nope"}},
            "skill_dirs": ["/tmp\u0000/nonexistent"], "agents": {"a\u0000b": {}}})");
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = LoadConfigFile(path_, &problems);
  ASSERT_FALSE(config.ok());
  std::vector<std::string> lines;
  for (const ConfigProblem& p : problems) lines.push_back(p.ToString());
  const std::string nul = "contains U+0000 (a NUL character), which no name, path or value may";
  EXPECT_THAT(lines, ::testing::IsSupersetOf({
                         "agents[\"a\\u0000b\"]: the key " + nul,
                         "skill_dirs[0]: " + nul,
                         "variables.K.file: " + nul,
                     }));
}

}  // namespace
}  // namespace raw::config
