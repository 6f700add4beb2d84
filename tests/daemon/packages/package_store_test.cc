#include "daemon/packages/package_store.h"

#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/child_ledger.h"
#include "daemon/packages/package_archive.h"
#include "daemon/packages/package_fetch.h"
#include "daemon/packages/package_files.h"
#include "daemon/packages/package_index.h"
#include "daemon/packages/package_ops.h"
#include "daemon/packages/package_tree.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/packages/package_test_support.h"

namespace raw::packages {
namespace {

using testing::ArchiveEntry;
using testing::AsNobody;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteFile;
using testing::WriteMinimalPackage;
using testing::WriteTarGz;

std::string Hash(const std::string& dir) {
  absl::StatusOr<std::string> hash = HashDirectory(dir);
  EXPECT_TRUE(hash.ok()) << hash.status();
  return hash.value_or("");
}

void SetMtime(const std::string& path, time_t seconds) {
  struct timeval times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(lutimes(path.c_str(), times), 0);
}

TEST(PackageTreeTest, IdenticalTreesHashTheSameWhateverOrderTimesModesAndOwners) {
  TempDir tmp;
  const std::string a = tmp.File("a"), b = tmp.File("b");
  WriteFile(a + "/x.txt", "one");
  WriteFile(a + "/sub/y.txt", "two");
  WriteFile(a + "/run.sh", "#!/bin/sh\n", 0755);
  // The same files written in the other order, other times, other non-exec
  // modes and (as root) another owner.
  WriteFile(b + "/run.sh", "#!/bin/sh\n", 0700);
  WriteFile(b + "/sub/y.txt", "two", 0600);
  WriteFile(b + "/x.txt", "one", 0664);
  std::filesystem::create_directories(b + "/empty-dir");
  SetMtime(b + "/x.txt", 1000);
  SetMtime(b + "/sub/y.txt", 2000000000);
  if (geteuid() == 0) {
    ASSERT_EQ(lchown((b + "/x.txt").c_str(), 4242, 4242), 0);
  }
  EXPECT_EQ(Hash(a), Hash(b));
  EXPECT_EQ(Hash(a).size(), 64u);
}

TEST(PackageTreeTest, OneByteOrOneExecutableBitGivesAnotherHash) {
  TempDir tmp;
  const std::string dir = tmp.File("p");
  WriteFile(dir + "/x.txt", "one");
  WriteFile(dir + "/tool", "data");
  const std::string before = Hash(dir);
  WriteFile(dir + "/x.txt", "onE");
  const std::string byte_changed = Hash(dir);
  EXPECT_NE(byte_changed, before);
  WriteFile(dir + "/x.txt", "one");
  EXPECT_EQ(Hash(dir), before);
  chmod((dir + "/tool").c_str(), 0744);
  EXPECT_NE(Hash(dir), before);
}

TEST(PackageTreeTest, CanonicalEncodingIsTheDocumentedOne) {
  // sha256("raw-package-tree-v1\n" "f" "a.txt\0" "2\0" "hi"), computed
  // independently with: printf 'raw-package-tree-v1\nfa.txt\0002\000hi' |
  // sha256sum
  TempDir tmp;
  WriteFile(tmp.File("p/a.txt"), "hi");
  EXPECT_EQ(Hash(tmp.File("p")),
            "a12a0fb61c7fb944395d541b72efd36ce6fdfb2b054615a9fb747ca6f20a0f5c");
}

TEST(PackageTreeTest, SymlinksLeavingThePackageAndDevicesAreRefused) {
  TempDir tmp;
  const std::string dir = tmp.File("p");
  WriteFile(dir + "/x.txt", "one");
  ASSERT_EQ(symlink("../../etc/passwd", (dir + "/escape").c_str()), 0);
  EXPECT_THAT(std::string(ScanTree(dir).status().message()), HasSubstr("outside the package"));
  unlink((dir + "/escape").c_str());
  ASSERT_EQ(symlink("/etc/passwd", (dir + "/abs").c_str()), 0);
  EXPECT_THAT(std::string(ScanTree(dir).status().message()), HasSubstr("outside the package"));
  unlink((dir + "/abs").c_str());
  ASSERT_EQ(symlink("x.txt", (dir + "/inside").c_str()), 0);
  EXPECT_TRUE(ScanTree(dir).ok());
  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0644), 0);
  EXPECT_THAT(std::string(ScanTree(dir).status().message()), HasSubstr("FIFO"));
}

