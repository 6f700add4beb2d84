// Archives whose names are not ASCII: a pax archive (what `tar
// --format=posix` and Python's tarfile write) holds its names in UTF-8,
// which libarchive cannot convert to the character set of a program that
// never sets a locale, as raw-package. The names are kept as the archive's
// bytes, so such a package installs, with the hash its folder has; any other
// warning libarchive gives about a header still refuses the archive.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/packages/package_archive.h"
#include "daemon/packages/package_ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/packages/package_test_support.h"

namespace raw::packages {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteFile;

constexpr char kManifest[] =
    R"({"name": "kit", "version": "1.0.0", "description": "d", "exports": {}})";

// Writes with Python's tarfile: `good` a pax archive of a package whose
// file, folder and symlink names are not ASCII; `bad` a ustar archive with a
// malformed pax header before its file, which libarchive ignores with a
// warning (so the file keeps its plain name, not the header's).
void WriteArchives(const TempDir& tmp, const std::string& good, const std::string& bad) {
  WriteFile(tmp.File("make.py"), absl::StrCat(R"(import io, sys, tarfile
def add(t, name, data=b"", kind=tarfile.REGTYPE, link="", mode=0o644):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = link
    info.size = len(data) if kind in (tarfile.REGTYPE, tarfile.XHDTYPE) else 0
    t.addfile(info, io.BytesIO(data) if info.size else None)
manifest = b')",
                                              kManifest, R"('
with tarfile.open(sys.argv[1], "w:gz", format=tarfile.PAX_FORMAT, encoding="utf-8") as t:
    add(t, "raw-package.json", manifest)
    add(t, "donn\u00e9es", kind=tarfile.DIRTYPE, mode=0o755)
    add(t, "donn\u00e9es/\u00fcbersicht.txt", b"x")
    add(t, "caf\u00e9.md", b"hi", mode=0o755)
    add(t, "lien-\u00e9", kind=tarfile.SYMTYPE, link="caf\u00e9.md")
with tarfile.open(sys.argv[2], "w:gz", format=tarfile.USTAR_FORMAT) as t:
    add(t, "raw-package.json", manifest)
    add(t, "././@PaxHeader", b"99 path=elsewhere.txt\n", kind=tarfile.XHDTYPE)
    add(t, "plain.txt", b"x")
)"));
  const std::string command =
      absl::StrCat("python3 '", tmp.File("make.py"), "' '", good, "' '", bad, "'");
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

TEST(PackageArchiveNamesTest, APaxArchiveWithNamesBeyondAsciiInstallsAsItsFolderWould) {
  TempDir tmp;
  WriteArchives(tmp, tmp.File("kit.tar.gz"), tmp.File("bad.tar.gz"));
  const std::string out = tmp.File("out");
  std::filesystem::create_directories(out);
  absl::Status unpacked = UnpackArchive(tmp.File("kit.tar.gz"), out);
  ASSERT_TRUE(unpacked.ok()) << unpacked;
  auto files = ScanTree(out);
  ASSERT_TRUE(files.ok()) << files.status();
  std::vector<std::string> paths;
  for (const TreeEntry& f : *files) paths.push_back(f.path);
  EXPECT_THAT(paths, ::testing::ElementsAre("caf\xc3\xa9.md",
                                            "donn\xc3\xa9\x65s/\xc3\xbc"
                                            "bersicht.txt",
                                            "lien-\xc3\xa9", "raw-package.json"));
  EXPECT_EQ((*files)[2].link_target, "caf\xc3\xa9.md");

  // The same package as a folder: the same tree, the same hash.
  const std::string folder = tmp.File("folder");
  WriteFile(folder + "/raw-package.json", kManifest);
  WriteFile(folder +
                "/donn\xc3\xa9\x65s/\xc3\xbc"
                "bersicht.txt",
            "x");
  WriteFile(folder + "/caf\xc3\xa9.md", "hi", 0755);
  std::filesystem::create_symlink("caf\xc3\xa9.md", folder + "/lien-\xc3\xa9");
  PackageStore store(tmp.File("data/packages"));
  const PackageContext ctx{store, tmp.File("config.json"), nullptr};
  auto from_folder = Install(ctx, folder, "one");
  ASSERT_TRUE(from_folder.ok()) << from_folder.status();
  auto from_archive = Install(ctx, tmp.File("kit.tar.gz"), "two");
  ASSERT_TRUE(from_archive.ok()) << from_archive.status();
  EXPECT_EQ(from_archive->hash, from_folder->hash);
  auto inspected = Inspect(ctx, tmp.File("kit.tar.gz"));
  ASSERT_TRUE(inspected.ok()) << inspected.status();
  EXPECT_EQ(inspected->hash, from_folder->hash);
}

TEST(PackageArchiveNamesTest, AnyOtherHeaderWarningStillRefusesTheArchive) {
  TempDir tmp;
  WriteArchives(tmp, tmp.File("kit.tar.gz"), tmp.File("bad.tar.gz"));
  const std::string out = tmp.File("out");
  std::filesystem::create_directories(out);
  absl::Status status = UnpackArchive(tmp.File("bad.tar.gz"), out);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("malformed pax extended attribute"));
  EXPECT_FALSE(std::filesystem::exists(out + "/plain.txt"));
}

}  // namespace
}  // namespace raw::packages
