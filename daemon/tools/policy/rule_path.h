// Rule paths: the file path a path rule sees, and the path pattern it is
// compared with, both made absolute and free of symlinks in the same way so
// that "../", "./" and links can neither hide a target nor break a match:
// the path a rule sees is the file the tool actually opens.
// Reads the file system (lstat, readlink); never fails; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "common/pattern.h"
#include "daemon/config/config.h"

namespace raw::tools::policy {

// How ResolveRulePath treats `..` and links.
struct RuleResolveOptions {
  // False: `..` as written is taken lexically first ("a/link/../b" is
  // "a/b"), as the file tools open a path (tool_args.h ResolvePath). True:
  // taken as the kernel does when a shell opens the path, after the link
  // before it is followed ("link/.." is the parent of the link's target).
  bool physical_dots = false;
  // A resolved directory: links at it or below it are not followed, and the
  // path goes on through the link's own name. Empty: every link is followed.
  std::string keep_links_under;
};

struct RulePath {
  std::string path;
  // False when the path holds more links than the kernel follows for one
  // path (40): the rest was left as written, and no rule can tell which
  // file it names.
  bool complete = true;
  // True when the path went through /proc/: a process's own view there
  // (/proc/self, /proc/<pid>/cwd, /proc/<pid>/fd/N, and /dev/fd and
  // /dev/stdin, which lead there) resolves to what the process asking sees,
  // here rawd, not necessarily the process that opens the path.
  bool through_proc = false;
};

// What readlink said about a path.
struct LinkAnswer {
  enum Kind {
    kNotLink,  // not a link, or it could not be read (EACCES, ...)
    kLink,
    kMissing,  // ENOENT or ENOTDIR: nothing is there, nor below it
  };
  Kind kind = kNotLink;
  std::string target;  // kLink only
};

// What readlink said about each path asked during one rule evaluation, and
// each whole resolution made in it, so that the rules of one call resolve
// the directories they share (the working directory, the home directory)
// once rather than once per rule. Kept for one evaluation only, never
// longer: the file system may change between calls, and a rule must see it
// as it is.
class LinkMemo {
 public:
  // The target of the symlink at `path`; nullopt when `path` is not a
  // symlink or cannot be read.
  std::optional<std::string> Target(const std::string& path);
  // The whole answer, kept (by reference) until the memo is destroyed.
  const LinkAnswer& Ask(const std::string& path);

 private:
  friend RulePath ResolveRulePathWith(const std::string& cwd, const std::string& path,
                                      LinkMemo* memo, const RuleResolveOptions& options);
  std::unordered_map<std::string, LinkAnswer> seen_;
  // Whole answers of ResolveRulePathWith with default options, by the
  // absolute path asked.
  std::unordered_map<std::string, RulePath> resolved_;
};

// `path` made absolute against `cwd`, with `..` taken as `options` say, then
// with symlinks in its longest existing prefix resolved (a dangling link at
// the end is resolved too: writing through it creates its target; ".."
// inside a link's target is taken physically, as the kernel does). Never
// fails: a path that cannot be resolved further is returned normalized.
// `memo`, when given, answers for paths already looked at.
RulePath ResolveRulePathWith(const std::string& cwd, const std::string& path, LinkMemo* memo,
                             const RuleResolveOptions& options);

// ResolveRulePathWith with `..` taken lexically and every link followed:
// exactly the file the file tools open.
std::string ResolveRulePath(const std::string& cwd, const std::string& path,
                            LinkMemo* memo = nullptr);

// The kPath glob `pattern` anchored for matching resolved paths: a relative
// pattern is put under `cwd` (resolved), one that is "~" or starts with "~/"
// under $HOME, and the leading components without
// glob characters are resolved like ResolveRulePath. For an allow rule
// (`allow_rule`), links inside the resolved `cwd` are not followed: a link
// the project holds ("src -> ..") must not widen what an allow rule covers
// to wherever it points; a path reached through such a link is judged by
// where it leads, which the rule then does not cover. "re:" patterns are
// returned unchanged (they always see the absolute resolved path).
std::string AnchorPathPattern(const std::string& cwd, const std::string& pattern,
                              LinkMemo* memo = nullptr, bool allow_rule = false);

// AnchorPathPattern in parts, for a caller that anchors the same pattern at
// every check and so splits it once (RuleSet's deny and ask rules):
//
// An absolute kPath glob split where AnchorPathPattern splits it: the
// literal leading directories, which it resolves, and the rest, from the
// first component holding a glob character or an escape.
struct PathPatternSplit {
  std::string literal;  // "/home/u/.ssh" of "/home/u/.ssh/**"
  std::string rest;     // "**"; empty when every component is literal
};
// REQUIRES: `pattern` starts with '/'.
PathPatternSplit SplitPathPattern(const std::string& pattern);
// The anchored pattern of a split whose `literal` resolved to `resolved`.
std::string JoinAnchored(const std::string& resolved, const std::string& rest);
// `path` (absolute) with "." and ".." taken lexically: what ResolveRulePath
// answers for it when no link is on its way. Pure.
std::string LexicalNormal(const std::string& path);
// A "~" or "~/…" pattern as the absolute pattern AnchorPathPattern reads it
// as now ($HOME escaped, then the rest); nullopt for any other pattern and
// when HOME is unset or relative.
std::optional<std::string> HomePatternPath(const std::string& pattern);

// Whether a path rule with `action` and the anchored `pattern` applies to
// the resolved `path`. A "re:" pattern (RE2 in UTF-8 mode) cannot match a
// path that is not valid UTF-8, so for such a path it counts as matching for
// deny and ask rules and never for allow rules: a rule fails closed.
bool PathRuleMatches(config::RuleAction action, const Pattern& pattern, const std::string& path);

}  // namespace raw::tools::policy
