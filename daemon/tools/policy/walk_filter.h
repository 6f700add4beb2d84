// WalkFilter: which entries of a directory walk (builtin/grep, glob,
// list_dir) the agent's path rules keep from the call.
//
// A walk's call is judged on its root alone ("grep TODO ." is "." to the
// rules), yet it reads or lists everything below. So each entry the walk
// meets is put to the same ordered rules as a call naming that entry would
// be (rule_set.h: the first rule whose tool pattern matches the call's tool
// and whose path pattern, anchored at the cwd, matches the entry's resolved
// path): a `deny` answer withholds the entry, an `ask` answer withholds it
// unless the user approved this very call (they saw its root and let it
// read what lies below). An entry no rule matches is not withheld (the
// approval mode judged the call). A withheld directory is not entered.
//
// Before the rules, an entry that is a hard link of a protected file
// (protected_links.h) is withheld: the lstat the resolution makes tells its
// link count, and only an entry with several links meets the snapshot of
// the protected places, taken once per walk at the first such entry.
//
// Resolution is ResolveRulePath's: the walk never follows symlinked
// directories, so each directory is resolved once and only an entry that
// is itself a symlink is followed to its target.
//
// Thread-safety: one filter serves one walk on one thread (it caches
// resolved directories).
#pragma once

#include <sys/stat.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/pattern.h"
#include "daemon/config/config.h"
#include "daemon/tools/policy/protected_links.h"

namespace raw::tools::policy {

class WalkFilter {
 public:
  struct Rule {
    config::RuleAction action;
    std::optional<Pattern> path;  // anchored; none: the rule matches every path
  };

  // `rules`: the rules that apply to the call's tool, in order. `links`:
  // the protected files whose hard links are withheld; null = none.
  WalkFilter(std::vector<Rule> rules, bool user_approved,
             std::shared_ptr<const ProtectedLinks> links = nullptr);

  // Whether the entry at `path` (absolute, lexically normal, as the walk
  // opens it) is withheld.
  bool Withholds(const std::string& path);

  // The filter as a ToolContext::withheld callback; null when no rule can
  // withhold anything and `links` is null, so a walk without such rules
  // pays nothing.
  static std::function<bool(const std::string&)> Callback(
      std::vector<Rule> rules, bool user_approved,
      std::shared_ptr<const ProtectedLinks> links = nullptr);

 private:
  // The resolved path; `info` is stat(2) of what it names, or nullopt when
  // that cannot be told (nothing there).
  std::string Resolve(const std::string& path, std::optional<struct stat>& info);

  std::vector<Rule> rules_;
  bool user_approved_;
  std::shared_ptr<const ProtectedLinks> links_;
  std::optional<ProtectedLinks::Snapshot> snapshot_;
  std::unordered_map<std::string, std::string> resolved_directories_;
};

}  // namespace raw::tools::policy
