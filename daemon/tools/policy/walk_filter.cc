#include "daemon/tools/policy/walk_filter.h"

#include <sys/stat.h>

#include <utility>

#include "daemon/tools/policy/rule_path.h"

namespace raw::tools::policy {

WalkFilter::WalkFilter(std::vector<Rule> rules, bool user_approved,
                       std::shared_ptr<const ProtectedLinks> links)
    : rules_(std::move(rules)), user_approved_(user_approved), links_(std::move(links)) {}

std::string WalkFilter::Resolve(const std::string& path, std::optional<struct stat>& info) {
  struct stat st;
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    std::string resolved = ResolveRulePath("/", path);
    if (stat(resolved.c_str(), &st) == 0) info = st;
    return resolved;
  }
  std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  auto [it, inserted] = resolved_directories_.try_emplace(dir);
  if (inserted) it->second = ResolveRulePath("/", dir);
  const std::string& physical_dir = it->second;
  std::string name = path.substr(slash + 1);
  std::string joined = (physical_dir == "/" ? "/" : physical_dir + "/") + name;
  if (lstat(joined.c_str(), &st) != 0) return joined;
  if (S_ISLNK(st.st_mode)) {
    std::string resolved = ResolveRulePath(physical_dir, name);
    if (stat(resolved.c_str(), &st) == 0) info = st;
    return resolved;
  }
  info = st;
  return joined;
}

bool WalkFilter::Withholds(const std::string& path) {
  std::string resolved;
  std::optional<struct stat> info;
  bool have_resolved = false;
  if (links_ != nullptr) {
    resolved = Resolve(path, info);
    have_resolved = true;
    if (info && links_->Check(resolved, *info, snapshot_)) return true;
  }
  for (const Rule& rule : rules_) {
    if (rule.path) {
      if (!have_resolved) {
        resolved = Resolve(path, info);
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

std::function<bool(const std::string&)> WalkFilter::Callback(
    std::vector<Rule> rules, bool user_approved, std::shared_ptr<const ProtectedLinks> links) {
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
  if (!can_withhold && links == nullptr) return nullptr;
  auto filter = std::make_shared<WalkFilter>(std::move(rules), user_approved, std::move(links));
  return [filter](const std::string& path) { return filter->Withholds(path); };
}

}  // namespace raw::tools::policy