// `a/b/c -> ../../s` leads to `s`; `y -> a/b/c/../..` reads as "a" but on
// disk climbs from `s` above the package. Chains and loops are refused too.
TEST(PackageTreeTest, SymlinksLeadingOutsideThroughOtherSymlinksAreRefused) {
  TempDir tmp;
  const std::string dir = tmp.File("p");
  WriteFile(dir + "/x.txt", "one");
  WriteFile(dir + "/s/file.txt", "two");
  std::filesystem::create_directories(dir + "/a/b");
  ASSERT_EQ(symlink("../../s", (dir + "/a/b/c").c_str()), 0);
  ASSERT_TRUE(ScanTree(dir).ok()) << ScanTree(dir).status();
  ASSERT_EQ(symlink("a/b/c/../..", (dir + "/y").c_str()), 0);
  absl::Status status = ScanTree(dir).status();
  EXPECT_THAT(std::string(status.message()), HasSubstr("symlink \"y\""));
  EXPECT_THAT(std::string(status.message()), HasSubstr("outside the package"));
  EXPECT_FALSE(HashDirectory(dir).ok());
  unlink((dir + "/y").c_str());

  // The longer chain: a1/.../a6/c leads to s, and leak climbs 6 levels from it.
  std::filesystem::create_directories(dir + "/a1/a2/a3/a4/a5/a6");
  ASSERT_EQ(symlink("../../../../../../s", (dir + "/a1/a2/a3/a4/a5/a6/c").c_str()), 0);
  ASSERT_EQ(
      symlink("a1/a2/a3/a4/a5/a6/c/../../../../../../home/.ssh/id_rsa", (dir + "/leak.md").c_str()),
      0);
  EXPECT_THAT(std::string(ScanTree(dir).status().message()), HasSubstr("outside the package"));
  unlink((dir + "/leak.md").c_str());

  // Through a link, but still inside: accepted.
  ASSERT_EQ(symlink("a/b/c/file.txt", (dir + "/via").c_str()), 0);
  ASSERT_EQ(symlink("a/b/c/../x.txt", (dir + "/back").c_str()), 0);
  EXPECT_TRUE(ScanTree(dir).ok()) << ScanTree(dir).status();

  // A link ending at the package's own root, and a loop.
  ASSERT_EQ(symlink("a/b/c/..", (dir + "/root").c_str()), 0);
  EXPECT_THAT(std::string(ScanTree(dir).status().message()), HasSubstr("own root"));
  unlink((dir + "/root").c_str());
  ASSERT_EQ(symlink("loop2/x", (dir + "/loop1").c_str()), 0);
  ASSERT_EQ(symlink("loop1/x", (dir + "/loop2").c_str()), 0);
  EXPECT_THAT(std::string(ScanTree(dir).status().message()), HasSubstr("a loop"));
}

TEST(PackageTreeTest, FileCountAndSizeLimits) {
  TempDir tmp;
  const std::string dir = tmp.File("p");
  for (int i = 0; i < 5; ++i) WriteFile(absl::StrCat(dir, "/f", i), "12345");
  TreeLimits few;
  few.max_files = 4;
  EXPECT_TRUE(absl::IsResourceExhausted(ScanTree(dir, few).status()));
  TreeLimits small;
  small.max_total_bytes = 20;
  EXPECT_TRUE(absl::IsResourceExhausted(ScanTree(dir, small).status()));
}

