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
  RulePath resolved = ResolveRulePathWith(cwd, path, nullptr, {.physical_dots = true});
  if (!resolved.complete) return std::nullopt;
  return resolved.path;
}

bool IsHarmlessRedirectTarget(const std::string& target) {
  return target == "/dev/null" || target == "/dev/stdout" || target == "/dev/stderr";
}

}  // namespace raw::tools::policy
