// `raw package` (the real binary, no daemon needed) against packages and
// archives that try to drive the terminal (docs/packages.md): hostile
// manifest fields are refused naming the field; paths, symlink targets and
// what an index recorded before that check are shown sanitized; refused
// archive entries are quoted escaped; `--json` holds only ASCII. And what
// could never be used or is ambiguous is refused at install and inspect:
// a prompt file larger than a session reads, an archive entry twice.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// True when `text` holds an ESC, a BEL, a C1 control or a bidi override,
// isolate or embedding (U+202A-U+202E, U+2066-U+2069) as raw bytes.
bool DrivesTheTerminal(const std::string& text) {
  if (text.find('\x1b') != std::string::npos || text.find('\x07') != std::string::npos) {
    return true;
  }
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    const auto b1 = static_cast<unsigned char>(text[i + 1]);
    if (b0 == 0xc2 && b1 >= 0x80 && b1 <= 0x9f) return true;
    if (i + 2 < text.size() && b0 == 0xe2) {
      const auto b2 = static_cast<unsigned char>(text[i + 2]);
      if (b1 == 0x80 && b2 >= 0xaa && b2 <= 0xae) return true;
      if (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9) return true;
    }
  }
  return false;
}

class PackageTerminalE2eTest : public ::testing::Test {
 protected:
  PackageTerminalE2eTest() : home_("{}") {}

  // `raw package ARGS... --config <the test's config>`.
  CommandResult Package(std::vector<std::string> args) {
    args.insert(args.begin(), "package");
    args.push_back("--config");
    args.push_back(home_.config_path());
    return home_.RunRaw(args);
  }

  std::string Path(const std::string& rel) const { return absl::StrCat(home_.root(), "/", rel); }

  static void Put(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }

  // Writes a .tar.gz at `archive` with Python's tarfile (which writes the
  // names it is given): a valid manifest, then `entries` (name, content),
  // names as Python string literals.
  void Tar(const std::string& archive, const std::vector<std::string>& entries) {
    std::string script = R"(import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz", format=tarfile.GNU_FORMAT,
                  encoding="utf-8", errors="surrogateescape") as t:
    def add(name, data):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    add("raw-package.json", b'{"name": "t", "version": "1", "description": "d", "exports": {}}')
)";
    for (const std::string& entry : entries) absl::StrAppend(&script, "    add(", entry, ")\n");
    Put(Path("make.py"), script);
    CommandResult made = RunCommand({"/usr/bin/python3", Path("make.py"), archive}, home_.env());
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }

  TestDaemon home_;  // never started: its directories, config and `raw`
};

TEST_F(PackageTerminalE2eTest, HostileManifestFieldsAreRefusedNamingTheField) {
  const std::string dir = Path("hostile");
  Put(dir + "/raw-package.json",
      R"({"name": "kit", "version": "1\u001b]0;TITLE\u0007",
          "description": "d\u001b[2J\u202eevil", "license": "MIT\u2066", "exports": {}})");
  for (const char* action : {"inspect", "install"}) {
    CommandResult r = Package({action, dir});
    EXPECT_NE(r.exit_code, 0) << action;
    EXPECT_FALSE(DrivesTheTerminal(r.out + r.err)) << action << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("version: holds U+001B, a control or invisible formatting"));
    EXPECT_THAT(r.err, HasSubstr("description: holds U+001B"));
    EXPECT_THAT(r.err, HasSubstr("license: holds U+2066"));
  }
}