// An archive's file limit counts files and symlinks, as a folder's does;
// its directories, listed or implied by a path, have a bound of their own.
TEST(PackageArchiveTest, TheFileLimitCountsFilesAndSymlinksAndDirectoriesHaveTheirOwn) {
  TempDir tmp;
  TreeLimits limits;
  limits.max_files = 3;
  limits.max_dirs = 3;
  const ArchiveEntry manifest = {"raw-package.json", "{}"};
  auto unpack = [&](const std::string& name, const std::vector<ArchiveEntry>& entries) {
    WriteTarGz(tmp.File(name + ".tar.gz"), entries);
    std::filesystem::create_directories(tmp.File(name));
    return UnpackArchive(tmp.File(name + ".tar.gz"), tmp.File(name), limits);
  };
  // Three files and symlinks in three directories: seven entries, within
  // both limits.
  absl::Status fits = unpack("fits", {{"a/", "", 0755, AE_IFDIR},
                                      {"a/b/", "", 0755, AE_IFDIR},
                                      manifest,
                                      {"a/b/x", "x"},
                                      {"a/b/c/l", "", 0777, AE_IFLNK, "../x"}});
  EXPECT_TRUE(fits.ok()) << fits;

  absl::Status files =
      unpack("files", {manifest, {"x", "x"}, {"l", "", 0777, AE_IFLNK, "x"}, {"y", "y"}});
  EXPECT_TRUE(absl::IsResourceExhausted(files)) << files;
  EXPECT_EQ(files.message(), "the archive has more than 3 files");

  for (const std::vector<ArchiveEntry>& entries :
       std::vector<std::vector<ArchiveEntry>>{{manifest,
                                               {"d1/", "", 0755, AE_IFDIR},
                                               {"d2/", "", 0755, AE_IFDIR},
                                               {"d3/", "", 0755, AE_IFDIR},
                                               {"d4/", "", 0755, AE_IFDIR}},
                                              {manifest, {"d1/d2/d3/d4/x", "x"}}}) {
    absl::Status dirs = unpack(absl::StrCat("dirs", entries.size()), entries);
    EXPECT_TRUE(absl::IsResourceExhausted(dirs)) << dirs;
    EXPECT_EQ(dirs.message(), "the archive has more than 3 directories");
  }
}

TEST(PackageArchiveTest, TraversalAbsolutePathsHardLinksDevicesAndEscapingLinksAreRefused) {
  TempDir tmp;
  struct Case {
    ArchiveEntry entry;
    const char* why;
  };
  const std::vector<Case> cases = {
      {{"../evil", "x"}, "\"..\""},
      {{"a/../../evil", "x"}, "\"..\""},
      {{"/tmp/evil", "x"}, "absolute"},
      {{"link", "", 0777, AE_IFLNK, "../../outside"}, "outside the package"},
      {{"link", "", 0777, AE_IFLNK, "/etc"}, "outside the package"},
      {{"hard", "", 0644, AE_IFREG, "raw-package.json", true}, "hard link"},
      {{"dev", "", 0644, AE_IFCHR}, "device"},
  };
  int n = 0;
  for (const Case& c : cases) {
    std::string file = tmp.File(absl::StrCat("bad", n, ".tar.gz"));
    std::string dest = tmp.File(absl::StrCat("out", n++));
    std::filesystem::create_directories(dest);
    WriteTarGz(file, {{"raw-package.json", "{}"}, c.entry});
    absl::Status status = UnpackArchive(file, dest);
    EXPECT_FALSE(status.ok()) << c.entry.path;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.why)) << c.entry.path;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp.File("evil")));
  EXPECT_FALSE(std::filesystem::exists("/tmp/evil"));
}

TEST(PackageArchiveTest, SymlinksLeadingOutsideThroughOtherSymlinksAreRefused) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.File("out"));
  // The link that climbs comes first: only the two together lead outside.
  WriteTarGz(tmp.File("a.tar.gz"), {{"raw-package.json", "{}"},
                                    {"y", "", 0777, AE_IFLNK, "a/b/c/../.."},
                                    {"s/file.txt", "x"},
                                    {"a/b/", "", 0755, AE_IFDIR},
                                    {"a/b/c", "", 0777, AE_IFLNK, "../../s"}});
  absl::Status status = UnpackArchive(tmp.File("a.tar.gz"), tmp.File("out"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("symlink \"y\""));
  EXPECT_THAT(std::string(status.message()), HasSubstr("outside the package"));
}

TEST(PackageArchiveTest, WritingThroughASymlinkPlantedEarlierIsRefused) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.File("out"));
  WriteTarGz(tmp.File("a.tar.gz"), {{"d", "", 0777, AE_IFLNK, "sub"},
                                    {"sub/", "", 0755, AE_IFDIR},
                                    {"d/file", "x"}});
  absl::Status status = UnpackArchive(tmp.File("a.tar.gz"), tmp.File("out"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("not a directory"));
}

