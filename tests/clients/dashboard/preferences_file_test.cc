#include "clients/dashboard/preferences_file.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

using ::testing::HasSubstr;

class PreferencesFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/raw_prefs_XXXXXX";
    base_ = mkdtemp(tmpl);
    path_ = PreferencesPath(base_ + "/state/raw");
  }
  void TearDown() override { std::filesystem::remove_all(base_); }
  void Write(const std::string& text) {
    std::filesystem::create_directories(base_ + "/state/raw");
    std::ofstream(path_) << text;
  }
  static mode_t Mode(const std::string& path) {
    struct stat st;
    EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 0777;
  }
  std::string base_;
  std::string path_;
};

TEST_F(PreferencesFileTest, WrittenPrivatelyThenReadBack) {
  EXPECT_EQ(path_, base_ + "/state/raw/dashboard-preferences.json");
  absl::StatusOr<Json> none = ReadPreferences(path_);  // no file yet
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(*none, Json::object());

  const Json prefs = {{"theme", "dark"}, {"fontSize", 19}, {"collapsed", {{"details", false}}}};
  ASSERT_TRUE(WritePreferences(path_, prefs).ok());  // creates the directories
  EXPECT_EQ(Mode(base_ + "/state/raw"), 0700u);
  EXPECT_EQ(Mode(path_), 0600u);
  absl::StatusOr<Json> read = ReadPreferences(path_);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, prefs);

  ASSERT_TRUE(WritePreferences(path_, Json{{"theme", "light"}}).ok());
  EXPECT_EQ(*ReadPreferences(path_), (Json{{"theme", "light"}}));
  // Only the file itself is left: no temporary file beside it.
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator(base_ + "/state/raw")) {
    ++files;
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(PreferencesFileTest, OnlyKnownMembersWithAllowedValuesAreValid) {
  for (const char* good :
       {R"({})", R"({"theme":"system"})", R"({"theme":"light","fontSize":10})",
        R"({"fontSize":28,"collapsed":{}})", R"({"collapsed":{"details":true}})"}) {
    EXPECT_TRUE(ValidatePreferences(*ParseJson(good)).ok()) << good;
  }
  struct Bad {
    const char* json;
    const char* message;
  };
  for (const Bad& bad : std::initializer_list<Bad>{
           {R"([])", "must be a JSON object"},
           {R"("dark")", "must be a JSON object"},
           {R"({"history":["a prompt"]})", "unknown preference \"history\""},
           {R"({"token":"x"})", "unknown preference \"token\""},
           {R"({"theme":"blue"})", "\"theme\" must be"},
           {R"({"theme":1})", "\"theme\" must be"},
           {R"({"fontSize":9})", "\"fontSize\" must be an integer from 10 to 28"},
           {R"({"fontSize":29})", "\"fontSize\""},
           {R"({"fontSize":15.5})", "\"fontSize\""},
           {R"({"fontSize":"15"})", "\"fontSize\""},
           {R"({"fontSize":-15})", "\"fontSize\""},
           {R"({"fontSize":18446744073709551615})", "\"fontSize\""},
           {R"({"collapsed":[]})", "\"collapsed\" must be an object"},
           {R"({"collapsed":{"sidebar":true}})", "unknown panel \"sidebar\""},
           {R"({"collapsed":{"details":"yes"}})", "\"collapsed.details\" must be true or false"},
       }) {
    absl::Status s = ValidatePreferences(*ParseJson(bad.json));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad.json;
    EXPECT_THAT(s.message(), HasSubstr(bad.message)) << bad.json;
  }
}

TEST_F(PreferencesFileTest, AnInvalidObjectIsNotWritten) {
  EXPECT_EQ(WritePreferences(path_, Json{{"theme", "blue"}}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(base_ + "/state"));
}

TEST_F(PreferencesFileTest, AFileThatIsNotValidPreferencesIsAnError) {
  for (const std::string& text : {std::string("{not json"), std::string(R"({"theme":"blue"})"),
                                  std::string("[]"), std::string(kMaxPreferencesBytes + 1, ' ')}) {
    Write(text);
    absl::StatusOr<Json> read = ReadPreferences(path_);
    EXPECT_FALSE(read.ok()) << text.substr(0, 40);
    EXPECT_THAT(read.status().message(), HasSubstr(path_));
  }
  std::filesystem::remove(path_);
  std::filesystem::create_directory(path_);  // not a regular file
  EXPECT_THAT(ReadPreferences(path_).status().message(), HasSubstr("not a regular file"));
  std::filesystem::remove(path_);
  std::filesystem::create_symlink("/etc/passwd", path_);  // never followed
  EXPECT_FALSE(ReadPreferences(path_).ok());
}

}  // namespace
}  // namespace raw::dashboard
