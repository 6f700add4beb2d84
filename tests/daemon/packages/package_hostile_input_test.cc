// What a package or an archive controls that ends up in text a person
// reads (the manifest's displayed fields, entry names quoted in errors) can
// never act on a terminal; exports that could never be used (a prompt file
// too large to read) and ambiguous archives (one entry twice) are refused
// at install and inspect with errors that say so.
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "daemon/packages/manifest.h"
#include "daemon/packages/package_archive.h"
#include "daemon/packages/package_ops.h"
#include "daemon/packages/package_tree.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/packages/package_test_support.h"

namespace raw::packages {
namespace {

using testing::ArchiveEntry;
using testing::AsNobody;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteFile;
using testing::WriteMinimalPackage;
using testing::WriteTarGz;

constexpr char kValidManifest[] =
    R"({"name": "kit", "version": "1.0.0", "description": "d", "exports": {}})";

// The manifest of kValidManifest with `field` set to `value`.
std::string ManifestWith(const std::string& field, const std::string& value) {
  Json json = Json::parse(kValidManifest);
  json[field] = value;
  return json.dump();
}

// True when `text` holds anything but printable ASCII (escaped text is
// printable ASCII only: no C0, newline included, no DEL, no UTF-8).
bool HoldsRawControlOrHighBytes(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f) return true;
  }
  return false;
}

TEST(ManifestTextTest, ControlAndInvisibleFormattingCharactersAreRefusedNamingTheField) {
  const std::vector<std::string> hostile = {
      "\x1b]0;TITLE\x07",  // OSC: retitles the window
      "d\x1b[2J",          // CSI: clears the screen
      "tab\there",         // C0 other than ESC
      "line\nbreak",       // a newline in a one-line field
      "del\x7f",           // DEL
      "c1\xc2\x9b"
      "2J",                   // U+009B, the 8-bit CSI
      "rtl\xe2\x80\xae",      // U+202E RIGHT-TO-LEFT OVERRIDE
      "emb\xe2\x80\xaa",      // U+202A LEFT-TO-RIGHT EMBEDDING
      "iso\xe2\x81\xa6",      // U+2066 LEFT-TO-RIGHT ISOLATE
      "pdi\xe2\x81\xa9",      // U+2069 POP DIRECTIONAL ISOLATE
      "rlm\xe2\x80\x8f",      // U+200F RIGHT-TO-LEFT MARK
      "zw\xe2\x80\x8b",       // U+200B ZERO WIDTH SPACE
      "bom\xef\xbb\xbf",      // U+FEFF
      "ls\xe2\x80\xa8",       // U+2028 LINE SEPARATOR
      "tag\xf3\xa0\x80\x81",  // U+E0001 LANGUAGE TAG
  };
  for (const std::string field : {"version", "description", "license", "homepage"}) {
    for (const std::string& bad : hostile) {
      const std::string value = field == "homepage" ? "https://example.com/" + bad : bad;
      std::vector<config::ConfigProblem> problems;
      absl::StatusOr<Manifest> parsed = ParseManifest(ManifestWith(field, value), {}, &problems);
      ASSERT_FALSE(parsed.ok()) << field << ": " << Json(bad).dump();
      ASSERT_EQ(problems.size(), 1u) << parsed.status();
      EXPECT_EQ(problems[0].path, field);
      EXPECT_THAT(problems[0].message, HasSubstr("control or invisible formatting character"))
          << field;
      // The error itself shows the character by its code point, never raw.
      EXPECT_FALSE(HoldsRawControlOrHighBytes(problems[0].ToString()))
          << Json(problems[0].ToString()).dump();
    }
  }
  // The name is a package name (a narrower rule already).
  EXPECT_FALSE(ParseManifest(ManifestWith("name", "kit\x1b[2J"), {}).ok());
}

TEST(ManifestTextTest, OrdinaryUnicodeTextIsAccepted) {
  absl::StatusOr<Manifest> parsed = ParseManifest(
      ManifestWith("description",
                   "Prüft Änderungen — 日本語, עברית and ⚠️ emoji 👩🏽‍💻"),
      {});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->description, HasSubstr("עברית"));
  EXPECT_TRUE(ParseManifest(ManifestWith("version", "1.0.0-β.2+build"), {}).ok());
}