// A symlink planted where the temporary file used to go (its name was
// PATH.tmp.PID) is not written through: the target stays as it was.
TEST(PackageFilesTest, AnAtomicWriteNeverFollowsAPlantedSymlink) {
  TempDir tmp;
  const std::string victim = tmp.File("bashrc");
  WriteFile(victim, "keep me\n");
  const std::string path = tmp.File("indexes.json");
  ASSERT_EQ(symlink(victim.c_str(), absl::StrCat(path, ".tmp.", getpid()).c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path, "{}\n").ok());
  EXPECT_EQ(testing::ReadFile(victim), "keep me\n");
  EXPECT_EQ(testing::ReadFile(path), "{}\n");
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  struct stat st;
  ASSERT_EQ(lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

class PackageOpsTest : public ::testing::Test {
 protected:
  PackageOpsTest() : store_(tmp_.File("data/raw/packages")) {}
  PackageContext Ctx(const std::string& config = "config/config.json") {
    return PackageContext{store_, tmp_.File(config), nullptr};
  }
  TempDir tmp_;
  PackageStore store_;
};

TEST_F(PackageOpsTest, InstallsAFolderReadOnlyAndWritesTheAliasBesideTheConfig) {
  WriteMinimalPackage(tmp_.File("src"));
  auto installed = Install(Ctx(), tmp_.File("src"), "mine");
  ASSERT_TRUE(installed.ok()) << installed.status();
  EXPECT_TRUE(installed->stored);
  EXPECT_EQ(installed->hash, Hash(tmp_.File("src")));
  EXPECT_EQ(installed->index_path, tmp_.File("config/packages.json"));
  const std::string entry = store_.EntryDir(installed->hash);
  struct stat st;
  ASSERT_EQ(stat((entry + "/skills/review/SKILL.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0444u);
  ASSERT_EQ(stat(entry.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0555u);
  auto index = PackageIndex::Load(installed->index_path);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->aliases.at("mine").hash, installed->hash);
  // Twice: a no-op for the store.
  auto again = Install(Ctx(), tmp_.File("src"), "mine");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->stored);
  EXPECT_EQ(again->hash, installed->hash);
  // Nothing is left in staging.
  EXPECT_TRUE(std::filesystem::is_empty(store_.root() + "/staging"));
}

TEST_F(PackageOpsTest, InstallsATarballToTheSameHashAsTheFolder) {
  WriteMinimalPackage(tmp_.File("src"));
  WriteTarGz(tmp_.File("kit-1.0.tar.gz"),
             {{"kit-1.0/", "", 0755, AE_IFDIR},
              {"kit-1.0/raw-package.json", testing::ReadFile(tmp_.File("src/raw-package.json"))},
              {"kit-1.0/skills/review/SKILL.md",
               testing::ReadFile(tmp_.File("src/skills/review/SKILL.md"))}});
  auto installed = Install(Ctx(), tmp_.File("kit-1.0.tar.gz"), std::nullopt);
  ASSERT_TRUE(installed.ok()) << installed.status();
  EXPECT_EQ(installed->alias, "kit");  // the manifest's name
  EXPECT_EQ(installed->hash, Hash(tmp_.File("src")));
}

TEST_F(PackageOpsTest, ABrokenManifestIsRefusedWithPathsAndNothingIsStored) {
  WriteFile(tmp_.File("src/raw-package.json"),
            R"({"name": "Kit", "version": "1", "description": "d",
                "exports": {"hooks": {"a": {"event": "pre_tool", "command": ["x"]}},
                            "skills": {"s": {"path": "nowhere"}}}})");
  auto installed = Install(Ctx(), tmp_.File("src"), std::nullopt);
  ASSERT_FALSE(installed.ok());
  const std::string message(installed.status().message());
  EXPECT_THAT(message, HasSubstr("name: \"Kit\" is not a valid package name"));
  EXPECT_THAT(message, HasSubstr("exports.hooks.a.event:"));
  EXPECT_THAT(message, HasSubstr("exports.skills.s.path: the package has no file \"nowhere/SKILL.md\""));
  auto hashes = store_.Hashes();
  ASSERT_TRUE(hashes.ok());
  EXPECT_TRUE(hashes->empty());
}

// Exports that could never be used are refused at install and inspect,
// naming each one's JSON path; nothing is stored.
TEST_F(PackageOpsTest, UnusableExportsAreRefusedAtInstallAndInspect) {
  const std::string src = tmp_.File("src");
  WriteFile(src + "/raw-package.json",
            R"({"name": "kit", "version": "1", "description": "d",
                "exports": {
                  "mcp": {"notes": {"command": ["${package}/bin/notes"]}},
                  "prompts": {"tone": {"path": "prompts/tone.md"}},
                  "skills": {"s": {"path": "skills/s"}, "bad": {"path": "skills/bad"}},
                  "agents": {"main": {"tools": {"use": ["builtin/*", "mcp/notes"]}}}}})");
  WriteFile(src + "/shared/tone.md", "Be brief.");
  std::filesystem::create_directories(src + "/prompts");
  ASSERT_EQ(symlink("../shared/tone.md", (src + "/prompts/tone.md").c_str()), 0);
  WriteFile(src + "/skills/s/SKILL.md", "---\nname: other\ndescription: d\n---\n");
  WriteFile(src + "/skills/bad/SKILL.md", "no front matter\n");

  for (bool install : {false, true}) {
    absl::Status status =
        install ? Install(Ctx(), src, std::nullopt).status() : Inspect(Ctx(), src).status();
    ASSERT_FALSE(status.ok()) << (install ? "install" : "inspect");
    const std::string message(status.message());
    EXPECT_THAT(message, HasSubstr("exports.agents.main.tools.use[1]: \"mcp/notes\" must name one "
                                   "server and its tools"));
  }
  // With the preset fixed, the checks of the files come next.
  WriteFile(src + "/raw-package.json",
            R"({"name": "kit", "version": "1", "description": "d",
                "exports": {
                  "mcp": {"notes": {"command": ["${package}/bin/notes"]}},
                  "prompts": {"tone": {"path": "prompts/tone.md"}},
                  "skills": {"s": {"path": "skills/s"}, "bad": {"path": "skills/bad"}},
                  "agents": {"main": {"tools": {"use": ["builtin/*", "mcp/notes/*"]}}}}})");
  for (bool install : {false, true}) {
    absl::Status status =
        install ? Install(Ctx(), src, std::nullopt).status() : Inspect(Ctx(), src).status();
    ASSERT_FALSE(status.ok()) << (install ? "install" : "inspect");
    const std::string message(status.message());
    EXPECT_THAT(message, HasSubstr("exports.prompts.tone.path: \"prompts/tone.md\" is a symbolic "
                                   "link"));
    EXPECT_THAT(message, HasSubstr("exports.skills.s.path: skills/s/SKILL.md names the skill "
                                   "\"other\""));
    EXPECT_THAT(message, HasSubstr("exports.skills.bad.path: "));
  }
  auto hashes = store_.Hashes();
  ASSERT_TRUE(hashes.ok());
  EXPECT_TRUE(hashes->empty());

  // Fixed: the prompt is a file, the skill is named as its export.
  ASSERT_EQ(unlink((src + "/prompts/tone.md").c_str()), 0);
  WriteFile(src + "/prompts/tone.md", "Be brief.");
  WriteFile(src + "/skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\n");
  WriteFile(src + "/skills/bad/SKILL.md", "---\nname: bad\ndescription: d\n---\n");
  auto installed = Install(Ctx(), src, std::nullopt);
  EXPECT_TRUE(installed.ok()) << installed.status();
}

TEST_F(PackageOpsTest, InstallAndInspectNeverRunPackageCode) {
  // Every file would leave a trace in `traces` if anything executed it.
  const std::string traces = tmp_.File("traces");
  std::filesystem::create_directories(traces);
  const std::string script = "#!/bin/sh\ntouch " + traces + "/$(basename \"$0\")\n";
  const std::string src = tmp_.File("src");
  WriteFile(src + "/raw-package.json",
            R"({"name": "trap", "version": "1.0.0", "description": "runs nothing",
                "exports": {
                  "hooks": {"h": {"event": "session_start", "command": ["${package}/bin/hook"]}},
                  "mcp": {"m": {"command": ["${package}/bin/server"]}},
                  "skills": {"s": {"path": "skills/s"}}}})");
  for (const char* f : {"bin/hook", "bin/server", "install.sh", "postinstall", "setup.py"}) {
    WriteFile(src + "/" + f, script, 0755);
  }
  WriteFile(src + "/skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\n");
  WriteFile(src + "/skills/s/run", script, 0755);
  ASSERT_TRUE(Inspect(Ctx(), src).ok());
  auto installed = Install(Ctx(), src, std::nullopt);
  ASSERT_TRUE(installed.ok()) << installed.status();
  ASSERT_TRUE(Inspect(Ctx(), "trap").ok());
  ASSERT_TRUE(Verify(Ctx(), std::nullopt).ok());
  ASSERT_TRUE(List(Ctx()).ok());
  EXPECT_TRUE(std::filesystem::is_empty(traces));
}

