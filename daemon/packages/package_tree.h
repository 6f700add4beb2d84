// PackageTree: the normalized file tree of a package and its hash.
//
// Normalization keeps only what a package means: each file's relative path,
// its bytes and whether it is executable; symlinks keep their (relative,
// inside-the-package) target. Directories are implied by the paths (empty
// ones are dropped); modes other than "executable or not", owners, groups
// and times are not part of a package.
//
// Canonical encoding hashed with SHA-256 (docs/packages.md repeats it):
//   "raw-package-tree-v1\n"
//   then for every entry, sorted by path (bytewise):
//     kind   one byte: 'f' file, 'x' executable file, 'l' symlink
//     path   the relative path, '/'-separated, UTF-8, then one 0 byte
//     length the content's length in decimal ASCII, then one 0 byte
//     content the file's bytes, or the symlink's target
// The hash is the 64 lowercase hex digits of the digest.
//
// Scanning refuses what a package may not hold: symlinks that are absolute
// or lead outside the package (following the package's own symlinks on the
// way), device files, FIFOs and sockets, paths with control characters, and
// more files or bytes than TreeLimits allow. Pure apart from reading the
// tree; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace raw::packages {

struct TreeLimits {
  // Files and symlinks (directories are implied by the paths).
  int64_t max_files = 10000;
  int64_t max_total_bytes = int64_t{256} << 20;
  int64_t max_path_bytes = 1024;
  // Directories an archive may unpack (listed or implied by a path), so
  // that empty ones, which a package drops, cannot fill a disk's inodes.
  int64_t max_dirs = 10000;
};

struct TreeEntry {
  enum class Kind { kFile, kExecutable, kSymlink };
  std::string path;  // relative, '/'-separated
  Kind kind = Kind::kFile;
  int64_t size = 0;         // of the file, or of the symlink's target text
  std::string link_target;  // kSymlink only

  bool operator==(const TreeEntry&) const = default;
};

// The manifest every package holds at its root.
inline constexpr char kManifestFile[] = "raw-package.json";

// `name` (an entry's path or a symlink's target, as a package or an archive
// holds it) in double quotes for an error message, escaped C-style
// (absl::CHexEscape): control characters, quotes, backslashes and every
// byte outside ASCII appear as escapes ("bad\x1b[2J", "two\nlines",
// "\xe2\x80\xae"), so the message can neither act on a terminal nor
// break its line, and shows exactly which bytes the name holds.
std::string QuoteEntryName(absl::string_view name);

// Checks one relative path as found in a package or an archive: not empty,
// not absolute, no "." or ".." component, no empty component, no control
// characters. Returns what is wrong, or OK.
absl::Status CheckRelativePath(const std::string& path, const TreeLimits& limits);

// Checks a symlink at `path` pointing at `target` on its own: relative, and
// resolving as text to a path inside the package. Text alone cannot tell
// where a target leads when it passes through another symlink of the
// package; CheckLinksStayInside decides that.
absl::Status CheckLinkTarget(const std::string& path, const std::string& target);

// Checks every symlink of `entries` (a whole package) against the tree as it
// is: each target is walked component by component from the link's
// directory, every component that is itself a symlink of the package is
// replaced by where it leads (at most 40 links per target), and the walk
// must never climb above the package's root nor end at the root itself.
// E.g. with `a/b/c -> ../../s` (which leads to `s`), `y -> a/b/c/../..` is
// refused although its text stays inside: on disk it climbs above the root.
absl::Status CheckLinksStayInside(const std::vector<TreeEntry>& entries);

// The entries under `root`, sorted by path. `root` itself may be a symlink
// to a directory; nothing below it is followed.
absl::StatusOr<std::vector<TreeEntry>> ScanTree(const std::string& root,
                                                const TreeLimits& limits = {});

// The SHA-256 of the canonical encoding of `entries` read from `root`. A
// file whose size differs from its entry is an error (it changed while
// being read).
absl::StatusOr<std::string> HashTree(const std::string& root,
                                     const std::vector<TreeEntry>& entries);

// The same, keeping in `kept` (by path) the bytes of each regular file of
// `entries` whose path `keep` names, from the very read that is hashed: a
// caller that checks the hash and then uses those bytes uses what it
// checked, whatever happens to the files afterwards. Symlinks are not kept.
absl::StatusOr<std::string> HashTree(const std::string& root, const std::vector<TreeEntry>& entries,
                                     const std::set<std::string>& keep,
                                     std::map<std::string, std::string>& kept);

// ScanTree + HashTree.
absl::StatusOr<std::string> HashDirectory(const std::string& root, const TreeLimits& limits = {});

// Copies `entries` from `from` into the existing empty directory `to`:
// files 0644 or 0755, directories 0755, symlinks as symlinks.
// The paths of `entries`, as ReadManifest checks them.
std::set<std::string> PathsOf(const std::vector<TreeEntry>& entries);

absl::Status CopyTree(const std::string& from, const std::vector<TreeEntry>& entries,
                      const std::string& to);

// Makes every file and directory under `root` (and `root`) read-only for
// everyone: files 0444 or 0555, directories 0555.
absl::Status MakeReadOnly(const std::string& root);

// Removes `path` and everything below it, first making read-only
// directories writable again. A missing path is OK.
absl::Status RemoveTree(const std::string& path);

}  // namespace raw::packages