// An entry name is quoted escaped, so the refusal of a hostile name cannot
// itself drive the terminal or break the message's line.
TEST(PackageArchiveTextTest, RefusedEntryNamesAreQuotedEscaped) {
  TempDir tmp;
  struct Case {
    std::vector<ArchiveEntry> entries;
    std::string shown;  // how the name appears in the error
  };
  const std::vector<Case> cases = {
      {{{"bad\xff\x1b[2J.txt", "x"}}, R"("bad\xff\x1b[2J.txt")"},
      {{{"two\nlines.txt", "x"}}, R"("two\nlines.txt")"},
      {{{"../\x1b]0;T\x07", "x"}}, R"("../\x1b]0;T\x07")"},
      // Names a path may hold (no C0), quoted by the later checks.
      {{{"dev\xe2\x80\xae", "", 0644, AE_IFCHR}}, R"("dev\xe2\x80\xae")"},
      {{{"l", "", 0777, AE_IFLNK, "../\x1b]0;T\x07"}}, R"("../\x1b]0;T\x07")"},
      {{{"hard\xe2\x80\xae", "", 0644, AE_IFREG, "raw-package.json", true}},
       R"("hard\xe2\x80\xae")"}};
  int n = 0;
  for (const Case& c : cases) {
    std::vector<ArchiveEntry> entries = {{"raw-package.json", kValidManifest}};
    entries.insert(entries.end(), c.entries.begin(), c.entries.end());
    const std::string archive = tmp.File(absl::StrCat("a", n, ".tar.gz"));
    WriteTarGz(archive, entries);
    const std::string dest = tmp.File(absl::StrCat("out", n++));
    std::filesystem::create_directories(dest);
    absl::Status status = UnpackArchive(archive, dest, TreeLimits{});
    ASSERT_FALSE(status.ok()) << c.shown;
    const std::string message(status.message());
    EXPECT_THAT(message, HasSubstr(c.shown));
    EXPECT_FALSE(HoldsRawControlOrHighBytes(message)) << Json(message).dump();
  }
}