// Inspecting an alias re-hashes its entry: one changed after it was
// installed is refused, never shown under the hash it no longer has.
TEST_F(PackageOpsTest, InspectingAnAliasRefusesAnEntryChangedSinceItWasInstalled) {
  WriteMinimalPackage(tmp_.File("src"));
  auto installed = Install(Ctx(), tmp_.File("src"), "kit");
  ASSERT_TRUE(installed.ok()) << installed.status();
  ASSERT_TRUE(Inspect(Ctx(), "kit").ok());
  // Same size, other bytes: only a re-hash tells.
  const std::string skill = store_.EntryDir(installed->hash) + "/skills/review/SKILL.md";
  const std::string text = testing::ReadFile(skill);
  ASSERT_EQ(chmod(skill.c_str(), 0644), 0);
  WriteFile(skill, std::string(text.size(), 'x'));
  auto inspected = Inspect(Ctx(), "kit");
  ASSERT_FALSE(inspected.ok());
  EXPECT_TRUE(absl::IsDataLoss(inspected.status())) << inspected.status();
  EXPECT_THAT(inspected.status().message(), HasSubstr("package \"kit\" is refused"));
  EXPECT_THAT(inspected.status().message(), HasSubstr("was changed after it was installed"));
  EXPECT_THAT(inspected.status().message(), HasSubstr("run `raw package verify kit`"));
}