// Paths and symlink targets are a package's own bytes (a path may hold a
// bidi override, a target even an escape sequence): shown sanitized.
TEST_F(PackageTerminalE2eTest, PathsAndSymlinkTargetsAreShownSanitized) {
  const std::string dir = Path("kit");
  Put(dir + "/raw-package.json",
      R"({"name": "kit", "version": "1.0.0", "description": "d", "exports": {}})");
  Put(dir + "/evil\xe2\x80\xaetxt.md", "x");
  ASSERT_EQ(symlink("x\x1b]0;TITLE\x07", (dir + "/link").c_str()), 0);
  CommandResult installed = Package({"install", dir});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  for (const std::string& what : {dir, std::string("kit")}) {
    CommandResult r = Package({"inspect", what});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(DrivesTheTerminal(r.out)) << r.out;
    EXPECT_THAT(r.out, HasSubstr("evil\xe2\x9f\xa8U+202E\xe2\x9f\xa9txt.md"));  // ⟨U+202E⟩
    EXPECT_THAT(r.out,
                HasSubstr(absl::StrCat("link -> x", kReplacement, "]0;TITLE", kReplacement)));

    // The same values for a program, in ASCII.
    CommandResult json = Package({"inspect", what, "--json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    for (unsigned char c : json.out) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << json.out;
    Json parsed = Json::parse(json.out);
    std::vector<std::string> paths, targets;
    for (const Json& f : parsed["files"]) {
      paths.push_back(f["path"]);
      if (f.contains("target")) targets.push_back(f["target"]);
    }
    EXPECT_THAT(paths, ::testing::Contains("evil\xe2\x80\xaetxt.md"));
    EXPECT_THAT(targets, ::testing::ElementsAre("x\x1b]0;TITLE\x07"));
  }
}

// An index and a store entry written before the manifest's fields were
// checked: what `list` and `inspect` show of them cannot drive the terminal
// either.
TEST_F(PackageTerminalE2eTest, WhatAnOlderIndexAndEntryHoldIsShownSanitized) {
  auto write_index = [this](const std::string& hash) {
    Put(Path("config/raw/packages.json"),
        absl::StrCat(R"({"packages": {"old": {"hash": ")", hash,
                     R"(", "name": "old", "version": "1\u001b]0;TITLE\u0007\u202e",
                     "source": "/x"}}})"));
  };
  const std::string hash(64, 'a');
  const std::string store = Path("data/raw/packages/sha256/");
  Put(store + hash + "/raw-package.json",
      R"({"name": "old", "version": "1\u001b]0;TITLE\u0007",
          "description": "d\u001b[2J\u202eevil", "exports": {}})");
  write_index(hash);
  CommandResult list = Package({"list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_FALSE(DrivesTheTerminal(list.out)) << list.out;
  EXPECT_THAT(list.out, HasSubstr(absl::StrCat("old  old 1", kReplacement, "]0;TITLE")));
  EXPECT_THAT(list.out, HasSubstr("version: holds U+001B"));
  // Inspect re-hashes the entry: it is not at its hash, and is refused.
  CommandResult inspect = Package({"inspect", "old"});
  EXPECT_NE(inspect.exit_code, 0);
  EXPECT_FALSE(DrivesTheTerminal(inspect.err)) << inspect.err;
  const std::string now_marker = "(its files now hash to ";
  const size_t at = inspect.err.find(now_marker);
  ASSERT_NE(at, std::string::npos) << inspect.err;
  // At the hash its files have, the entry is intact: its manifest is refused.
  const std::string real = inspect.err.substr(at + now_marker.size(), 64);
  std::filesystem::rename(store + hash, store + real);
  write_index(real);
  inspect = Package({"inspect", "old"});
  EXPECT_NE(inspect.exit_code, 0);
  EXPECT_FALSE(DrivesTheTerminal(inspect.err)) << inspect.err;
  EXPECT_THAT(inspect.err, HasSubstr("description: holds U+001B"));
}

TEST_F(PackageTerminalE2eTest, RefusedArchiveEntriesAreQuotedEscapedOnOneLine) {
  struct Case {
    std::string entry;  // Python: name, data
    std::string shown;
  };
  int n = 0;
  for (const Case& c :
       std::vector<Case>{{R"("bad\udcff\x1b[2J.txt", b"x")", R"("bad\xff\x1b[2J.txt")"},
                         {R"("two\nlines.txt", b"x")", R"("two\nlines.txt")"}}) {
    const std::string archive = Path(absl::StrCat("bad", n++, ".tar.gz"));
    Tar(archive, {c.entry});
    for (const char* action : {"inspect", "install"}) {
      CommandResult r = Package({action, archive});
      EXPECT_NE(r.exit_code, 0) << action;
      EXPECT_THAT(r.err, HasSubstr(c.shown)) << action;
      EXPECT_FALSE(DrivesTheTerminal(r.err)) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
}

TEST_F(PackageTerminalE2eTest, AnArchiveEntryTwiceIsRefusedSayingSo) {
  Tar(Path("twice.tar.gz"), {R"("a.txt", b"one")", R"("a.txt", b"two")"});
  Tar(Path("manifest-twice.tar.gz"),
      {R"("raw-package.json", b'{"name": "u", "version": "2", "description": "d", "exports": {}}')"});
  for (const auto& [archive, entry] : std::vector<std::pair<std::string, std::string>>{
           {"twice.tar.gz", "a.txt"}, {"manifest-twice.tar.gz", "raw-package.json"}}) {
    for (const char* action : {"inspect", "install"}) {
      CommandResult r = Package({action, Path(archive)});
      EXPECT_NE(r.exit_code, 0) << action;
      EXPECT_THAT(r.err,
                  HasSubstr(absl::StrCat("the archive has the entry \"", entry, "\" twice")));
      EXPECT_THAT(r.err, Not(HasSubstr("File exists")));
    }
  }
}

// A session reads at most 1 MiB of a prompt file: a larger one is refused
// when the package is installed or inspected, not first by a session.
TEST_F(PackageTerminalE2eTest, APromptFileTooLargeToUseIsRefusedAtInstallAndInspect) {
  const std::string dir = Path("big");
  Put(dir + "/raw-package.json",
      R"({"name": "big", "version": "1", "description": "d",
          "exports": {"prompts": {"style": {"path": "style.md"}}}})");
  Put(dir + "/style.md", std::string((1 << 20) + 1, 'x'));
  for (const char* action : {"inspect", "install"}) {
    CommandResult r = Package({action, dir});
    EXPECT_NE(r.exit_code, 0) << action;
    EXPECT_THAT(r.err, HasSubstr("exports.prompts.style.path: \"style.md\" holds 1048577 bytes; a "
                                 "prompt file holds at most 1048576 bytes"));
  }
  EXPECT_THAT(Package({"list", "--json"}).out, Not(HasSubstr("big")));
}

}  // namespace
}  // namespace raw::e2e
