// WalkTree: the walk starts from a directory opened without following links
// and reaches everything below relative to descriptors, so what it enters
// and reads is what it listed, never the target of a link put there since.

#include "daemon/tools/builtin/file_walker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "daemon/tools/builtin/checked_open.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::builtin {
namespace {

using ::raw::tools::testing::TempDir;
using ::raw::tools::testing::WriteText;
using ::testing::ElementsAre;

// The relative paths WalkTree visits below `root`; `on_visit` runs first
// for each entry.
std::vector<std::string> WalkedPaths(
    const std::string& root, WalkSummary* summary = nullptr,
    const std::function<void(const WalkEntry&)>& on_visit = nullptr) {
  absl::StatusOr<OpenedFile> dir = OpenDirectoryToWalk(root);
  EXPECT_TRUE(dir.ok()) << dir.status();
  if (!dir.ok()) return {};
  std::vector<std::string> rels;
  CancelToken cancel;
  WalkOptions options;
  WalkSummary result =
      WalkTree(std::move(dir->handle), root, options, cancel, [&](const WalkEntry& entry) {
        if (on_visit) on_visit(entry);
        rels.push_back(entry.rel);
        return WalkStep::kContinue;
      });
  if (summary != nullptr) *summary = result;
  return rels;
}

TEST(FileWalkerTest, EntriesNameThemselvesRelativeToTheirDirectory) {
  TempDir dir;
  WriteText(dir.Join("sub/a.txt"), "a");
  std::vector<std::string> names;
  WalkedPaths(dir.path(), nullptr, [&](const WalkEntry& entry) {
    names.push_back(entry.name());
    EXPECT_EQ(entry.path, dir.Join(entry.rel));
    struct stat st;
    ASSERT_EQ(fstatat(entry.dir_fd, entry.name(), &st, AT_SYMLINK_NOFOLLOW), 0);
    EXPECT_EQ(st.st_ino, entry.st.st_ino);
  });
  EXPECT_THAT(names, ElementsAre("sub", "a.txt"));
}

// The visitor runs after the directory was listed and before it is
// entered: a concurrent process could swap it for a link just then.
TEST(FileWalkerTest, ADirectorySwappedForALinkAfterItWasListedIsNotEntered) {
  TempDir dir;
  TempDir outside;
  WriteText(dir.Join("sub/inside.txt"), "in");
  WriteText(outside.Join("secret.txt"), "secret");
  WalkSummary summary;
  std::vector<std::string> rels = WalkedPaths(dir.path(), &summary, [&](const WalkEntry& entry) {
    if (entry.rel != "sub") return;
    std::filesystem::rename(dir.Join("sub"), dir.Join("old"));
    ASSERT_EQ(symlink(outside.path().c_str(), dir.Join("sub").c_str()), 0);
  });
  EXPECT_THAT(rels, ElementsAre("sub"));
  EXPECT_EQ(summary.unreadable_directories, 1);
}

TEST(FileWalkerTest, DescriptorsStayBoundedInDeepTrees) {
  TempDir dir;
  std::string deep = dir.path();
  for (int i = 0; i < kMaxWalkDepth + 2; ++i) deep += "/d";
  std::filesystem::create_directories(deep);
  WalkSummary summary;
  std::vector<std::string> rels = WalkedPaths(dir.path(), &summary);
  ASSERT_EQ(rels.size(), static_cast<size_t>(kMaxWalkDepth));
  EXPECT_EQ(summary.unreadable_directories, 1);
}

TEST(FileWalkerTest, AGitignoreThatIsALinkIsNotRead) {
  TempDir dir;
  WriteText(dir.Join("rules"), "*.o\n");
  WriteText(dir.Join("a.o"), "");
  ASSERT_EQ(symlink("rules", dir.Join(".gitignore").c_str()), 0);
  EXPECT_THAT(WalkedPaths(dir.path()), ElementsAre(".gitignore", "a.o", "rules"));
  std::filesystem::remove(dir.Join(".gitignore"));
  WriteText(dir.Join(".gitignore"), "*.o\n");
  EXPECT_THAT(WalkedPaths(dir.path()), ElementsAre(".gitignore", "rules"));
}

}  // namespace
}  // namespace raw::tools::builtin