// An intact entry whose exports could never be used (stored before they were
// checked) is refused by inspect as its source would be.
TEST_F(PackageOpsTest, InspectingAnAliasRefusesUnusableExportsOfAnIntactEntry) {
  const std::string tree = tmp_.File("tree");
  WriteMinimalPackage(tree);
  WriteFile(tree + "/skills/review/SKILL.md", "---\nname: other\ndescription: d\n---\n");
  const std::string hash = Hash(tree);
  std::filesystem::create_directories(store_.root() + "/sha256");
  std::filesystem::rename(tree, store_.EntryDir(hash));
  auto index = PackageIndex::Load(PackageIndex::PathForConfig(Ctx().config_path));
  ASSERT_TRUE(index.ok()) << index.status();
  index->aliases["kit"] = IndexEntry{hash, "old", "kit", "1.0.0"};
  ASSERT_TRUE(index->Save().ok());
  auto inspected = Inspect(Ctx(), "kit");
  ASSERT_FALSE(inspected.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(inspected.status())) << inspected.status();
  EXPECT_THAT(inspected.status().message(),
              HasSubstr("exports.skills.review.path: skills/review/SKILL.md names the skill "
                        "\"other\""));
}

TEST_F(PackageOpsTest, GcKeepsWhatAnyIndexReferences) {
  WriteMinimalPackage(tmp_.File("v1"), "kit", "one");
  WriteMinimalPackage(tmp_.File("v2"), "kit", "two");
  WriteMinimalPackage(tmp_.File("v3"), "kit", "three");
  auto a = Install(Ctx("a/config.json"), tmp_.File("v1"), std::nullopt);
  auto b = Install(Ctx("b/config.json"), tmp_.File("v2"), std::nullopt);
  auto c = Install(Ctx("a/config.json"), tmp_.File("v3"), "other");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_TRUE(Remove(Ctx("a/config.json"), "other").ok());
  auto dry = CollectGarbage(Ctx(), /*dry_run=*/true);
  ASSERT_TRUE(dry.ok()) << dry.status();
  EXPECT_THAT(dry->removed, ElementsAre(c->hash));
  EXPECT_TRUE(std::filesystem::exists(store_.EntryDir(c->hash)));
  auto gc = CollectGarbage(Ctx(), /*dry_run=*/false);
  ASSERT_TRUE(gc.ok());
  EXPECT_THAT(gc->removed, ElementsAre(c->hash));
  EXPECT_FALSE(std::filesystem::exists(store_.EntryDir(c->hash)));
  EXPECT_TRUE(std::filesystem::exists(store_.EntryDir(a->hash)));
  EXPECT_TRUE(std::filesystem::exists(store_.EntryDir(b->hash)));
  // A damaged index stops gc rather than guessing.
  WriteFile(tmp_.File("b/packages.json"), "not json");
  EXPECT_TRUE(absl::IsDataLoss(CollectGarbage(Ctx(), false).status()));
  EXPECT_TRUE(std::filesystem::exists(store_.EntryDir(b->hash)));
}

// No process has this pid (it is above any pid_max), so a staging
// directory named for it was left by a process that has ended.
constexpr char kEndedStage[] = "stage_2147483647_0_01JZZZZZZZZZZZZZZZZZZZZZZZ";

// A staging directory as an install killed halfway leaves it: a download
// and an unpacked tree already made read-only.
void LeaveStaging(const std::string& dir) {
  WriteFile(dir + "/download.tar.gz", std::string(4096, 'z'));
  WriteMinimalPackage(dir + "/tree");
  ASSERT_TRUE(MakeReadOnly(dir + "/tree").ok());
}

