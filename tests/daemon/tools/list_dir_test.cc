#include <filesystem>
#include <string>

#include "daemon/tools/builtin/builtin_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Call;
using testing::TempDir;
using testing::WriteText;

class ListDirTest : public ::testing::Test {
 protected:
  ToolOutput List(const Json& args, const config::ToolSettings& settings = {}) {
    return Call(spec_, args, dir_.path(), settings);
  }

  TempDir dir_;
  ToolSpec spec_ = builtin::MakeListDirTool();
};

TEST_F(ListDirTest, SpecIsReadOnlyAndRuledByPath) {
  EXPECT_EQ(spec_.model_name, "list_dir");
  EXPECT_TRUE(spec_.read_only);
  EXPECT_EQ(spec_.rule_subject, RuleSubject::kPath);
  EXPECT_EQ(spec_.rule_argument, "path");
  EXPECT_TRUE(spec_.input_schema["required"].empty());
}

TEST_F(ListDirTest, ListsSortedEntriesWithKindsAndSizes) {
  WriteText(dir_.Join("b.txt"), "12345");
  WriteText(dir_.Join("a.bin"), std::string(3 * 1024 + 512, 'x'));
  WriteText(dir_.Join("src/main.cc"), "int main() {}\n");
  WriteText(dir_.Join(".hidden"), "");
  WriteText(dir_.Join(".git/HEAD"), "ref\n");
  WriteText(dir_.Join("ignored.log"), "x");
  WriteText(dir_.Join(".gitignore"), "*.log\n");
  fs::create_symlink("b.txt", dir_.Join("link"));
  fs::create_directory_symlink("src", dir_.Join("srclink"));
  ToolOutput out = List(Json::object());
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, dir_.path() +
                             "/\n"
                             "  .gitignore (6 B)\n"
                             "  .hidden (0 B)\n"
                             "  a.bin (3.5 KiB)\n"
                             "  b.txt (5 B)\n"
                             "  ignored.log (1 B)\n"
                             "  link -> b.txt\n"
                             "  src/\n"
                             "  srclink/ -> src");
}

TEST_F(ListDirTest, DepthListsSubdirectoriesAsATreeWithoutEnteringSymlinks) {
  WriteText(dir_.Join("a/b/c/deep.txt"), "d");
  WriteText(dir_.Join("a/top.txt"), "t");
  fs::create_directory_symlink("..", dir_.Join("a/up"));
  EXPECT_EQ(List({{"path", "a"}, {"depth", 2}}).content,
            dir_.Join("a") + "/\n  b/\n    c/\n  top.txt (1 B)\n  up/ -> ..");
  EXPECT_EQ(List({{"path", "a"}, {"depth", 5}}).content,
            dir_.Join("a") +
                "/\n  b/\n    c/\n      deep.txt (1 B)\n  top.txt (1 B)\n  up/ -> ..");
}

TEST_F(ListDirTest, EmptyDirectoriesAndTheCap) {
  fs::create_directory(dir_.Join("empty"));
  EXPECT_EQ(List({{"path", "empty"}}).content, dir_.Join("empty") + "/\n  (empty)");
  for (int i = 0; i < 5; ++i) WriteText(dir_.Join("many/f" + std::to_string(i)), "");
  config::ToolSettings settings;
  settings.files.max_results = 3;
  EXPECT_EQ(List({{"path", "many"}}, settings).content,
            dir_.Join("many") +
                "/\n  f0 (0 B)\n  f1 (0 B)\n  f2 (0 B)\n[listing cut at 3 entries "
                "(tools.files.max_results); list a subdirectory or use a smaller depth to see "
                "the rest]");
}

TEST_F(ListDirTest, BadPathsAndDepthsAreErrors) {
  WriteText(dir_.Join("file.txt"), "x");
  ToolOutput file = List({{"path", "file.txt"}});
  EXPECT_EQ(file.status, events::ToolStatus::kError);
  EXPECT_THAT(file.content, HasSubstr("is not a directory"));
  ToolOutput missing = List({{"path", "nope"}});
  EXPECT_EQ(missing.status, events::ToolStatus::kError);
  EXPECT_THAT(missing.content, StartsWith("directory not found: "));
  EXPECT_EQ(List({{"depth", 6}}).content, "argument \"depth\" must be at most 5, got 6");
  EXPECT_EQ(List({{"depth", 0}}).content, "argument \"depth\" must be at least 1, got 0");
}

}  // namespace
}  // namespace raw::tools
