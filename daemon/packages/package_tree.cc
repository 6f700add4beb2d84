#include "daemon/packages/package_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "daemon/packages/sha256.h"

namespace raw::packages {
namespace {

namespace fs = std::filesystem;

absl::Status Errno(const std::string& what) { return absl::ErrnoToStatus(errno, what); }

char KindByte(TreeEntry::Kind kind) {
  switch (kind) {
    case TreeEntry::Kind::kFile:
      return 'f';
    case TreeEntry::Kind::kExecutable:
      return 'x';
    case TreeEntry::Kind::kSymlink:
      return 'l';
  }
  return 'f';
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads the whole regular file at `path` (never following a symlink) in
// chunks, passing each to `sink`; returns the byte count.
template <typename Sink>
absl::StatusOr<int64_t> ReadChunks(const std::string& path, Sink sink) {
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return Errno(absl::StrCat("cannot read ", path));
  char buffer[65536];
  int64_t total = 0;
  for (;;) {
    ssize_t n = read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno(absl::StrCat("cannot read ", path));
    if (n == 0) break;
    total += n;
    RETURN_IF_ERROR(sink(std::string_view(buffer, static_cast<size_t>(n))));
  }
  return total;
}

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno(absl::StrCat("cannot write ", path));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace

std::string QuoteEntryName(absl::string_view name) {
  return absl::StrCat("\"", absl::CHexEscape(name), "\"");
}

absl::Status CheckRelativePath(const std::string& path, const TreeLimits& limits) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("path ", QuoteEntryName(path), " ", why));
  };
  if (path.empty()) return bad("is empty");
  if (static_cast<int64_t>(path.size()) > limits.max_path_bytes) {
    return bad(absl::StrCat("is longer than ", limits.max_path_bytes, " bytes"));
  }
  if (path[0] == '/') return bad("is absolute");
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f) return bad("holds a control character");
  }
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty()) return bad("has an empty component");
    if (part == "." || part == "..") return bad("has a \".\" or \"..\" component");
  }
  return absl::OkStatus();
}

absl::Status CheckLinkTarget(const std::string& path, const std::string& target) {
  if (target.empty() || target[0] == '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("symlink ", QuoteEntryName(path), " points at ", QuoteEntryName(target),
                     ", outside the package (symlinks must be relative and stay inside)"));
  }
  fs::path resolved = (fs::path(path).parent_path() / target).lexically_normal();
  std::string text = resolved.generic_string();
  if (text == ".." || text.rfind("../", 0) == 0 || text == "." || text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("symlink ", QuoteEntryName(path), " points at ", QuoteEntryName(target),
                     ", outside the package (symlinks must be relative and stay inside)"));
  }
  return absl::OkStatus();
}

namespace {

// How many symlinks one resolution may pass through, as the kernel's own
// limit (MAXSYMLINKS); more is a loop or a maze, and is refused.
constexpr int kMaxLinkHops = 40;

using LinkMap = std::map<std::string, std::string, std::less<>>;

absl::Status LeadsOutside(const std::string& path, const std::string& target,
                          absl::string_view how) {
  return absl::InvalidArgumentError(absl::StrCat("symlink ", QuoteEntryName(path), " points at ",
                                                 QuoteEntryName(target), ", ", how,
                                                 " (symlinks must be relative and stay inside)"));
}

// Walks `target` from the directory `at` (components below the package
// root) the way the kernel would, substituting every component that is a
// symlink of the package by its own resolution. Returns the components of
// the place reached; fails when a ".." climbs above the root or more than
// kMaxLinkHops links are passed. A component the package does not hold is
// walked as text: the kernel would stop there, so it leads nowhere else.
absl::StatusOr<std::vector<std::string>> Resolve(const LinkMap& links, std::vector<std::string> at,
                                                 absl::string_view target, int& hops) {
  for (absl::string_view part : absl::StrSplit(target, '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") {
      if (at.empty()) return absl::OutOfRangeError("outside");
      at.pop_back();
      continue;
    }
    at.emplace_back(part);
    auto link = links.find(absl::StrJoin(at, "/"));
    if (link == links.end()) continue;
    if (++hops > kMaxLinkHops) return absl::ResourceExhaustedError("loop");
    at.pop_back();
    ASSIGN_OR_RETURN(at, Resolve(links, std::move(at), link->second, hops));
  }
  return at;
}

}  // namespace

