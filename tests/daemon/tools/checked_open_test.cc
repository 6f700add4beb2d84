// Checked opens and the file tools that use them: a file is opened at the
// path the rules judged, never through a symlink that appeared later, and a
// FIFO or device is refused at once instead of blocking the call.

#include "daemon/tools/builtin/checked_open.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "daemon/tools/builtin/atomic_write.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::builtin {
namespace {

using ::testing::HasSubstr;
using testing::ReadText;
using testing::TempDir;
using testing::WriteText;

TEST(CheckedOpenTest, OpensARegularFileAndReportsWhatItOpened) {
  TempDir dir;
  WriteText(dir.Join("a.txt"), "text");
  absl::StatusOr<OpenedFile> opened = OpenRegularFile(dir.Join("a.txt"), "t reads files");
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_GE(opened->handle.get(), 0);
  EXPECT_TRUE(S_ISREG(opened->info.st_mode));
  EXPECT_EQ(opened->info.st_size, 4);
}

TEST(CheckedOpenTest, RefusesAFifoAndADeviceWithoutBlocking) {
  TempDir dir;
  ASSERT_EQ(mkfifo(dir.Join("pipe").c_str(), 0600), 0);
  absl::StatusOr<OpenedFile> fifo = OpenRegularFile(dir.Join("pipe"), "t reads regular files");
  EXPECT_TRUE(absl::IsFailedPrecondition(fifo.status())) << fifo.status();
  EXPECT_EQ(fifo.status().message(),
            dir.Join("pipe") + " is a FIFO (named pipe); t reads regular files");
  absl::StatusOr<OpenedFile> device = OpenRegularFile("/dev/null", "t reads regular files");
  EXPECT_THAT(std::string(device.status().message()), HasSubstr("is a character device"));
  // Even opened directly, a FIFO without a writer does not block.
  int fd = OpenWithoutSymlinks(dir.Join("pipe"), O_RDONLY);
  EXPECT_GE(fd, 0);
  if (fd >= 0) close(fd);
}

TEST(CheckedOpenTest, RefusesASymlinkAtTheEndOrOnTheWay) {
  TempDir dir;
  TempDir outside;
  WriteText(outside.Join("secret"), "secret");
  ASSERT_EQ(symlink(outside.Join("secret").c_str(), dir.Join("link").c_str()), 0);
  absl::StatusOr<OpenedFile> last = OpenRegularFile(dir.Join("link"), "t");
  EXPECT_TRUE(absl::IsPermissionDenied(last.status())) << last.status();
  EXPECT_THAT(std::string(last.status().message()), HasSubstr("a symlink is now on its path"));
  ASSERT_EQ(symlink(outside.path().c_str(), dir.Join("sub").c_str()), 0);
  absl::StatusOr<OpenedFile> middle = OpenRegularFile(dir.Join("sub/secret"), "t");
  EXPECT_TRUE(absl::IsPermissionDenied(middle.status())) << middle.status();
  EXPECT_EQ(OpenWithoutSymlinks(dir.Join("sub/secret"), O_RDONLY), -1);
}

// Where openat2 is missing or refused, the path is opened one component at a
// time and a link anywhere on it is still refused.
TEST(CheckedOpenTest, TheFallbackRefusesALinkOnTheWay) {
  TempDir dir;
  TempDir outside;
  WriteText(outside.Join("secret"), "secret");
  WriteText(dir.Join("plain"), "plain");
  ASSERT_EQ(symlink(outside.path().c_str(), dir.Join("sub").c_str()), 0);
  errno = 0;
  EXPECT_EQ(OpenComponentwise(dir.Join("sub/secret"), O_RDONLY | O_NOFOLLOW | O_CLOEXEC), -1);
  EXPECT_EQ(errno, ELOOP);
  int fd = OpenComponentwise(dir.Join("plain"), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  if (fd >= 0) close(fd);
  ASSERT_EQ(symlink(dir.Join("plain").c_str(), dir.Join("last").c_str()), 0);
  EXPECT_EQ(OpenComponentwise(dir.Join("last"), O_RDONLY | O_NOFOLLOW | O_CLOEXEC), -1);
  EXPECT_EQ(OpenComponentwise("relative/path", O_RDONLY), -1);
}

// What grep reads during a walk: a regular file only, named relative to its
// directory; a link is refused, not followed, and a FIFO or device is
// refused at once (a FIFO without a writer would block a plain open forever).
TEST(CheckedOpenTest, ReadsWholeRegularFilesOnly) {
  TempDir dir;
  WriteText(dir.Join("a.txt"), "line\n");
  absl::StatusOr<OpenedFile> opened = OpenDirectoryToWalk(dir.path());
  ASSERT_TRUE(opened.ok()) << opened.status();
  const int fd = opened->handle.get();
  std::string text;
  EXPECT_TRUE(ReadWholeRegularFileAt(fd, "a.txt", 100, text));
  EXPECT_EQ(text, "line\n");
  EXPECT_FALSE(ReadWholeRegularFileAt(fd, "a.txt", 3, text));
  ASSERT_EQ(mkfifo(dir.Join("pipe").c_str(), 0600), 0);
  EXPECT_FALSE(ReadWholeRegularFileAt(fd, "pipe", 100, text));
  ASSERT_EQ(symlink("a.txt", dir.Join("link").c_str()), 0);
  EXPECT_FALSE(ReadWholeRegularFileAt(fd, "link", 100, text));
  EXPECT_FALSE(ReadWholeRegularFileAt(fd, "missing", 100, text));
  EXPECT_FALSE(ReadWholeRegularFileAt(fd, ".", 100, text));
  EXPECT_FALSE(ReadWholeRegularFileAt(AT_FDCWD, "/dev/zero", 100, text));
}

TEST(CheckedOpenTest, OpensADirectoryToWalkOnlyWithoutLinks) {
  TempDir dir;
  TempDir outside;
  WriteText(dir.Join("a.txt"), "a");
  ASSERT_EQ(symlink(outside.path().c_str(), dir.Join("sub").c_str()), 0);
  EXPECT_TRUE(OpenDirectoryToWalk(dir.path()).ok());
  absl::StatusOr<OpenedFile> link = OpenDirectoryToWalk(dir.Join("sub"));
  EXPECT_TRUE(absl::IsPermissionDenied(link.status())) << link.status();
  // The message names the link.
  EXPECT_THAT(std::string(link.status().message()),
              HasSubstr("a symlink is now on its path, at " + dir.Join("sub") + " ("));
  absl::StatusOr<OpenedFile> file = OpenDirectoryToWalk(dir.Join("a.txt"));
  EXPECT_TRUE(absl::IsFailedPrecondition(file.status())) << file.status();
  EXPECT_EQ(file.status().message(), dir.Join("a.txt") + " is a regular file");
}

TEST(CheckedOpenTest, CreatesMissingDirectoriesOneComponentAtATime) {
  TempDir dir;
  absl::StatusOr<OpenedFile> created = OpenOrCreateDirectory(dir.Join("a/b/c"));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(std::filesystem::is_directory(dir.Join("a/b/c")));
  struct stat info;
  ASSERT_EQ(stat(dir.Join("a/b/c").c_str(), &info), 0);
  EXPECT_EQ(created->info.st_ino, info.st_ino);
  // An existing directory is opened as it is.
  EXPECT_TRUE(OpenOrCreateDirectory(dir.Join("a/b")).ok());
  WriteText(dir.Join("file"), "x");
  absl::StatusOr<OpenedFile> under_file = OpenOrCreateDirectory(dir.Join("file/d"));
  EXPECT_TRUE(absl::IsFailedPrecondition(under_file.status())) << under_file.status();
  EXPECT_EQ(under_file.status().message(), "cannot create directory " + dir.Join("file/d") + ": " +
                                               dir.Join("file") + " is a regular file");
}

TEST(CheckedOpenTest, CreatesNoDirectoryThroughALink) {
  TempDir dir;
  TempDir outside;
  ASSERT_EQ(symlink(outside.path().c_str(), dir.Join("sub").c_str()), 0);
  absl::StatusOr<OpenedFile> created = OpenOrCreateDirectory(dir.Join("sub/new/deeper"));
  EXPECT_TRUE(absl::IsPermissionDenied(created.status())) << created.status();
  EXPECT_EQ(created.status().message(),
            "refused to create directory " + dir.Join("sub/new/deeper") + ": " + dir.Join("sub") +
                " is a symlink; directories are created only inside real directories, never "
                "through a link");
  EXPECT_FALSE(std::filesystem::exists(outside.Join("new")));
  // A link as the last component is refused too.
  EXPECT_TRUE(absl::IsPermissionDenied(OpenOrCreateDirectory(dir.Join("sub")).status()));
}

TEST(CheckedOpenTest, MissingFilesAreNotFound) {
  TempDir dir;
  absl::StatusOr<OpenedFile> missing = OpenRegularFile(dir.Join("none"), "t");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_EQ(missing.status().message(), "file not found: " + dir.Join("none"));
}

// The tools, run on a path judged before a symlink was swapped in (what a
// concurrent process could do between the rules' judgement and the open).
class SwappedPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteText(outside_.Join("secret.txt"), "outside secret\n");
    WriteText(dir_.Join("sub/a.txt"), "inside\n");
  }
  ToolOutput Run(const ToolSpec& spec, Json args, const std::string& judged,
                 std::function<bool(const std::string&)> withheld = nullptr) {
    CancelToken cancel;
    config::ToolSettings settings;
    ToolContext ctx{dir_.path(), settings, cancel};
    ctx.judged_path = judged;
    ctx.withheld = std::move(withheld);
    return spec.handler(args, ctx);
  }
  // A ToolContext::withheld that withholds nothing but calls `swap` when the
  // walk meets `path`: after the walk listed the entry and before it enters
  // or reads it, the moment a concurrent process could swap it.
  static std::function<bool(const std::string&)> SwapWhenMet(const std::string& path,
                                                             std::function<void()> swap) {
    return [path, swap = std::move(swap)](const std::string& entry) {
      if (entry == path) swap();
      return false;
    };
  }
  // Replaces <dir>/sub/a.txt with a link to the outside file.
  void SwapFile() {
    std::filesystem::remove(dir_.Join("sub/a.txt"));
    ASSERT_EQ(symlink(outside_.Join("secret.txt").c_str(), dir_.Join("sub/a.txt").c_str()), 0);
  }
  // Replaces <dir>/sub with a link to the outside directory.
  void SwapDirectory() {
    std::filesystem::rename(dir_.Join("sub"), dir_.Join("old"));
    ASSERT_EQ(symlink(outside_.path().c_str(), dir_.Join("sub").c_str()), 0);
    std::filesystem::rename(outside_.Join("secret.txt"), outside_.Join("a.txt"));
  }