// What interrupted installs and inspects leave in staging/ (an ended
// process's, and one of an older naming that names no process) is removed
// by gc and by the next install; a running process's stays.
TEST_F(PackageOpsTest, StagingLeftByEndedProcessesIsSweptByGcAndTheNextInstall) {
  const std::string staging = store_.root() + "/staging";
  LeaveStaging(staging + "/" + kEndedStage);
  LeaveStaging(staging + "/stage_01JOLDNAMEOLDNAMEOLDNAMEOL");
  absl::StatusOr<std::string> mine = store_.NewStagingDir();  // this process runs
  ASSERT_TRUE(mine.ok()) << mine.status();
  const pid_t sleeper = fork();
  ASSERT_GE(sleeper, 0);
  if (sleeper == 0) {
    pause();
    _exit(0);
  }
  const std::string theirs =
      absl::StrCat(staging, "/stage_", sleeper, "_", child_ledger::ProcessStartTime(sleeper),
                   "_01JTHEIRSTHEIRSTHEIRSTHEIR");
  LeaveStaging(theirs);

  auto dry = CollectGarbage(Ctx(), /*dry_run=*/true);
  ASSERT_TRUE(dry.ok()) << dry.status();
  EXPECT_THAT(dry->staging_removed, ElementsAre("stage_01JOLDNAMEOLDNAMEOLDNAMEOL", kEndedStage));
  EXPECT_TRUE(std::filesystem::exists(staging + "/" + kEndedStage));
  auto gc = CollectGarbage(Ctx(), /*dry_run=*/false);
  ASSERT_TRUE(gc.ok()) << gc.status();
  EXPECT_THAT(gc->staging_removed, ElementsAre("stage_01JOLDNAMEOLDNAMEOLDNAMEOL", kEndedStage));
  EXPECT_FALSE(std::filesystem::exists(staging + "/" + kEndedStage));
  EXPECT_FALSE(std::filesystem::exists(staging + "/stage_01JOLDNAMEOLDNAMEOLDNAMEOL"));
  EXPECT_TRUE(std::filesystem::exists(*mine));
  EXPECT_TRUE(std::filesystem::exists(theirs + "/tree/raw-package.json"));

  LeaveStaging(staging + "/" + kEndedStage);
  WriteMinimalPackage(tmp_.File("src"));
  ASSERT_TRUE(Install(Ctx(), tmp_.File("src"), std::nullopt).ok());
  EXPECT_FALSE(std::filesystem::exists(staging + "/" + kEndedStage));
  EXPECT_TRUE(std::filesystem::exists(theirs));

  kill(sleeper, SIGKILL);
  ASSERT_EQ(waitpid(sleeper, nullptr, 0), sleeper);
  gc = CollectGarbage(Ctx(), /*dry_run=*/false);
  ASSERT_TRUE(gc.ok()) << gc.status();
  EXPECT_THAT(gc->staging_removed,
              ::testing::Contains(::testing::StartsWith(absl::StrCat("stage_", sleeper, "_"))));
  EXPECT_FALSE(std::filesystem::exists(theirs));
}

TEST_F(PackageOpsTest, VerifyReportsDrift) {
  WriteMinimalPackage(tmp_.File("src"));
  auto installed = Install(Ctx(), tmp_.File("src"), std::nullopt);
  ASSERT_TRUE(installed.ok());
  const std::string skill = store_.EntryDir(installed->hash) + "/skills/review/SKILL.md";
  chmod(skill.c_str(), 0644);
  WriteFile(skill, "tampered");
  auto results = Verify(Ctx(), "kit");
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results->size(), 1u);
  EXPECT_TRUE(absl::IsDataLoss((*results)[0].status));
  EXPECT_THAT(std::string((*results)[0].status.message()), HasSubstr("was changed after it was installed"));
}

