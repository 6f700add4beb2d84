#include "daemon/tools/builtin/file_walker.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/tools/builtin/gitignore.h"

namespace raw::tools::builtin {
namespace {

class Walker {
 public:
  Walker(const WalkOptions& options, const CancelToken& cancel,
         const std::function<WalkStep(const WalkEntry&)>& visit)
      : options_(options), cancel_(cancel), visit_(visit) {}

  WalkSummary Run(FileHandle root_dir, const std::string& root) {
    if (options_.respect_gitignore) ignores_.LoadParents(root, root_dir.get());
    Walk(root_dir.release(), root, "", 1);
    return summary_;
  }

 private:
  bool Done() const { return summary_.stopped || summary_.cancelled || summary_.hit_entry_limit; }

  // The entries of the directory open at `fd` (owned; -1 when it could not
  // be opened), whose path is `dir`, sorted by name. Returns the
  // directory's stream, which the caller closes once done with the entries
  // (they are reached relative to it), or null when it cannot be read.
  DIR* ReadDirectory(int fd, const std::string& dir, const std::string& rel_dir,
                     std::vector<WalkEntry>& entries) {
    DIR* stream = fd >= 0 ? fdopendir(fd) : nullptr;
    if (stream == nullptr) {
      if (fd >= 0) close(fd);
      return nullptr;
    }
    const int dir_fd = dirfd(stream);
    std::vector<std::string> names;
    while (dirent* entry = readdir(stream)) {
      std::string_view name(entry->d_name);
      if (name == "." || name == ".." || name == ".git") continue;
      names.emplace_back(name);
    }
    std::sort(names.begin(), names.end());
    const std::string prefix = dir == "/" ? "/" : dir + "/";
    for (std::string& name : names) {
      WalkEntry entry;
      if (fstatat(dir_fd, name.c_str(), &entry.st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      entry.type = S_ISREG(entry.st.st_mode)   ? WalkEntry::Type::kFile
                   : S_ISDIR(entry.st.st_mode) ? WalkEntry::Type::kDirectory
                   : S_ISLNK(entry.st.st_mode) ? WalkEntry::Type::kSymlink
                                               : WalkEntry::Type::kOther;
      entry.path = prefix + name;
      entry.rel = rel_dir.empty() ? std::move(name) : rel_dir + "/" + name;
      entry.dir_fd = dir_fd;
      entries.push_back(std::move(entry));
    }
    return stream;
  }

  // Walks the directory open at `fd` (owned), `depth` levels below the root
  // (1: the root).
  void Walk(int fd, const std::string& dir, const std::string& rel_dir, int depth) {
    std::vector<WalkEntry> entries;
    DIR* stream = ReadDirectory(fd, dir, rel_dir, entries);
    if (stream == nullptr) {
      ++summary_.unreadable_directories;
      return;
    }
    const int dir_fd = dirfd(stream);
    if (options_.respect_gitignore) ignores_.Push(dir, dir_fd);
    for (const WalkEntry& entry : entries) {
      if (cancel_.cancelled()) {
        summary_.cancelled = true;
        break;
      }
      if (summary_.visited >= options_.max_entries) {
        summary_.hit_entry_limit = true;
        break;
      }
      const bool is_dir = entry.type == WalkEntry::Type::kDirectory;
      if (options_.respect_gitignore && ignores_.IsIgnored(entry.path, is_dir)) continue;
      if (options_.withheld && options_.withheld(entry.path)) {
        ++summary_.withheld;
        continue;
      }
      ++summary_.visited;
      WalkStep step = visit_(entry);
      if (step == WalkStep::kStop) {
        summary_.stopped = true;
        break;
      }
      if (is_dir && step == WalkStep::kContinue &&
          (options_.max_depth <= 0 || depth < options_.max_depth)) {
        // Relative to this directory and never through a link, whatever
        // now stands at the entry's name.
        const int child =
            depth < kMaxWalkDepth
                ? openat(dir_fd, entry.name(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                : -1;
        if (child < 0) {
          ++summary_.unreadable_directories;
        } else {
          Walk(child, entry.path, entry.rel, depth + 1);
        }
        if (Done()) break;
      }
    }
    if (options_.respect_gitignore) ignores_.Pop();
    closedir(stream);
  }

  const WalkOptions& options_;
  const CancelToken& cancel_;
  const std::function<WalkStep(const WalkEntry&)>& visit_;
  GitignoreStack ignores_;
  WalkSummary summary_;
};

}  // namespace

std::string WithheldNote(const WalkSummary& summary) {
  if (summary.withheld == 0) return "";
  return absl::StrCat("[", summary.withheld, summary.withheld == 1 ? " entry" : " entries",
                      " withheld by the agent's rules]\n");
}

WalkSummary WalkTree(FileHandle root_dir, const std::string& root, const WalkOptions& options,
                     const CancelToken& cancel,
                     const std::function<WalkStep(const WalkEntry&)>& visit) {
  return Walker(options, cancel, visit).Run(std::move(root_dir), root);
}

}  // namespace raw::tools::builtin
