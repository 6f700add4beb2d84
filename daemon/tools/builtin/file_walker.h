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
// Stateless function; the walk runs on the calling thread.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/cancel_token.h"

namespace raw::tools::builtin {

struct WalkEntry {
  enum class Type { kFile, kDirectory, kSymlink, kOther };
  std::string path;  // absolute
  std::string rel;   // relative to the root, '/'-separated
  Type type = Type::kOther;
  struct stat st = {};  // lstat(2) of the entry
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

// Walks the directory `root` (absolute, normalized; the root itself is not
// visited). The visitor's verdict on a directory decides whether the walk
// enters it.
WalkSummary WalkTree(const std::string& root, const WalkOptions& options,
                     const CancelToken& cancel,
                     const std::function<WalkStep(const WalkEntry&)>& visit);

}  // namespace raw::tools::builtin