absl::Status CheckLinksStayInside(const std::vector<TreeEntry>& entries) {
  LinkMap links;
  for (const TreeEntry& entry : entries) {
    if (entry.kind == TreeEntry::Kind::kSymlink) links.emplace(entry.path, entry.link_target);
  }
  for (const auto& [path, target] : links) {
    std::vector<std::string> at = absl::StrSplit(path, '/');
    at.pop_back();
    int hops = 0;
    absl::StatusOr<std::vector<std::string>> reached = Resolve(links, std::move(at), target, hops);
    if (absl::IsResourceExhausted(reached.status())) {
      return LeadsOutside(path, target,
                          absl::StrCat("which goes through more than ", kMaxLinkHops,
                                       " symlinks of the package (a loop)"));
    }
    if (!reached.ok()) {
      return LeadsOutside(path, target,
                          "outside the package once the package's own symlinks on the way are "
                          "followed");
    }
    if (reached->empty()) {
      return LeadsOutside(path, target,
                          "the package's own root, once the package's own "
                          "symlinks on the way are followed");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TreeEntry>> ScanTree(const std::string& root, const TreeLimits& limits) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    return absl::NotFoundError(absl::StrCat(root, " is not a directory"));
  }
  std::vector<TreeEntry> entries;
  int64_t total = 0;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, error);
  if (error)
    return absl::PermissionDeniedError(absl::StrCat("cannot list ", root, ": ", error.message()));
  // The entry reached last: where listing failed, when it fails (most often
  // the directory it was about to descend into). A failed step may also end
  // the iteration, so the error is checked once it ends too: a folder that
  // cannot be listed is never taken as empty.
  std::string last;
  auto list_error = [&] {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot list ", root, " (at ", QuoteEntryName(last), "): ", error.message()));
  };
  for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) return list_error();
    const fs::path& full = it->path();
    std::string rel = full.lexically_relative(root).generic_string();
    last = rel;
    RETURN_IF_ERROR(CheckRelativePath(rel, limits));
    struct stat st;
    if (lstat(full.c_str(), &st) != 0) {
      return Errno(absl::StrCat("cannot read ", QuoteEntryName(rel), " in ", root));
    }
    TreeEntry entry;
    entry.path = rel;
    if (S_ISDIR(st.st_mode)) {
      continue;
    } else if (S_ISREG(st.st_mode)) {
      entry.kind = (st.st_mode & 0111) != 0 ? TreeEntry::Kind::kExecutable : TreeEntry::Kind::kFile;
      entry.size = st.st_size;
    } else if (S_ISLNK(st.st_mode)) {
      entry.kind = TreeEntry::Kind::kSymlink;
      entry.link_target = fs::read_symlink(full, error).string();
      if (error) {
        return absl::PermissionDeniedError(absl::StrCat("cannot read symlink ", QuoteEntryName(rel),
                                                        " in ", root, ": ", error.message()));
      }
      RETURN_IF_ERROR(CheckLinkTarget(rel, entry.link_target));
      entry.size = static_cast<int64_t>(entry.link_target.size());
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(QuoteEntryName(rel),
                       " is a device file, FIFO or socket; a package holds only files, "
                       "directories and symlinks"));
    }
    total += entry.size;
    entries.push_back(std::move(entry));
    if (static_cast<int64_t>(entries.size()) > limits.max_files) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the package has more than ", limits.max_files, " files"));
    }
    if (total > limits.max_total_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the package is larger than ", limits.max_total_bytes, " bytes"));
    }
  }
  if (error) return list_error();
  std::sort(entries.begin(), entries.end(),
            [](const TreeEntry& a, const TreeEntry& b) { return a.path < b.path; });
  RETURN_IF_ERROR(CheckLinksStayInside(entries));
  return entries;
}

absl::StatusOr<std::string> HashTree(const std::string& root,
                                     const std::vector<TreeEntry>& entries) {
  std::map<std::string, std::string> none;
  return HashTree(root, entries, {}, none);
}

