#include "daemon/tools/policy/walk_filter.h"

#include <sys/stat.h>

#include <utility>

#include "daemon/tools/policy/rule_path.h"

namespace raw::tools::policy {

WalkFilter::WalkFilter(std::vector<Rule> rules, bool user_approved)
    : rules_(std::move(rules)), user_approved_(user_approved) {}

std::string WalkFilter::Resolve(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ResolveRulePath("/", path);
  std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  auto [it, inserted] = resolved_directories_.try_emplace(dir);
  if (inserted) it->second = ResolveRulePath("/", dir);
  const std::string& physical_dir = it->second;
  std::string name = path.substr(slash + 1);
  std::string joined = (physical_dir == "/" ? "/" : physical_dir + "/") + name;
  struct stat info;
  if (lstat(joined.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    return ResolveRulePath(physical_dir, name);
  }
  return joined;
}

bool WalkFilter::Withholds(const std::string& path) {
  std::string resolved;
  bool have_resolved = false;
  for (const Rule& rule : rules_) {
    if (rule.path) {
      if (!have_resolved) {
        resolved = Resolve(path);
        have_resolved = true;
      }
      if (!PathRuleMatches(rule.action, *rule.path, resolved)) continue;
    }
    switch (rule.action) {
      case config::RuleAction::kDeny:
        return true;
      case config::RuleAction::kAsk:
        return !user_approved_;
      case config::RuleAction::kAllow:
        return false;
    }
  }
  return false;
}

std::function<bool(const std::string&)> WalkFilter::Callback(std::vector<Rule> rules,
                                                             bool user_approved) {
  // Rules after one without a path pattern can never be reached.
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!rules[i].path) {
      rules.resize(i + 1);
      break;
    }
  }
  bool can_withhold = false;
  for (const Rule& rule : rules) {
    can_withhold = can_withhold || rule.action == config::RuleAction::kDeny ||
                   (rule.action == config::RuleAction::kAsk && !user_approved);
  }
  if (!can_withhold) return nullptr;
  auto filter = std::make_shared<WalkFilter>(std::move(rules), user_approved);
  return [filter](const std::string& path) { return filter->Withholds(path); };
}

}  // namespace raw::tools::policy
