#include "daemon/tools/policy/protected_links.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/tools/policy/rule_path.h"

namespace raw::tools::policy {
namespace {

// One root's walk into a snapshot.
class RootWalk {
 public:
  // `may_doubt`: false for a root of another user (protected_links.h).
  RootWalk(ProtectedLinks::Snapshot& snapshot, size_t root, bool may_doubt)
      : snapshot_(snapshot), root_(root), may_doubt_(may_doubt) {}

  // The directory open at `fd` (owned), at `dir`, on `device`, `depth`
  // levels below the root (1: the root).
  void Directory(int fd, const std::string& dir, dev_t device, int depth) {
    DIR* stream = fdopendir(fd);
    if (stream == nullptr) {
      close(fd);
      Doubt(device);
      return;
    }
    const int dir_fd = dirfd(stream);
    const std::string prefix = dir == "/" ? dir : dir + "/";
    while (dirent* entry = readdir(stream)) {
      const std::string_view name(entry->d_name);
      if (name == "." || name == "..") continue;
      if (++entries_ > ProtectedLinks::kMaxEntries) {
        Doubt(device);
        break;
      }
      struct stat info;
      if (fstatat(dir_fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT) Doubt(device);  // something is there, unseen
        continue;
      }
      if (S_ISDIR(info.st_mode)) {
        const int child =
            depth < ProtectedLinks::kMaxDepth
                ? openat(dir_fd, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                : -1;
        if (child < 0) {
          Doubt(info.st_dev);
          continue;
        }
        Directory(child, prefix + entry->d_name, info.st_dev, depth + 1);
        if (entries_ > ProtectedLinks::kMaxEntries) break;
      } else {
        File(prefix + entry->d_name, info);
      }
    }
    closedir(stream);
  }

  // A file of the root (or the root itself). A link inside a protected
  // directory is not protected where it points (path rules judge the
  // target), so it is not kept either.
  void File(const std::string& path, const struct stat& info) {
    if (S_ISLNK(info.st_mode) || info.st_nlink <= 1) return;
    snapshot_.files.try_emplace({info.st_dev, info.st_ino},
                                ProtectedLinks::Snapshot::Found{path, root_});
  }

 private:
  void Doubt(dev_t device) {
    if (may_doubt_) snapshot_.doubtful.try_emplace(device, root_);
  }

  ProtectedLinks::Snapshot& snapshot_;
  size_t root_;
  bool may_doubt_;
  int entries_ = 0;
};

}  // namespace

ProtectedLinks::ProtectedLinks(std::vector<Root> roots, uid_t owner)
    : roots_(std::move(roots)), owner_(owner) {}

std::optional<std::string> ProtectedLinks::LiteralPathOf(const std::string& pattern) {
  if (pattern.starts_with("re:")) return std::nullopt;
  std::string_view glob = pattern;
  if (glob.ends_with("/**")) glob.remove_suffix(3);
  std::string path;
  path.reserve(glob.size());
  for (size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    if (c == '*' || c == '?') return std::nullopt;
    if (c == '\\') {
      if (++i == glob.size()) return std::nullopt;
      path += glob[i];
      continue;
    }
    path += c;
  }
  if (path.empty() || path[0] != '/') return std::nullopt;
  return path;
}

ProtectedLinks::Snapshot ProtectedLinks::Take() const {
  Snapshot snapshot;
  for (size_t i = 0; i < roots_.size(); ++i) {
    // Where the path rules see the root: its links followed.
    const std::string root = ResolveRulePath("/", roots_[i].path);
    struct stat info;
    // Nothing there (or nothing Raw can look at): nothing to link to.
    if (stat(root.c_str(), &info) != 0) continue;
    RootWalk walk(snapshot, i, /*may_doubt=*/info.st_uid == owner_);
    if (!S_ISDIR(info.st_mode)) {
      walk.File(root, info);
      continue;
    }
    const int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      if (info.st_uid == owner_) snapshot.doubtful.try_emplace(info.st_dev, i);
      continue;
    }
    walk.Directory(fd, root, info.st_dev, 1);
  }
  return snapshot;
}

std::optional<std::string> ProtectedLinks::Check(const std::string& path, const struct stat& info,
                                                 std::optional<Snapshot>& snapshot) const {
  if (S_ISDIR(info.st_mode) || info.st_nlink <= 1 || roots_.empty()) return std::nullopt;
  if (!snapshot) snapshot = Take();
  if (auto found = snapshot->files.find({info.st_dev, info.st_ino});
      found != snapshot->files.end()) {
    return absl::StrCat(roots_[found->second.root].label, " (a hard link of ", found->second.path,
                        ")");
  }
  if (auto doubtful = snapshot->doubtful.find(info.st_dev); doubtful != snapshot->doubtful.end()) {
    const Root& root = roots_[doubtful->second];
    return absl::StrCat(root.label, " (", path, " has ", info.st_nlink, " hard links, and ",
                        root.path, " holds more than Raw looks through (", kMaxEntries,
                        " entries, ", kMaxDepth,
                        " levels) or entries it cannot read, on the same file system: Raw cannot "
                        "tell that the file is not one of them under another name)");
  }
  return std::nullopt;
}

std::optional<std::string> ProtectedLinks::CheckPath(const std::string& path) const {
  struct stat info;
  if (roots_.empty() || stat(path.c_str(), &info) != 0) return std::nullopt;
  std::optional<Snapshot> snapshot;
  return Check(path, info, snapshot);
}

}  // namespace raw::tools::policy