  TempDir dir_;
  TempDir outside_;
};

TEST_F(SwappedPathTest, ReadFileRefusesALinkSwappedInAfterTheJudgement) {
  SwapFile();
  ToolOutput out = Run(MakeReadFileTool(), {{"path", "sub/a.txt"}}, dir_.Join("sub/a.txt"));
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("a symlink is now on its path"));
  EXPECT_THAT(out.content, ::testing::Not(HasSubstr("outside secret")));
}

TEST_F(SwappedPathTest, EditFileRefusesALinkSwappedInAfterTheJudgement) {
  SwapFile();
  ToolOutput out = Run(MakeEditFileTool(),
                       {{"path", "sub/a.txt"}, {"old_string", "outside"}, {"new_string", "x"}},
                       dir_.Join("sub/a.txt"));
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(ReadText(outside_.Join("secret.txt")), "outside secret\n");
}

TEST_F(SwappedPathTest, WriteFileRefusesADirectoryLinkSwappedInAfterTheJudgement) {
  SwapDirectory();
  ToolOutput out = Run(MakeWriteFileTool(), {{"path", "sub/a.txt"}, {"content", "overwritten"}},
                       dir_.Join("sub/a.txt"));
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("a symlink is now on its path"));
  EXPECT_EQ(ReadText(outside_.Join("a.txt")), "outside secret\n");
}

