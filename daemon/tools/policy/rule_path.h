// Rule paths: the file path a path rule sees, and the path pattern it is
// compared with, both made absolute and free of symlinks in the same way so
// that "../", "./" and links can neither hide a target nor break a match:
// the path a rule sees is the file the tool actually opens.
// Reads the file system (lstat, readlink); never fails; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

namespace raw::tools::policy {

// What lstat and readlink said about each path asked during one rule
// evaluation, so that the rules of one call resolve the directories they
// share (the working directory, the home directory) once rather than once
// per rule. Kept for one evaluation only, never longer: the file system may
// change between calls, and a rule must see it as it is.
class LinkMemo {
 public:
  // The target of the symlink at `path`; nullopt when `path` is not a
  // symlink or cannot be read.
  std::optional<std::string> Target(const std::string& path);

 private:
  std::unordered_map<std::string, std::optional<std::string>> seen_;
};

// `path` made absolute against `cwd`, lexically normalized (so "a/link/../b"
// is "a/b", exactly the file the file tools open: tool_args.h ResolvePath),
// then with symlinks in its longest existing prefix resolved (a dangling
// link at the end is resolved too: writing through it creates its target;
// ".." inside a link's target is taken physically, as the kernel does).
// Never fails: a path that cannot be resolved further is returned normalized.
// `memo`, when given, answers for paths already looked at.
std::string ResolveRulePath(const std::string& cwd, const std::string& path,
                            LinkMemo* memo = nullptr);

// The kPath glob `pattern` anchored for matching resolved paths: a relative
// pattern is put under `cwd`, and the leading components without glob
// characters are resolved like ResolveRulePath. "re:" patterns are returned
// unchanged (they always see the absolute resolved path).
std::string AnchorPathPattern(const std::string& cwd, const std::string& pattern,
                              LinkMemo* memo = nullptr);

}  // namespace raw::tools::policy
