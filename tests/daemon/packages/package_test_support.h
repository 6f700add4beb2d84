// Helpers for the package tests: a temporary directory removed with
// packages::RemoveTree (store entries are read-only), file writers, and
// crafted archives (libarchive's writer, so that entries no tar command
// would write — "../x", "/etc/x" — can be tested).
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "daemon/packages/package_tree.h"
#include "gtest/gtest.h"

namespace raw::packages::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-pkg-XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    path_ = pattern;
  }
  ~TempDir() { (void)RemoveTree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// `run` as a user without root's powers: at once when the tests do not run
// as root, else in a child that becomes nobody (permission checks do not
// bind root). Returns what `run` returned, or why the child could not run it.
inline std::string AsNobody(const std::function<std::string()>& run) {
  if (geteuid() != 0) return run();
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "cannot make a pipe";
  pid_t pid = fork();
  if (pid < 0) return "cannot fork";
  if (pid == 0) {
    close(pipe_fds[0]);
    std::string out = "cannot become nobody";
    if (setgroups(0, nullptr) == 0 && setresgid(65534, 65534, 65534) == 0 &&
        setresuid(65534, 65534, 65534) == 0) {
      out = run();
    }
    (void)!write(pipe_fds[1], out.data(), out.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string out;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return "the child that became nobody did not end normally";
  }
  return out;
}

inline void WriteFile(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  chmod(path.c_str(), mode);
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A minimal valid package at `dir` named `name`, with skill "review" whose
// text is `skill_text`.
inline void WriteMinimalPackage(const std::string& dir, const std::string& name = "kit",
                                const std::string& skill_text = "Review carefully.\n") {
  WriteFile(dir + "/raw-package.json",
            R"({"name": ")" + name + R"(", "version": "1.0.0", "description": "test kit",
                "exports": {"skills": {"review": {"path": "skills/review"}}}})");
  WriteFile(dir + "/skills/review/SKILL.md",
            "---\nname: review\ndescription: Review a change\n---\n" + skill_text);
}

struct ArchiveEntry {
  std::string path;
  std::string content;              // regular files
  mode_t mode = 0644;
  unsigned type = AE_IFREG;         // AE_IFREG, AE_IFDIR, AE_IFLNK, AE_IFCHR...
  std::string link{};               // AE_IFLNK target, or a hard link's target
  bool hardlink{false};
};

// Writes a .tar.gz with exactly `entries`.
inline void WriteTarGz(const std::string& file, const std::vector<ArchiveEntry>& entries) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  ASSERT_EQ(archive_write_open_filename(a, file.c_str()), ARCHIVE_OK);
  for (const ArchiveEntry& e : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.path.c_str());
    archive_entry_set_filetype(entry, e.type);
    archive_entry_set_perm(entry, e.mode);
    if (e.hardlink) archive_entry_set_hardlink(entry, e.link.c_str());
    if (e.type == AE_IFLNK) archive_entry_set_symlink(entry, e.link.c_str());
    archive_entry_set_size(entry, e.type == AE_IFREG && !e.hardlink
                                      ? static_cast<la_int64_t>(e.content.size())
                                      : 0);
    archive_write_header(a, entry);
    if (e.type == AE_IFREG && !e.hardlink) archive_write_data(a, e.content.data(), e.content.size());
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
}

}  // namespace raw::packages::testing
