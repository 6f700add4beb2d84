#include "daemon/tools/policy/redirect_target.h"

#include <cstdlib>

#include "daemon/tools/policy/rule_path.h"

namespace raw::tools::policy {

std::optional<std::string> ResolveRedirectTarget(const std::string& cwd,
                                                 const std::string& target) {
  std::string path = target;
  if (target == "~" || target.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] == '/') path = std::string(home) + target.substr(1);
  }
  if (IsHarmlessRedirectTarget(target)) return target;
  RulePath resolved = ResolveRulePathWith(cwd, path, nullptr, {.physical_dots = true});
  // Through /proc, rawd would resolve its own view (/proc/self/cwd is
  // rawd's directory, not the shell's; /dev/fd/N rawd's descriptor N).
  if (!resolved.complete || resolved.through_proc) return std::nullopt;
  return resolved.path;
}

bool IsHarmlessRedirectTarget(const std::string& target) {
  return target == "/dev/null" || target == "/dev/stdout" || target == "/dev/stderr";
}

}  // namespace raw::tools::policy
