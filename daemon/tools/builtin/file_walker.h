// WalkTree: the depth-first directory walk under builtin/glob and
// builtin/grep.
//
// Entries are visited in pre-order, each directory's entries sorted by name
// (bytewise), so results are the same on every run. The walk skips `.git`
// (directory or file) and, when asked, whatever the .gitignore files in
// force exclude (gitignore.h); it never follows a symlink to a directory, so
// a link cycle cannot trap it. Unreadable directories are counted and
// skipped. It checks the cancel token between entries and stops after
// `max_entries` visits, so a walk started at "/" still ends.
//
// The walk starts from a directory the caller opened without following any
// symlink (OpenDirectoryToWalk, checked_open.h) and reaches everything below
// relative to descriptors: each subdirectory is opened with openat(2) and
// O_NOFOLLOW | O_DIRECTORY from its parent's descriptor, so a directory
// swapped for a link after it was listed is refused (counted as unreadable),
// never followed, and no path is looked up again from its start. A
// directory's descriptor stays open while the walk is below it (one per
// level); to keep them bounded, a directory kMaxWalkDepth levels below the
// root is not entered and counts as unreadable.
//
// Stateless function; the walk runs on the calling thread.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/cancel_token.h"
#include "daemon/tools/builtin/checked_open.h"

namespace raw::tools::builtin {

inline constexpr int kMaxWalkDepth = 128;

struct WalkEntry {
  enum class Type { kFile, kDirectory, kSymlink, kOther };
  std::string path;  // absolute: the walk's root followed by `rel`
  std::string rel;   // relative to the root, '/'-separated
  Type type = Type::kOther;
  struct stat st = {};  // lstat(2) of the entry
  // The directory holding the entry, open while the visitor runs: reach the
  // entry as (dir_fd, name()) with the *at calls, not by `path`.
  int dir_fd = -1;

  // The entry's name in its directory (the last component of `path`).
  const char* name() const { return path.c_str() + path.rfind('/') + 1; }
};

enum class WalkStep {
  kContinue,
  kSkipDirectory,  // do not enter this directory (ignored for other entries)
  kStop,
};

struct WalkOptions {
  bool respect_gitignore = true;
  // Depth of the deepest entries visited: 1 = the root's own entries;
  // 0 = no limit.
  int max_depth = 0;
  int64_t max_entries = 200000;
  // Entries (by absolute path) the walk must neither visit nor enter, such
  // as what the agent's rules withhold (ToolContext::withheld); null = none.
  std::function<bool(const std::string& path)> withheld = nullptr;
};

struct WalkSummary {
  int64_t visited = 0;
  int64_t unreadable_directories = 0;
  int64_t withheld = 0;  // entries options.withheld kept out
  bool hit_entry_limit = false;
  bool stopped = false;  // by the visitor
  bool cancelled = false;
};

// "[N entries withheld by the agent's rules]\n" when the walk withheld any,
// else empty: the note a tool appends to its output so the model knows.
std::string WithheldNote(const WalkSummary& summary);

// Walks the directory open at `root_dir` (OpenDirectoryToWalk), whose path
// is `root` (absolute, normalized, free of symlinks: the path it was opened
// at; entries' paths start with it). The root itself is not visited. The
// visitor's verdict on a directory decides whether the walk enters it. An
// invalid `root_dir` stands for a root that exists but could not be opened
// (no permission, say): it counts as an unreadable directory.
WalkSummary WalkTree(FileHandle root_dir, const std::string& root, const WalkOptions& options,
                     const CancelToken& cancel,
                     const std::function<WalkStep(const WalkEntry&)>& visit);

}  // namespace raw::tools::builtin