TEST(PackageArchiveTextTest, AFolderEntryNameIsQuotedEscaped) {
  TempDir tmp;
  WriteMinimalPackage(tmp.File("src"));
  WriteFile(tmp.File("src/bad\x1b[2J\n.txt"), "x");
  absl::Status status = ScanTree(tmp.File("src"), TreeLimits{}).status();
  ASSERT_FALSE(status.ok());
  const std::string message(status.message());
  EXPECT_THAT(message, HasSubstr(R"("bad\x1b[2J\n.txt" holds a control character)"));
  EXPECT_FALSE(HoldsRawControlOrHighBytes(message)) << Json(message).dump();
}

// An entry the file system refuses to create (a name longer than a
// directory entry may be) is named escaped too, whether a file, a folder
// listed or implied, or a symlink.
TEST(PackageArchiveTextTest, EntriesThatCannotBeCreatedAreQuotedEscaped) {
  TempDir tmp;
  const std::string longer = "\xe2\x80\xae" + std::string(300, 'z');  // U+202E, then 300 bytes
  const std::string shown = absl::StrCat(R"(\xe2\x80\xae)", std::string(300, 'z'));
  struct Case {
    ArchiveEntry entry;
    std::string says;
  };
  int n = 0;
  for (const Case& c : std::vector<Case>{
           {{"f" + longer, "x"}, absl::StrCat("cannot create archive entry \"f", shown, "\"")},
           {{"d" + longer + "/", "", 0755, AE_IFDIR},
            absl::StrCat("cannot create directory \"d", shown, "\"")},
           {{"i" + longer + "/x", "x"}, absl::StrCat("cannot create directory \"i", shown, "\"")},
           {{"l" + longer, "", 0777, AE_IFLNK, "raw-package.json"},
            absl::StrCat("cannot create archive entry \"l", shown, "\"")}}) {
    const std::string archive = tmp.File(absl::StrCat("long", n, ".tar.gz"));
    WriteTarGz(archive, {{"raw-package.json", kValidManifest}, c.entry});
    const std::string dest = tmp.File(absl::StrCat("out", n++));
    std::filesystem::create_directories(dest);
    absl::Status status = UnpackArchive(archive, dest, TreeLimits{});
    ASSERT_FALSE(status.ok()) << c.says;
    const std::string message(status.message());
    EXPECT_THAT(message, HasSubstr(c.says));
    EXPECT_FALSE(HoldsRawControlOrHighBytes(message)) << Json(message).dump();
  }
}

// What ScanTree says of a folder it cannot list or read: as this user, or
// as nobody when this is root (whom permissions do not stop). Returns the
// two messages, or why they could not be had.
std::vector<std::string> UnreadableFolderMessagesAsThisUser() {
  std::string pattern = (std::filesystem::temp_directory_path() / "raw-pkg-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return {"cannot make a folder"};
  const std::string root = pattern;
  std::vector<std::string> messages;
  // A folder that cannot be listed, and one whose entries cannot be read
  // (listable, not searchable).
  for (const std::string& name :
       {std::string("closed\xe2\x80\xae"), std::string("blind\xc3\xa9")}) {
    const std::string pkg = absl::StrCat(root, "/", messages.size());
    WriteMinimalPackage(pkg);
    WriteFile(absl::StrCat(pkg, "/", name, "/f\xc3\xa9.txt"), "x");
    chmod(absl::StrCat(pkg, "/", name).c_str(), messages.empty() ? 0000 : 0600);
    messages.push_back(std::string(ScanTree(pkg, TreeLimits{}).status().message()));
  }
  (void)RemoveTree(root);
  return messages;
}

TEST(PackageArchiveTextTest, AFolderThatCannotBeReadIsNamedEscaped) {
  const std::string out = AsNobody(
      [] { return absl::StrJoin(UnreadableFolderMessagesAsThisUser(), std::string(1, '\0')); });
  std::vector<std::string> messages = absl::StrSplit(out, '\0');
  ASSERT_EQ(messages.size(), 2u) << messages[0];
  EXPECT_THAT(messages[0], HasSubstr(R"((at "closed\xe2\x80\xae"))"));
  EXPECT_THAT(messages[1], HasSubstr(R"(cannot read "blind\xc3\xa9/f\xc3\xa9.txt")"));
  for (const std::string& message : messages) {
    EXPECT_FALSE(HoldsRawControlOrHighBytes(message)) << Json(message).dump();
  }
}

TEST(PackageArchiveTextTest, AnEntryTwiceIsRefusedSayingSo) {
  TempDir tmp;
  struct Case {
    std::vector<ArchiveEntry> entries;
    std::string twice;
  };
  const ArchiveEntry manifest = {"raw-package.json", kValidManifest};
  int n = 0;
  for (const Case& c : std::vector<Case>{
           {{manifest, {"a.txt", "one"}, {"a.txt", "two"}}, "a.txt"},
           {{manifest, {"./raw-package.json", kValidManifest}}, "raw-package.json"},
           {{manifest, {"l", "", 0777, AE_IFLNK, "raw-package.json"}, {"l", "x"}}, "l"},
           {{manifest, {"d", "x"}, {"d/", "", 0755, AE_IFDIR}}, "d"}}) {
    const std::string archive = tmp.File(absl::StrCat("dup", n, ".tar.gz"));
    WriteTarGz(archive, c.entries);
    const std::string dest = tmp.File(absl::StrCat("out", n++));
    std::filesystem::create_directories(dest);
    absl::Status status = UnpackArchive(archive, dest, TreeLimits{});
    ASSERT_FALSE(status.ok()) << c.twice;
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_EQ(status.message(), absl::StrCat("the archive has the entry \"", c.twice, "\" twice"));
  }
  // A directory listed twice means one directory: not refused.
  const std::string archive = tmp.File("dirs.tar.gz");
  WriteTarGz(archive, {{"d/", "", 0755, AE_IFDIR},
                       {"raw-package.json", kValidManifest},
                       {"d/", "", 0755, AE_IFDIR},
                       {"d/x", "x"}});
  std::filesystem::create_directories(tmp.File("dirs"));
  EXPECT_TRUE(UnpackArchive(archive, tmp.File("dirs"), TreeLimits{}).ok());
}

// A directory listed again counts toward neither the files' nor the
// directories' bound; every header counts toward the entries'.
TEST(PackageArchiveTextTest, AnArchiveOfMoreEntriesThanFilesAndDirectoriesIsRefused) {
  TempDir tmp;
  TreeLimits limits;
  limits.max_files = 10;
  limits.max_dirs = 10;
  std::vector<ArchiveEntry> entries = {{"raw-package.json", kValidManifest}};
  for (int i = 0; i < 30; ++i) entries.push_back({"d/", "", 0755, AE_IFDIR});
  const std::string archive = tmp.File("dirs.tar.gz");
  WriteTarGz(archive, entries);
  std::filesystem::create_directories(tmp.File("out"));
  absl::Status status = UnpackArchive(archive, tmp.File("out"), limits);
  EXPECT_TRUE(absl::IsResourceExhausted(status)) << status;
  EXPECT_EQ(status.message(),
            "the archive has more than 20 entries (10 files and 10 directories at most)");
  // Up to the bound, the same listing unpacks.
  entries.resize(20);
  WriteTarGz(archive, entries);
  std::filesystem::create_directories(tmp.File("out2"));
  EXPECT_TRUE(UnpackArchive(archive, tmp.File("out2"), limits).ok());
}

class PackagePromptLimitTest : public ::testing::Test {
 protected:
  PackagePromptLimitTest() : store_(tmp_.File("data/raw/packages")) {}
  PackageContext Ctx() { return PackageContext{store_, tmp_.File("config/config.json"), nullptr}; }
  void WritePackage(int64_t prompt_bytes) {
    WriteFile(tmp_.File("src/raw-package.json"),
              R"({"name": "kit", "version": "1", "description": "d",
                  "exports": {"prompts": {"big": {"path": "prompts/big.md"}}}})");
    WriteFile(tmp_.File("src/prompts/big.md"), std::string(prompt_bytes, 'x'));
  }
  TempDir tmp_;
  PackageStore store_;
};

// A prompt file larger than a session reads is refused when the package is
// installed or inspected, not first when a session is created.
TEST_F(PackagePromptLimitTest, APromptFileTooLargeToUseIsRefusedAtInstallAndInspect) {
  WritePackage(kMaxPromptFileBytes + 1);
  for (bool install : {false, true}) {
    absl::Status status = install ? Install(Ctx(), tmp_.File("src"), std::nullopt).status()
                                  : Inspect(Ctx(), tmp_.File("src")).status();
    ASSERT_FALSE(status.ok()) << (install ? "install" : "inspect");
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_THAT(status.message(),
                HasSubstr(absl::StrCat("exports.prompts.big.path: \"prompts/big.md\" holds ",
                                       kMaxPromptFileBytes + 1,
                                       " bytes; a prompt file holds at "
                                       "most ",
                                       kMaxPromptFileBytes, " bytes")));
  }
  auto hashes = store_.Hashes();
  ASSERT_TRUE(hashes.ok());
  EXPECT_TRUE(hashes->empty());

  // At the limit it is used.
  WritePackage(kMaxPromptFileBytes);
  ASSERT_TRUE(Inspect(Ctx(), tmp_.File("src")).ok());
  auto installed = Install(Ctx(), tmp_.File("src"), std::nullopt);
  ASSERT_TRUE(installed.ok()) << installed.status();
  auto stored = store_.ReadVerified(installed->hash);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_TRUE(stored->prompt_texts.at("prompts/big.md").ok());
  EXPECT_EQ(stored->prompt_texts.at("prompts/big.md")->size(),
            static_cast<size_t>(kMaxPromptFileBytes));
}

}  // namespace
}  // namespace raw::packages
