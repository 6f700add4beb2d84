#include "daemon/tools/policy/rule_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <forward_list>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/pattern.h"
#include "common/utf8.h"

namespace raw::tools::policy {
namespace {

// Like the kernel's limit on links followed while resolving one path.
constexpr int kMaxSymlinks = 40;

// The components of `path`, last first (the resolver takes them from the
// back), without empty ones: views into `path`, which must outlive them.
void PushComponentsReversed(std::string_view path, std::vector<std::string_view>& stack) {
  size_t end = path.size();
  while (end > 0) {
    size_t slash = path.rfind('/', end - 1);
    size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    if (end > begin) stack.emplace_back(path.substr(begin, end - begin));
    if (slash == std::string_view::npos) break;
    end = slash;
  }
}

// `path` with "." and ".." taken lexically ("a/b/../c" is "a/c"; ".." at the
// top stays at the top), as std::filesystem::path::lexically_normal takes
// them, as a stack of components for the resolver (views into `path`).
std::vector<std::string_view> LexicalComponentsReversed(std::string_view path) {
  std::vector<std::string_view> forward;
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(path.data(), path.size()), '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") {
      if (!forward.empty()) forward.pop_back();
      continue;
    }
    forward.emplace_back(part.data(), part.size());
  }
  std::reverse(forward.begin(), forward.end());
  return forward;
}

LinkAnswer ReadLink(const std::string& path) {
  // One readlink answers for a path that is not a link (EINVAL) or is
  // missing (ENOENT); lstat is asked only for a target longer than the
  // buffer.
  auto failed = [] {
    return LinkAnswer{
        errno == ENOENT || errno == ENOTDIR ? LinkAnswer::kMissing : LinkAnswer::kNotLink, {}};
  };
  char buffer[4096];
  ssize_t length = readlink(path.c_str(), buffer, sizeof buffer);
  if (length < 0) return failed();
  if (static_cast<size_t>(length) < sizeof buffer) {
    return {LinkAnswer::kLink, std::string(buffer, static_cast<size_t>(length))};
  }
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) return failed();
  if (!S_ISLNK(info.st_mode)) return {};
  std::vector<char> large(static_cast<size_t>(info.st_size) + 1);
  length = readlink(path.c_str(), large.data(), large.size());
  if (length < 0) return failed();
  if (static_cast<size_t>(length) >= large.size()) return {};
  return {LinkAnswer::kLink, std::string(large.data(), static_cast<size_t>(length))};
}

}  // namespace

const LinkAnswer& LinkMemo::Ask(const std::string& path) {
  auto [it, inserted] = seen_.try_emplace(path);
  if (inserted) it->second = ReadLink(path);
  return it->second;
}

std::optional<std::string> LinkMemo::Target(const std::string& path) {
  const LinkAnswer& answer = Ask(path);
  if (answer.kind != LinkAnswer::kLink) return std::nullopt;
  return answer.target;
}

RulePath ResolveRulePathWith(const std::string& cwd, const std::string& path, LinkMemo* memo,
                             const RuleResolveOptions& options) {
  std::string full = !path.empty() && path[0] == '/' ? path : cwd + "/" + path;
  // The same path is often resolved more than once in one evaluation (a
  // protected directory's two rules, the working directory of every
  // relative pattern): the memo keeps the whole answer for the plain case.
  const bool plain = !options.physical_dots && options.keep_links_under.empty();
  if (plain && memo != nullptr) {
    if (auto it = memo->resolved_.find(full); it != memo->resolved_.end()) return it->second;
  }
  // Lexically first, as the file tools open it (tool_args.h ResolvePath):
  // "link/../x" is <cwd>/x for them, so it must be for the rules too. Only
  // the ".." that symlink targets bring in are taken physically below.
  // What is left to resolve, next component last: views into `full` and
  // into the links' targets, which the memo keeps (or `targets` without one).
  std::vector<std::string_view> todo;
  std::forward_list<std::string> targets;
  if (options.physical_dots) {
    PushComponentsReversed(full, todo);
  } else {
    todo = LexicalComponentsReversed(full);
  }
  const std::string& keep = options.keep_links_under;
  auto kept = [&keep](const std::string& current) {
    return !keep.empty() && (keep == "/" || current == keep ||
                             (current.size() > keep.size() && current.starts_with(keep) &&
                              current[keep.size()] == '/'));
  };
  RulePath result;
  // The path resolved so far ("" for the root), whose links were followed
  // or kept, and where each of its components begins.
  std::string current;
  current.reserve(full.size());
  std::vector<size_t> starts;
  int links = 0;
  // The depth (starts.size()) of a component the file system reported
  // missing (ENOENT, ENOTDIR), below which nothing exists and so no link
  // does, and readlink is not asked; 0 when every component so far exists.
  // ".." back above it ends that.
  size_t missing_from = 0;
  while (!todo.empty()) {
    const std::string_view component = todo.back();
    todo.pop_back();
    if (component == ".") continue;
    if (component == "..") {
      // `current` has no followed links, so its parent is the real parent
      // (a kept link's name is dropped as written: only allow patterns keep
      // links, and they were normalized lexically).
      if (!starts.empty()) {
        current.resize(starts.back());
        starts.pop_back();
      }
      if (starts.size() < missing_from) missing_from = 0;
      continue;
    }
    starts.push_back(current.size());
    current += '/';
    current += component;
    if (starts.size() == 2 && current.starts_with("/proc/")) result.through_proc = true;
    if (kept(current)) continue;
    if (missing_from != 0 && starts.size() > missing_from) continue;
    LinkAnswer unmemoized;
    const LinkAnswer& answer = memo != nullptr ? memo->Ask(current) : unmemoized;
    if (memo == nullptr) unmemoized = ReadLink(current);
    if (answer.kind == LinkAnswer::kMissing) missing_from = starts.size();
    if (answer.kind != LinkAnswer::kLink) continue;
    const std::string& link = answer.target;
    if (links >= kMaxSymlinks) {
      result.complete = false;  // a loop, or a chain made to run out the count
      continue;
    }
    ++links;
    current.resize(starts.back());
    starts.pop_back();
    if (!link.empty() && link[0] == '/') {
      current.clear();
      starts.clear();
    }
    if (memo == nullptr) {
      targets.push_front(link);
      PushComponentsReversed(targets.front(), todo);
    } else {
      PushComponentsReversed(link, todo);
    }
  }
  result.path = current.empty() ? "/" : std::move(current);
  if (plain && memo != nullptr) memo->resolved_.emplace(std::move(full), result);
  return result;
}

