#include "daemon/packages/package_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"

namespace raw::packages {
namespace {

namespace fs = std::filesystem;

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};

// Creates the directories of `rel` below `dest` one by one, refusing any
// component that exists as something other than a directory (a symlink
// planted by an earlier entry is never followed). `dirs` counts the
// directories created so far, listed in the archive or implied by a path;
// past `limits.max_dirs` the archive is refused.
absl::Status MakeParents(const std::string& dest, const std::string& rel, bool include_last,
                         int64_t& dirs, const TreeLimits& limits) {
  std::vector<absl::string_view> parts = absl::StrSplit(rel, '/');
  if (!include_last) parts.pop_back();
  std::string path = dest;
  for (absl::string_view part : parts) {
    absl::StrAppend(&path, "/", part);
    struct stat st;
    if (lstat(path.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "archive entry ", QuoteEntryName(rel), " goes through ",
            QuoteEntryName(path.substr(dest.size() + 1)), ", which is not a directory"));
      }
      continue;
    }
    if (++dirs > limits.max_dirs) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the archive has more than ", limits.max_dirs, " directories"));
    }
    if (mkdir(path.c_str(), 0755) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot create directory ",
                                                     QuoteEntryName(path.substr(dest.size() + 1)),
                                                     " of archive entry ", QuoteEntryName(rel)));
    }
  }
  return absl::OkStatus();
}

// One of an entry's names (its path, its symlink's target) as the archive
// holds it: the UTF-8 form when libarchive has one, else the header's bytes
// as they are. A pax header's names are UTF-8, and libarchive keeps their
// bytes when it cannot convert them to the locale's character set (which,
// in a program that never sets a locale, is ASCII), so a name is never
// re-encoded by the locale a process happens to run in. "" when absent.
std::string EntryName(const char* utf8, const char* raw) {
  const char* name = utf8 != nullptr ? utf8 : raw;
  return name == nullptr ? "" : name;
}

std::string RawPath(archive_entry* entry) {
  return EntryName(archive_entry_pathname_utf8(entry), archive_entry_pathname(entry));
}

std::string EntryPath(archive_entry* entry) {
  std::string path = RawPath(entry);
  while (absl::StartsWith(path, "./")) path.erase(0, 2);
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

// True when the warning archive_read_next_header gave only says that a name
// of the entry (its path, link target, owner or group) could not be
// converted to the locale's character set: the entry is whole, and its names
// hold the archive's own bytes (EntryName). Every other warning (a damaged
// header, a malformed pax attribute, which may have dropped the entry's real
// name, a sparse map not understood) means the entry may not be what the
// archive holds, and is an error.
bool OnlyANameWasNotConverted(archive* a) {
  const char* message = archive_error_string(a);
  // libarchive reports it with ARCHIVE_ERRNO_FILE_FORMAT, which it does not
  // export: EILSEQ where there is no EFTYPE (Linux).
  return archive_errno(a) == EILSEQ && message != nullptr &&
         absl::StrContains(message, "can't be converted from");
}

absl::Status WriteEntryData(archive* a, const std::string& target, mode_t mode, int64_t& total,
                            const TreeLimits& limits, const std::string& rel) {
  int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat("cannot create archive entry ", QuoteEntryName(rel)));
  }
  absl::Status status;
  char buffer[65536];
  for (;;) {
    la_ssize_t n = archive_read_data(a, buffer, sizeof buffer);
    if (n < 0) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "cannot read archive entry ", QuoteEntryName(rel), ": ", archive_error_string(a)));
      break;
    }
    if (n == 0) break;
    total += n;
    if (total > limits.max_total_bytes) {
      status = absl::ResourceExhaustedError(
          absl::StrCat("the package is larger than ", limits.max_total_bytes, " bytes unpacked"));
      break;
    }
    const char* p = buffer;
    size_t left = static_cast<size_t>(n);
    while (left > 0 && status.ok()) {
      ssize_t w = write(fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        status = absl::ErrnoToStatus(
            errno, absl::StrCat("cannot write archive entry ", QuoteEntryName(rel)));
      }
      if (w > 0) {
        p += w;
        left -= static_cast<size_t>(w);
      }
    }
    if (!status.ok()) break;
  }
  if (status.ok() && fchmod(fd, mode) != 0) {
    status = absl::ErrnoToStatus(errno,
                                 absl::StrCat("cannot chmod archive entry ", QuoteEntryName(rel)));
  }
  close(fd);
  return status;
}

}  // namespace

bool IsArchiveName(absl::string_view name) {
  return absl::EndsWith(name, ".tar.gz") || absl::EndsWith(name, ".tgz") ||
         absl::EndsWith(name, ".tar.zst");
}

