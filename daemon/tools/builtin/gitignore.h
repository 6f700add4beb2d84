// Gitignore: the .gitignore rules that builtin/glob and builtin/grep honour
// while they walk a tree.
//
// Rules follow gitignore(5): blank lines and lines starting with '#' are
// skipped; trailing spaces are dropped unless escaped ("\ "); a leading '!'
// re-includes what an earlier rule excluded ("\!" and "\#" are literal); a
// trailing '/' matches directories only; a pattern with a '/' at its start
// or in its middle is anchored to the directory of its .gitignore, one
// without matches the name at any depth below it; `*`, `?`, `[...]` and
// `**` work as in path_glob.h. Within one file the last matching rule wins;
// a deeper .gitignore overrides a shallower one. As in git, a file inside an
// excluded directory cannot be re-included (walks never enter it).
//
// As in git, a .gitignore that is a symlink is not read (nor is a FIFO or a
// device).
//
// Thread-safety: GitignoreRules is immutable after Parse; a GitignoreStack
// belongs to one walk on one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace raw::tools::builtin {

class GitignoreRules {
 public:
  enum class Verdict { kNone, kIgnored, kIncluded };

  // Parses the text of one .gitignore file.
  static GitignoreRules Parse(std::string_view text);

  // The verdict of the last rule matching `path`, relative to the
  // directory holding the rules; kNone when no rule matches.
  Verdict Match(std::string_view path, bool is_dir) const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    std::vector<std::string> segments;  // anchored: the path; else one name
    bool negate = false;
    bool dir_only = false;
    bool anchored = false;
  };
  std::vector<Rule> rules_;
};

// The rules in force at one point of a depth-first walk: the .gitignore of
// every directory from the top of the enclosing git work tree (or the walk's
// root, outside of git) down to the directory being listed.
class GitignoreStack {
 public:
  // Loads the .gitignore files of the directories above `root` (absolute,
  // normalized; open at `root_fd`, which stays the caller's) up to the
  // nearest one holding a .git entry, when there is one. Each directory is
  // reached by ".." from the one below it, never by its path, so a link
  // put on the way after `root` was opened leads nowhere else. Call once,
  // before the first Push.
  void LoadParents(const std::string& root, int root_fd);

  // Enters directory `dir` (absolute), open at `dir_fd`: reads its
  // .gitignore, if any, relative to the descriptor.
  void Push(const std::string& dir, int dir_fd);
  // Leaves the directory entered last.
  void Pop();

  // True when `path` (absolute, below the directories pushed) is ignored.
  bool IsIgnored(std::string_view path, bool is_dir) const;

 private:
  struct Level {
    std::string dir;
    GitignoreRules rules;
  };
  std::vector<Level> levels_;
};

}  // namespace raw::tools::builtin
