// PackageArchive: unpacking a package shipped as .tar.gz or .tar.zst with
// libarchive, never a shell. Every entry is checked before anything is
// written: absolute paths, "." or ".." components, hard links, device
// files, FIFOs and symlinks whose target leads outside as text are refused,
// and the limits of TreeLimits hold for the files (and symlinks), the
// directories and the unpacked bytes. Once every entry is unpacked the symlinks are checked
// together (CheckLinksStayInside), as one may lead outside through another. Files are written 0644
// or 0755 (executable bits only), never through a symlink. Names are the archive's own bytes,
// whatever the process's locale (a pax archive's UTF-8 names included); of libarchive's warnings
// about a header only a name it could not convert to the locale is accepted, any other refuses the
// archive. Thread-safe (no shared state).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "daemon/packages/package_tree.h"

namespace raw::packages {

// True for names ending in .tar.gz, .tgz or .tar.zst.
bool IsArchiveName(absl::string_view name);

// Unpacks `archive` into the existing empty directory `dest`.
absl::Status UnpackArchive(const std::string& archive, const std::string& dest,
                           const TreeLimits& limits = {});

// The package root inside an unpacked archive: `dir` itself when it holds
// raw-package.json, else its only subdirectory when that holds it (the
// usual "name-1.0/..." layout).
std::string PackageRootIn(const std::string& dir);

}  // namespace raw::packages