absl::Status UnpackArchive(const std::string& archive_path, const std::string& dest,
                           const TreeLimits& limits) {
  std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
  archive_read_support_format_tar(a.get());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  if (archive_read_open_filename(a.get(), archive_path.c_str(), 65536) != ARCHIVE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open archive ", archive_path, ": ", archive_error_string(a.get())));
  }
  // Files and symlinks count toward max_files, as a folder's do
  // (ScanTree); directories have a bound of their own (MakeParents).
  int64_t files = 0;
  int64_t dirs = 0;
  int64_t total = 0;
  // Every header read, whatever it is: a directory listed again counts
  // toward neither bound above, and millions of such headers fit in a small
  // archive that would take minutes to read.
  int64_t entries = 0;
  const int64_t max_entries = limits.max_files + limits.max_dirs;
  // Every entry's path so far, and whether it was a directory: a path
  // twice would leave the package to whichever entry came last (a
  // directory listed twice means one directory, and is no ambiguity).
  std::map<std::string, bool> seen;
  // The archive's symlinks, checked together once all are known: where one
  // leads can depend on another that comes later.
  std::vector<TreeEntry> links;
  for (;;) {
    archive_entry* entry = nullptr;
    int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && !(r == ARCHIVE_WARN && OnlyANameWasNotConverted(a.get()))) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read archive ", archive_path, ": ", archive_error_string(a.get())));
    }
    if (++entries > max_entries) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the archive has more than ", max_entries, " entries (", limits.max_files,
                       " files and ", limits.max_dirs, " directories at most)"));
    }
    if (const std::string raw_name = RawPath(entry); absl::StartsWith(raw_name, "/")) {
      return absl::InvalidArgumentError(
          absl::StrCat("archive entry ", QuoteEntryName(raw_name), " has an absolute path"));
    }
    std::string rel = EntryPath(entry);
    if (rel.empty()) continue;  // "./" itself
    absl::Status path_ok = CheckRelativePath(rel, limits);
    if (!path_ok.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("archive entry: ", path_ok.message()));
    }
    if (archive_entry_hardlink(entry) != nullptr || archive_entry_hardlink_utf8(entry) != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("archive entry ", QuoteEntryName(rel),
                       " is a hard link; a package holds only files, directories and symlinks"));
    }
    const bool is_dir = archive_entry_filetype(entry) == AE_IFDIR;
    if (auto [it, added] = seen.emplace(rel, is_dir); !added) {
      if (!is_dir || !it->second) {
        return absl::InvalidArgumentError(
            absl::StrCat("the archive has the entry ", QuoteEntryName(rel), " twice"));
      }
    }
    if (!is_dir && ++files > limits.max_files) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the archive has more than ", limits.max_files, " files"));
    }
    std::string target = absl::StrCat(dest, "/", rel);
    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR:
        RETURN_IF_ERROR(MakeParents(dest, rel, /*include_last=*/true, dirs, limits));
        break;
      case AE_IFREG: {
        RETURN_IF_ERROR(MakeParents(dest, rel, /*include_last=*/false, dirs, limits));
        // The size a header declares is checked before any byte is written.
        if (archive_entry_size_is_set(entry) != 0 &&
            archive_entry_size(entry) > limits.max_total_bytes - total) {
          return absl::ResourceExhaustedError(absl::StrCat(
              "the package is larger than ", limits.max_total_bytes, " bytes unpacked (entry ",
              QuoteEntryName(rel), " alone holds ", archive_entry_size(entry), ")"));
        }
        mode_t mode = (archive_entry_perm(entry) & 0111) != 0 ? 0755 : 0644;
        RETURN_IF_ERROR(WriteEntryData(a.get(), target, mode, total, limits, rel));
        break;
      }
      case AE_IFLNK: {
        std::string to = EntryName(archive_entry_symlink_utf8(entry), archive_entry_symlink(entry));
        RETURN_IF_ERROR(CheckLinkTarget(rel, to));
        RETURN_IF_ERROR(MakeParents(dest, rel, /*include_last=*/false, dirs, limits));
        if (symlink(to.c_str(), target.c_str()) != 0) {
          return absl::ErrnoToStatus(
              errno, absl::StrCat("cannot create archive entry ", QuoteEntryName(rel)));
        }
        TreeEntry link_entry;
        link_entry.path = rel;
        link_entry.kind = TreeEntry::Kind::kSymlink;
        link_entry.link_target = to;
        links.push_back(std::move(link_entry));
        break;
      }
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("archive entry ", QuoteEntryName(rel),
                         " is a device file, FIFO or socket; a package holds only files, "
                         "directories and symlinks"));
    }
  }
  return CheckLinksStayInside(links);
}

std::string PackageRootIn(const std::string& dir) {
  std::error_code error;
  if (fs::exists(fs::path(dir) / kManifestFile, error)) return dir;
  std::vector<fs::path> children;
  for (const auto& child : fs::directory_iterator(dir, error)) children.push_back(child.path());
  if (children.size() == 1 && fs::is_directory(fs::symlink_status(children[0], error)) &&
      fs::exists(children[0] / kManifestFile, error)) {
    return children[0].string();
  }
  return dir;
}

}  // namespace raw::packages
