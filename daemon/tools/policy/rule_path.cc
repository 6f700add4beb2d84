#include "daemon/tools/policy/rule_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/pattern.h"
#include "common/utf8.h"

namespace raw::tools::policy {
namespace {

// Like the kernel's limit on links followed while resolving one path.
constexpr int kMaxSymlinks = 40;

std::deque<std::string> Components(const std::string& path) {
  std::deque<std::string> out;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    out.emplace_back(part.data(), part.size());
  }
  return out;
}

std::string Join(const std::vector<std::string>& components) {
  return "/" + absl::StrJoin(components, "/");
}

bool HasGlobCharacter(const std::string& component) {
  return component.find_first_of("*?\\") != std::string::npos;
}

std::optional<std::string> ReadLinkTarget(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return std::nullopt;
  std::vector<char> buffer(info.st_size > 0 ? static_cast<size_t>(info.st_size) + 1 : 4096);
  ssize_t length = readlink(path.c_str(), buffer.data(), buffer.size());
  if (length < 0 || static_cast<size_t>(length) >= buffer.size()) return std::nullopt;
  return std::string(buffer.data(), static_cast<size_t>(length));
}

}  // namespace

std::optional<std::string> LinkMemo::Target(const std::string& path) {
  auto [it, inserted] = seen_.try_emplace(path);
  if (inserted) it->second = ReadLinkTarget(path);
  return it->second;
}

RulePath ResolveRulePathWith(const std::string& cwd, const std::string& path, LinkMemo* memo,
                             const RuleResolveOptions& options) {
  std::string full = !path.empty() && path[0] == '/' ? path : cwd + "/" + path;
  // Lexically first, as the file tools open it (tool_args.h ResolvePath):
  // "link/../x" is <cwd>/x for them, so it must be for the rules too. Only
  // the ".." that symlink targets bring in are taken physically below.
  std::deque<std::string> todo = Components(
      options.physical_dots ? full : std::filesystem::path(full).lexically_normal().string());
  const std::string& keep = options.keep_links_under;
  auto kept = [&keep](const std::string& current) {
    return !keep.empty() && (keep == "/" || current == keep ||
                             (current.size() > keep.size() && current.starts_with(keep) &&
                              current[keep.size()] == '/'));
  };
  RulePath result;
  std::vector<std::string> resolved;  // components of a path whose links were followed or kept
  int links = 0;
  while (!todo.empty()) {
    std::string component = std::move(todo.front());
    todo.pop_front();
    if (component == ".") continue;
    if (component == "..") {
      // `resolved` has no followed links, so its parent is the real parent
      // (a kept link's name is dropped as written: only allow patterns keep
      // links, and they were normalized lexically).
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(std::move(component));
    const std::string current = Join(resolved);
    if (kept(current)) continue;
    std::optional<std::string> link =
        memo != nullptr ? memo->Target(current) : ReadLinkTarget(current);
    if (!link) continue;
    if (links >= kMaxSymlinks) {
      result.complete = false;  // a loop, or a chain made to run out the count
      continue;
    }
    ++links;
    const std::string target = *std::move(link);
    resolved.pop_back();
    if (!target.empty() && target[0] == '/') resolved.clear();
    std::deque<std::string> target_components = Components(target);
    todo.insert(todo.begin(), target_components.begin(), target_components.end());
  }
  result.path = Join(resolved);
  return result;
}

std::string ResolveRulePath(const std::string& cwd, const std::string& path, LinkMemo* memo) {
  return ResolveRulePathWith(cwd, path, memo, {}).path;
}

std::string AnchorPathPattern(const std::string& cwd, const std::string& pattern, LinkMemo* memo,
                              bool allow_rule) {
  if (pattern.rfind("re:", 0) == 0) return pattern;
  const bool absolute = !pattern.empty() && pattern[0] == '/';
  // Only a relative pattern or an allow rule needs the working directory
  // (an absolute deny pattern, such as a protected path, does not).
  const std::string resolved_cwd =
      !absolute || allow_rule ? ResolveRulePath("/", cwd, memo) : std::string();
  std::string full = absolute ? pattern : EscapeGlob(resolved_cwd) + "/" + pattern;
  // Split into the literal leading directories and the rest (from the first
  // component holding a glob character or an escape).
  std::vector<std::string> parts = absl::StrSplit(full.substr(1), '/');
  size_t literal = 0;
  while (literal < parts.size() && !HasGlobCharacter(parts[literal])) ++literal;
  std::vector<std::string> prefix(parts.begin(), parts.begin() + literal);
  std::vector<std::string> rest(parts.begin() + literal, parts.end());
  RuleResolveOptions options;
  if (allow_rule) options.keep_links_under = resolved_cwd;
  std::string anchored = EscapeGlob(ResolveRulePathWith("/", Join(prefix), memo, options).path);
  if (rest.empty()) return anchored;
  return (anchored == "/" ? "" : anchored) + "/" + absl::StrJoin(rest, "/");
}

bool PathRuleMatches(config::RuleAction action, const Pattern& pattern, const std::string& path) {
  if (pattern.is_regex() && ValidUtf8Prefix(path) != path.size()) {
    return action != config::RuleAction::kAllow;
  }
  return pattern.Matches(path);
}

}  // namespace raw::tools::policy