TEST_F(PackageOpsTest, InstallingAgainReplacesAnEntryThatChanged) {
  WriteMinimalPackage(tmp_.File("src"));
  auto installed = Install(Ctx(), tmp_.File("src"), std::nullopt);
  ASSERT_TRUE(installed.ok());
  const std::string entry = store_.EntryDir(installed->hash);
  const std::string skill = entry + "/skills/review/SKILL.md";
  const std::string original = testing::ReadFile(skill);
  chmod(skill.c_str(), 0644);
  WriteFile(skill, "tampered");
  chmod(entry.c_str(), 0755);
  WriteFile(entry + "/extra.txt", "planted");
  ASSERT_FALSE((*Verify(Ctx(), "kit"))[0].status.ok());

  auto again = Install(Ctx(), tmp_.File("src"), std::nullopt);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->stored);
  EXPECT_TRUE(again->repaired);
  EXPECT_EQ(again->hash, installed->hash);
  auto results = Verify(Ctx(), "kit");
  ASSERT_TRUE(results.ok());
  EXPECT_TRUE((*results)[0].status.ok()) << (*results)[0].status;
  EXPECT_EQ(testing::ReadFile(skill), original);
  EXPECT_FALSE(std::filesystem::exists(entry + "/extra.txt"));
  struct stat st;
  ASSERT_EQ(stat(entry.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0555u);
  ASSERT_EQ(stat(skill.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0444u);
  EXPECT_TRUE(store_.Read(installed->hash).ok());
  EXPECT_TRUE(std::filesystem::is_empty(store_.root() + "/staging"));

  // Intact now: a third install changes nothing.
  auto third = Install(Ctx(), tmp_.File("src"), std::nullopt);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->stored);
  EXPECT_FALSE(third->repaired);
}

// Install, repair and gc as a user without root's right to write into
// read-only directories: a store entry's top directory is read-only, and
// moving a directory to another parent needs write permission on it; a
// read-only tree a killed install left in staging/ is swept all the same. Run
// as nobody in a child when the tests run as root.
std::string StoreRoundTripAsThisUser() {
  char pattern[] = "/tmp/raw-pkg-user-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return "mkdtemp failed";
  const std::string root = pattern;
  std::string problem;
  {
    PackageStore store(root + "/data/raw/packages");
    PackageContext ctx{store, root + "/config/config.json", nullptr};
    WriteMinimalPackage(root + "/src");
    LeaveStaging(store.root() + "/staging/" + kEndedStage);  // read-only, as a killed install's
    auto installed = Install(ctx, root + "/src", std::nullopt);
    const bool swept = !std::filesystem::exists(store.root() + "/staging/" + kEndedStage);
    const std::string skill =
        store.EntryDir(installed.ok() ? installed->hash : "") + "/skills/review/SKILL.md";
    chmod(skill.c_str(), 0644);
    if (installed.ok()) WriteFile(skill, "tampered");
    auto again = Install(ctx, root + "/src", std::nullopt);
    if (!installed.ok()) {
      problem = absl::StrCat("install: ", installed.status().message());
    } else if (!swept) {
      problem = "install left a read-only staging tree of an ended process";
    } else if (!again.ok()) {
      problem = absl::StrCat("reinstall: ", again.status().message());
    } else if (!store.Verify(installed->hash).ok()) {
      problem = "the entry was not repaired";
    } else if (auto removed = Remove(ctx, "kit"); !removed.ok()) {
      problem = absl::StrCat("remove: ", removed.status().message());
    } else if (auto gc = CollectGarbage(ctx, false); !gc.ok()) {
      problem = absl::StrCat("gc: ", gc.status().message());
    } else if (std::filesystem::exists(store.EntryDir(installed->hash))) {
      problem = "gc left the entry";
    }
  }
  (void)RemoveTree(root);
  return problem;
}

TEST(PackageStoreUserTest, InstallRepairAndGcWorkWithoutRoot) {
  EXPECT_EQ(AsNobody(StoreRoundTripAsThisUser), "");
}

TEST(PackageIndexTest, EachConfigFileHasItsOwnIndex) {
  EXPECT_EQ(PackageIndex::PathForConfig("/h/.config/raw/config.json"),
            "/h/.config/raw/packages.json");
  EXPECT_EQ(PackageIndex::PathForConfig("/p/work.json"), "/p/work.packages.json");
}

TEST(PackageFetchTest, OnlyHttpsArchivesWithoutCredentials) {
  EXPECT_TRUE(CheckPackageUrl("https://example.com/kit-1.0.tar.gz?x=1").ok());
  EXPECT_THAT(std::string(CheckPackageUrl("http://example.com/kit.tar.gz").message()),
              HasSubstr("https:// only"));
  EXPECT_THAT(std::string(CheckPackageUrl("https://me:pw@example.com/kit.tar.gz").message()),
              HasSubstr("credentials"));
  EXPECT_THAT(std::string(CheckPackageUrl("https://example.com/kit.zip").message()),
              HasSubstr("archive"));
}

}  // namespace
}  // namespace raw::packages
