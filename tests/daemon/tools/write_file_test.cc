#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "daemon/tools/builtin/builtin_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
using testing::Call;
using testing::ReadText;
using testing::TempDir;
using testing::WriteText;

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

class WriteFileTest : public ::testing::Test {
 protected:
  ToolOutput Write(const Json& args) { return Call(spec_, args, dir_.path()); }

  TempDir dir_;
  ToolSpec spec_ = builtin::MakeWriteFileTool();
};

TEST_F(WriteFileTest, CreatesTheFileAndItsParentDirectories) {
  ToolOutput out = Write({{"path", "a/b/c/new.txt"}, {"content", "hello"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "Created " + dir_.Join("a/b/c/new.txt") + " (5 bytes written)");
  EXPECT_EQ(ReadText(dir_.Join("a/b/c/new.txt")), "hello");
}

TEST_F(WriteFileTest, OverwritesAndKeepsThePermissionBits) {
  std::string path = dir_.Join("script.sh");
  WriteText(path, "old content that is longer");
  ASSERT_EQ(chmod(path.c_str(), 0750), 0);
  ToolOutput out = Write({{"path", "script.sh"}, {"content", "new"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "Overwrote " + path + " (3 bytes written)");
  EXPECT_EQ(ReadText(path), "new");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);
}

TEST_F(WriteFileTest, AbsolutePathsAndEmptyContent) {
  TempDir other;
  ToolOutput out = Write({{"path", other.Join("empty.txt")}, {"content", ""}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "Created " + other.Join("empty.txt") + " (0 bytes written)");
  EXPECT_TRUE(fs::is_regular_file(other.Join("empty.txt")));
  EXPECT_EQ(fs::file_size(other.Join("empty.txt")), 0u);
}

TEST_F(WriteFileTest, LeavesNoTemporaryFiles) {
  ASSERT_EQ(Write({{"path", "f.txt"}, {"content", "one"}}).status, events::ToolStatus::kOk);
  ASSERT_EQ(Write({{"path", "f.txt"}, {"content", "two"}}).status, events::ToolStatus::kOk);
  ASSERT_EQ(Write({{"path", "g.txt"}, {"content", std::string(1 << 20, 'z')}}).status,
            events::ToolStatus::kOk);
  EXPECT_THAT(Entries(dir_.path()), UnorderedElementsAre("f.txt", "g.txt"));
  EXPECT_EQ(ReadText(dir_.Join("f.txt")), "two");
  EXPECT_EQ(fs::file_size(dir_.Join("g.txt")), 1u << 20);
}

TEST_F(WriteFileTest, ReplacesTheFileAtomically) {
  // A reader holding the old file keeps seeing the old content: the new
  // content arrives as a different inode renamed into place, never by
  // truncating and rewriting the old one.
  std::string path = dir_.Join("f.txt");
  WriteText(path, "old");
  struct stat before;
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  ASSERT_EQ(Write({{"path", "f.txt"}, {"content", "new"}}).status, events::ToolStatus::kOk);
  struct stat after;
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino);
  EXPECT_EQ(ReadText(path), "new");
}

TEST_F(WriteFileTest, WritesThroughSymlinks) {
  WriteText(dir_.Join("real.txt"), "old");
  fs::create_symlink("real.txt", dir_.Join("link.txt"));
  ToolOutput out = Write({{"path", "link.txt"}, {"content", "via link"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(out.content, HasSubstr("Overwrote " + dir_.Join("real.txt")));
  EXPECT_TRUE(fs::is_symlink(dir_.Join("link.txt")));
  EXPECT_EQ(ReadText(dir_.Join("real.txt")), "via link");
}

TEST_F(WriteFileTest, RefusesDirectories) {
  fs::create_directory(dir_.Join("d"));
  ToolOutput out = Write({{"path", "d"}, {"content", "x"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, dir_.Join("d") + " is a directory; write_file writes files");
  EXPECT_TRUE(fs::is_directory(dir_.Join("d")));
  EXPECT_EQ(Write({{"path", "d/"}, {"content", "x"}}).status, events::ToolStatus::kError);
}

TEST_F(WriteFileTest, ReportsAParentThatIsAFile) {
  WriteText(dir_.Join("plain"), "x");
  ToolOutput out = Write({{"path", "plain/child.txt"}, {"content", "x"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr(dir_.Join("plain")));
  EXPECT_THAT(Entries(dir_.path()), UnorderedElementsAre("plain"));
}

TEST_F(WriteFileTest, BadArgumentsGetClearErrors) {
  EXPECT_EQ(Write({{"path", "f.txt"}}).content, "missing required argument \"content\"");
  EXPECT_EQ(Write({{"path", "f.txt"}, {"content", 5}}).content,
            "argument \"content\" must be a string, got number");
  EXPECT_EQ(Write({{"content", "x"}}).content, "missing required argument \"path\"");
  EXPECT_EQ(Write({{"path", "f.txt"}, {"content", "x"}, {"mode", "0644"}}).content,
            "unknown argument \"mode\"");
  EXPECT_TRUE(Entries(dir_.path()).empty());
}

}  // namespace
}  // namespace raw::tools