absl::StatusOr<std::string> HashTree(const std::string& root, const std::vector<TreeEntry>& entries,
                                     const std::set<std::string>& keep,
                                     std::map<std::string, std::string>& kept) {
  Sha256 hash;
  hash.Update("raw-package-tree-v1\n");
  for (const TreeEntry& entry : entries) {
    hash.Update(std::string_view(std::string(1, KindByte(entry.kind))));
    hash.Update(entry.path);
    hash.Update(std::string_view("\0", 1));
    hash.Update(absl::StrCat(entry.size));
    hash.Update(std::string_view("\0", 1));
    if (entry.kind == TreeEntry::Kind::kSymlink) {
      hash.Update(entry.link_target);
      continue;
    }
    std::string full = absl::StrCat(root, "/", entry.path);
    std::string* copy = keep.contains(entry.path) ? &kept[entry.path] : nullptr;
    if (copy != nullptr) copy->clear();
    ASSIGN_OR_RETURN(
        int64_t read, ReadChunks(full, [&](std::string_view bytes) {
          hash.Update(bytes);
          if (copy == nullptr) return absl::OkStatus();
          // A file growing while it is read is not kept past
          // its scanned size (it fails the size check anyway).
          if (static_cast<int64_t>(copy->size() + bytes.size()) > entry.size) {
            return absl::AbortedError(absl::StrCat(full, " changed while it was read"));
          }
          copy->append(bytes);
          return absl::OkStatus();
        }));
    if (read != entry.size) {
      return absl::AbortedError(absl::StrCat(full, " changed while it was read"));
    }
  }
  return hash.HexDigest();
}

absl::StatusOr<std::string> HashDirectory(const std::string& root, const TreeLimits& limits) {
  ASSIGN_OR_RETURN(std::vector<TreeEntry> entries, ScanTree(root, limits));
  return HashTree(root, entries);
}

absl::Status CopyTree(const std::string& from, const std::vector<TreeEntry>& entries,
                      const std::string& to) {
  for (const TreeEntry& entry : entries) {
    fs::path target = fs::path(to) / entry.path;
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    if (error) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create ", target.parent_path().string(), ": ", error.message()));
    }
    if (entry.kind == TreeEntry::Kind::kSymlink) {
      if (symlink(entry.link_target.c_str(), target.c_str()) != 0) {
        return Errno(absl::StrCat("cannot create ", target.string()));
      }
      continue;
    }
    mode_t mode = entry.kind == TreeEntry::Kind::kExecutable ? 0755 : 0644;
    FileDescriptor out(
        open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode));
    if (out.get() < 0) return Errno(absl::StrCat("cannot create ", target.string()));
    if (fchmod(out.get(), mode) != 0) return Errno(absl::StrCat("cannot chmod ", target.string()));
    ASSIGN_OR_RETURN(int64_t copied,
                     ReadChunks(absl::StrCat(from, "/", entry.path), [&](std::string_view bytes) {
                       return WriteAll(out.get(), bytes, target.string());
                     }));
    if (copied != entry.size) {
      return absl::AbortedError(
          absl::StrCat(from, "/", entry.path, " changed while it was copied"));
    }
  }
  return absl::OkStatus();
}

absl::Status MakeReadOnly(const std::string& root) {
  std::error_code error;
  std::vector<fs::path> dirs = {root};
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end;
       it.increment(error)) {
    struct stat st;
    if (lstat(it->path().c_str(), &st) != 0)
      return Errno(absl::StrCat("cannot read ", it->path().string()));
    if (S_ISDIR(st.st_mode)) {
      dirs.push_back(it->path());
    } else if (S_ISREG(st.st_mode)) {
      mode_t mode = (st.st_mode & 0100) != 0 ? 0555 : 0444;
      if (chmod(it->path().c_str(), mode) != 0)
        return Errno(absl::StrCat("cannot chmod ", it->path().string()));
    }
  }
  if (error)
    return absl::PermissionDeniedError(absl::StrCat("cannot list ", root, ": ", error.message()));
  // Deepest first, so a directory is still writable while its children change.
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    if (chmod(it->c_str(), 0555) != 0) return Errno(absl::StrCat("cannot chmod ", it->string()));
  }
  return absl::OkStatus();
}

absl::Status RemoveTree(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return Errno(absl::StrCat("cannot remove ", path));
  }
  std::error_code error;
  if (S_ISDIR(st.st_mode)) {
    chmod(path.c_str(), 0700);
    for (fs::recursive_directory_iterator it(path, error), end; !error && it != end;
         it.increment(error)) {
      struct stat child;
      if (lstat(it->path().c_str(), &child) == 0 && S_ISDIR(child.st_mode)) {
        chmod(it->path().c_str(), 0700);
      }
    }
  }
  fs::remove_all(path, error);
  if (error)
    return absl::PermissionDeniedError(absl::StrCat("cannot remove ", path, ": ", error.message()));
  return absl::OkStatus();
}

std::set<std::string> PathsOf(const std::vector<TreeEntry>& entries) {
  std::set<std::string> paths;
  for (const TreeEntry& e : entries) paths.insert(e.path);
  return paths;
}
}  // namespace raw::packages