TEST_F(SwappedPathTest, WriteFileReplacesALinkAtTheJudgedPathInsteadOfWritingThroughIt) {
  SwapFile();
  // The file at the judged path was a regular file when judged; the link
  // now there is replaced by the new file, never followed.
  ASSERT_TRUE(ReplaceFileAtomically(dir_.Join("sub/a.txt"), "new", 0600).ok());
  EXPECT_EQ(ReadText(outside_.Join("secret.txt")), "outside secret\n");
  EXPECT_EQ(ReadText(dir_.Join("sub/a.txt")), "new");
}

TEST_F(SwappedPathTest, WriteFileCreatesNoParentThroughALinkSwappedInAfterTheJudgement) {
  SwapDirectory();
  ToolOutput out = Run(MakeWriteFileTool(), {{"path", "sub/new/b.txt"}, {"content", "planted"}},
                       dir_.Join("sub/new/b.txt"));
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr(dir_.Join("sub") + " is a symlink"));
  EXPECT_FALSE(std::filesystem::exists(outside_.Join("new")));
}

// A link put at the target's own name after the judgement is replaced, not
// written through, and lends the new file nothing: not the mode of the
// file it points at.
TEST_F(SwappedPathTest, WriteFileReplacesALinkSwappedInAtItsNameWithANewFilesMode) {
  ASSERT_EQ(chmod(outside_.Join("secret.txt").c_str(), 0777), 0);
  SwapFile();
  ToolOutput out = Run(MakeWriteFileTool(), {{"path", "sub/a.txt"}, {"content", "mine"}},
                       dir_.Join("sub/a.txt"));
  ASSERT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  EXPECT_EQ(ReadText(outside_.Join("secret.txt")), "outside secret\n");
  struct stat st;
  ASSERT_EQ(lstat(dir_.Join("sub/a.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, NewFileMode());
  EXPECT_EQ(ReadText(dir_.Join("sub/a.txt")), "mine");
}

TEST_F(SwappedPathTest, WalksRefuseARootSwappedForALinkAfterTheJudgement) {
  SwapDirectory();
  const std::string refused = "a symlink is now on its path, at " + dir_.Join("sub");
  ToolOutput grep = Run(MakeGrepTool(), {{"pattern", "secret"}, {"path", "sub"}}, dir_.Join("sub"));
  EXPECT_EQ(grep.status, events::ToolStatus::kError);
  EXPECT_THAT(grep.content, HasSubstr(refused));
  ToolOutput list = Run(MakeListDirTool(), {{"path", "sub"}}, dir_.Join("sub"));
  EXPECT_EQ(list.status, events::ToolStatus::kError);
  EXPECT_THAT(list.content, HasSubstr(refused));
  ToolOutput glob = Run(MakeGlobTool(), {{"pattern", "sub/*.txt"}}, dir_.Join("sub"));
  EXPECT_EQ(glob.status, events::ToolStatus::kError);
  EXPECT_THAT(glob.content, HasSubstr(refused));
}

TEST_F(SwappedPathTest, GrepRefusesAFileRootSwappedForALinkAfterTheJudgement) {
  SwapFile();
  ToolOutput out =
      Run(MakeGrepTool(), {{"pattern", "secret"}, {"path", "sub/a.txt"}}, dir_.Join("sub/a.txt"));
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("a symlink is now on its path, at " + dir_.Join("sub/a.txt")));
}

TEST_F(SwappedPathTest, WalksDoNotEnterADirectorySwappedForALinkWhileWalking) {
  const std::string sub = dir_.Join("sub");
  ToolOutput grep = Run(MakeGrepTool(), {{"pattern", "secret"}}, dir_.path(),
                        SwapWhenMet(sub, [this] { SwapDirectory(); }));
  EXPECT_EQ(grep.status, events::ToolStatus::kOk);
  EXPECT_THAT(grep.content, HasSubstr("No matches"));
  EXPECT_THAT(grep.content, ::testing::Not(HasSubstr("outside secret")));
}

TEST_F(SwappedPathTest, GlobDoesNotEnterADirectorySwappedForALinkWhileWalking) {
  ToolOutput glob = Run(MakeGlobTool(), {{"pattern", "**/*.txt"}}, dir_.path(),
                        SwapWhenMet(dir_.Join("sub"), [this] { SwapDirectory(); }));
  EXPECT_EQ(glob.status, events::ToolStatus::kOk);
  EXPECT_THAT(glob.content, ::testing::Not(HasSubstr("sub/a.txt")));
}

TEST_F(SwappedPathTest, ListDirDoesNotEnterADirectorySwappedForALinkWhileWalking) {
  ToolOutput list = Run(MakeListDirTool(), {{"depth", 2}}, dir_.path(),
                        SwapWhenMet(dir_.Join("sub"), [this] { SwapDirectory(); }));
  EXPECT_EQ(list.status, events::ToolStatus::kOk);
  EXPECT_THAT(list.content, ::testing::Not(HasSubstr("a.txt")));
  EXPECT_THAT(list.content, HasSubstr("[1 directory could not be read]"));
}

TEST_F(SwappedPathTest, GrepDoesNotReadAFileSwappedForALinkWhileWalking) {
  ToolOutput grep = Run(MakeGrepTool(), {{"pattern", "secret"}}, dir_.path(),
                        SwapWhenMet(dir_.Join("sub/a.txt"), [this] { SwapFile(); }));
  EXPECT_EQ(grep.status, events::ToolStatus::kOk);
  EXPECT_THAT(grep.content, ::testing::Not(HasSubstr("outside secret")));
}

}  // namespace
}  // namespace raw::tools::builtin
