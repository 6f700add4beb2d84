#include "daemon/tools/builtin/gitignore.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "daemon/tools/builtin/checked_open.h"
#include "daemon/tools/builtin/path_glob.h"

namespace raw::tools::builtin {
namespace {

// A .gitignore larger than this is not read (no real one comes close).
constexpr size_t kMaxGitignoreBytes = 1 << 20;

// The regular file `name` relative to `dir_fd`; empty when it is missing,
// a symlink, not a regular file or larger than kMaxGitignoreBytes.
std::string ReadGitignore(int dir_fd, const char* name) {
  std::string text;
  if (!ReadWholeRegularFileAt(dir_fd, name, kMaxGitignoreBytes, text)) return "";
  return text;
}

}  // namespace

GitignoreRules GitignoreRules::Parse(std::string_view text) {
  GitignoreRules result;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    // Trailing spaces go unless escaped with a backslash.
    size_t end = line.size();
    while (end > 0 && line[end - 1] == ' ' && !(end >= 2 && line[end - 2] == '\\')) --end;
    line = line.substr(0, end);

    Rule rule;
    if (!line.empty() && line[0] == '!') {
      rule.negate = true;
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      rule.dir_only = true;
      while (!line.empty() && line.back() == '/') line.remove_suffix(1);
    }
    if (line.empty()) continue;
    rule.anchored = line.find('/') != std::string_view::npos;
    for (std::string_view segment : SplitPath(line)) rule.segments.emplace_back(segment);
    if (rule.segments.empty()) continue;
    result.rules_.push_back(std::move(rule));
  }
  return result;
}

GitignoreRules::Verdict GitignoreRules::Match(std::string_view path, bool is_dir) const {
  std::vector<std::string_view> parts;
  bool split = false;
  std::string name;
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    const Rule& rule = *it;
    if (rule.dir_only && !is_dir) continue;
    bool matched = false;
    if (rule.anchored) {
      if (!split) {
        parts = SplitPath(path);
        split = true;
      }
      matched = MatchSegments(rule.segments, parts, /*prefix=*/false);
    } else {
      if (name.empty()) name = std::string(BaseName(path));
      matched = fnmatch(rule.segments[0].c_str(), name.c_str(), 0) == 0;
    }
    if (matched) return rule.negate ? Verdict::kIncluded : Verdict::kIgnored;
  }
  return Verdict::kNone;
}

void GitignoreStack::LoadParents(const std::string& root, int root_fd) {
  struct Parent {
    std::string dir;
    FileHandle fd;
  };
  std::vector<Parent> parents;  // nearest first
  bool in_git = false;
  std::string dir = root;
  int fd = root_fd;
  struct stat root_info;
  if (fstat(root_fd, &root_info) != 0) return;
  dev_t dev = root_info.st_dev;
  ino_t ino = root_info.st_ino;
  for (;;) {
    struct stat git;
    if (fstatat(fd, ".git", &git, 0) == 0) {
      in_git = true;
      break;
    }
    if (dir == "/") break;
    FileHandle up(openat(fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat up_info;
    if (up.get() < 0 || fstat(up.get(), &up_info) != 0) break;
    if (up_info.st_dev == dev && up_info.st_ino == ino) break;  // the file system's root
    dev = up_info.st_dev;
    ino = up_info.st_ino;
    const size_t slash = dir.rfind('/');
    dir = slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
    fd = up.get();
    parents.push_back({dir, std::move(up)});
  }
  if (!in_git) return;
  for (auto it = parents.rbegin(); it != parents.rend(); ++it) Push(it->dir, it->fd.get());
}

void GitignoreStack::Push(const std::string& dir, int dir_fd) {
  Level level;
  level.dir = dir;
  level.rules = GitignoreRules::Parse(ReadGitignore(dir_fd, ".gitignore"));
  levels_.push_back(std::move(level));
}

void GitignoreStack::Pop() {
  if (!levels_.empty()) levels_.pop_back();
}

bool GitignoreStack::IsIgnored(std::string_view path, bool is_dir) const {
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    if (it->rules.empty()) continue;
    const std::string& dir = it->dir;
    std::string_view rel;
    if (dir == "/") {
      rel = path.substr(1);
    } else if (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
               path[dir.size()] == '/') {
      rel = path.substr(dir.size() + 1);
    } else {
      continue;
    }
    GitignoreRules::Verdict verdict = it->rules.Match(rel, is_dir);
    if (verdict != GitignoreRules::Verdict::kNone) {
      return verdict == GitignoreRules::Verdict::kIgnored;
    }
  }
  return false;
}

}  // namespace raw::tools::builtin