std::string ResolveRulePath(const std::string& cwd, const std::string& path, LinkMemo* memo) {
  return ResolveRulePathWith(cwd, path, memo, {}).path;
}

std::string LexicalNormal(const std::string& path) {
  // Most paths are normal already: no empty, "." or ".." component.
  const bool as_is =
      path == "/" ||
      (path.starts_with('/') && !path.ends_with('/') && !path.ends_with("/.") &&
       !path.ends_with("/..") && path.find("//") == std::string::npos &&
       path.find("/./") == std::string::npos && path.find("/../") == std::string::npos);
  if (as_is) return path;
  std::vector<std::string_view> reversed = LexicalComponentsReversed(path);
  if (reversed.empty()) return "/";
  std::string normal;
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    normal += '/';
    normal += *it;
  }
  return normal;
}

PathPatternSplit SplitPathPattern(const std::string& pattern) {
  // The components after the leading '/', empty ones included, are taken
  // as written: the literal part is the pattern up to the slash before the
  // first component with a glob character ("/" when that is the first).
  size_t begin = 1;
  while (true) {
    size_t end = pattern.find('/', begin);
    if (end == std::string::npos) end = pattern.size();
    if (pattern.find_first_of("*?\\", begin) < end) {
      return {begin == 1 ? std::string("/") : pattern.substr(0, begin - 1), pattern.substr(begin)};
    }
    if (end == pattern.size()) return {pattern, ""};
    begin = end + 1;
  }
}

std::string JoinAnchored(const std::string& resolved, const std::string& rest) {
  std::string anchored = EscapeGlob(resolved);
  if (rest.empty()) return anchored;
  return (anchored == "/" ? "" : anchored) + "/" + rest;
}

std::optional<std::string> HomePatternPath(const std::string& pattern) {
  if (pattern != "~" && !pattern.starts_with("~/")) return std::nullopt;
  const char* home = std::getenv("HOME");
  if (home == nullptr || home[0] != '/') return std::nullopt;
  return EscapeGlob(home) + pattern.substr(1);
}

std::string AnchorPathPattern(const std::string& cwd, const std::string& pattern, LinkMemo* memo,
                              bool allow_rule) {
  if (pattern.rfind("re:", 0) == 0) return pattern;
  // "~" and "~/…" are in the home directory, as the shell and the config's
  // other paths read them: a deny rule written so must not fall to the
  // working directory's "~" (and so never match).
  if (std::optional<std::string> in_home = HomePatternPath(pattern)) {
    return AnchorPathPattern(cwd, *in_home, memo, allow_rule);
  }
  const bool absolute = !pattern.empty() && pattern[0] == '/';
  // Only a relative pattern or an allow rule needs the working directory
  // (an absolute deny pattern, such as a protected path, does not).
  const std::string resolved_cwd =
      !absolute || allow_rule ? ResolveRulePath("/", cwd, memo) : std::string();
  const PathPatternSplit split =
      SplitPathPattern(absolute ? pattern : EscapeGlob(resolved_cwd) + "/" + pattern);
  RuleResolveOptions options;
  if (allow_rule) options.keep_links_under = resolved_cwd;
  return JoinAnchored(ResolveRulePathWith("/", split.literal, memo, options).path, split.rest);
}

bool PathRuleMatches(config::RuleAction action, const Pattern& pattern, const std::string& path) {
  if (pattern.is_regex() && ValidUtf8Prefix(path) != path.size()) {
    return action != config::RuleAction::kAllow;
  }
  return pattern.Matches(path);
}

}  // namespace raw::tools::policy
