#include "daemon/tools/policy/rule_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/pattern.h"
#include "common/utf8.h"

namespace raw::tools::policy {
namespace {

// Like the kernel's limit on links followed while resolving one path.
constexpr int kMaxSymlinks = 40;

// The components of `path`, last first (the resolver takes them from the
// back), without empty ones.
void PushComponentsReversed(std::string_view path, std::vector<std::string>& stack) {
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
// them, as a stack of components for the resolver.
std::vector<std::string> LexicalComponentsReversed(std::string_view path) {
  std::vector<std::string> forward;
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(path.data(), path.size()), '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") {
      if (!forward.empty()) forward.pop_back();
      continue;
    }
    forward.emplace_back(part.data(), part.size());
  }
  return {std::make_move_iterator(forward.rbegin()), std::make_move_iterator(forward.rend())};
}

std::string Join(const std::vector<std::string>& components) {
  return "/" + absl::StrJoin(components, "/");
}

bool HasGlobCharacter(const std::string& component) {
  return component.find_first_of("*?\\") != std::string::npos;
}

std::optional<std::string> ReadLinkTarget(const std::string& path) {
  // One readlink answers for a path that is not a link (EINVAL) or is
  // missing (ENOENT); lstat is asked only for a target longer than the
  // buffer.
  char buffer[4096];
  ssize_t length = readlink(path.c_str(), buffer, sizeof buffer);
  if (length < 0) return std::nullopt;
  if (static_cast<size_t>(length) < sizeof buffer) {
    return std::string(buffer, static_cast<size_t>(length));
  }
  struct stat info;
  if (lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return std::nullopt;
  std::vector<char> large(static_cast<size_t>(info.st_size) + 1);
  length = readlink(path.c_str(), large.data(), large.size());
  if (length < 0 || static_cast<size_t>(length) >= large.size()) return std::nullopt;
  return std::string(large.data(), static_cast<size_t>(length));
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
  std::vector<std::string> todo;  // what is left to resolve, next component last
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
  std::vector<size_t> starts;
  int links = 0;
  while (!todo.empty()) {
    std::string component = std::move(todo.back());
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
      continue;
    }
    starts.push_back(current.size());
    current += '/';
    current += component;
    if (kept(current)) continue;
    std::optional<std::string> link =
        memo != nullptr ? memo->Target(current) : ReadLinkTarget(current);
    if (!link) continue;
    if (links >= kMaxSymlinks) {
      result.complete = false;  // a loop, or a chain made to run out the count
      continue;
    }
    ++links;
    current.resize(starts.back());
    starts.pop_back();
    if (!link->empty() && (*link)[0] == '/') {
      current.clear();
      starts.clear();
    }
    PushComponentsReversed(*link, todo);
  }
  result.path = current.empty() ? "/" : std::move(current);
  if (plain && memo != nullptr) memo->resolved_.emplace(std::move(full), result);
  return result;
}

std::string ResolveRulePath(const std::string& cwd, const std::string& path, LinkMemo* memo) {
  return ResolveRulePathWith(cwd, path, memo, {}).path;
}

std::string AnchorPathPattern(const std::string& cwd, const std::string& pattern, LinkMemo* memo,
                              bool allow_rule) {
  if (pattern.rfind("re:", 0) == 0) return pattern;
  // "~" and "~/…" are in the home directory, as the shell and the config's
  // other paths read them: a deny rule written so must not fall to the
  // working directory's "~" (and so never match).
  const char* home = std::getenv("HOME");
  if ((pattern == "~" || pattern.starts_with("~/")) && home != nullptr && home[0] == '/') {
    return AnchorPathPattern(cwd, EscapeGlob(home) + pattern.substr(1), memo, allow_rule);
  }
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
