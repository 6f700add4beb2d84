#include "daemon/tools/policy/redirect_target.h"

#include <cstdlib>

#include "daemon/tools/policy/rule_path.h"

namespace raw::tools::policy {

std::string ResolveRedirectTarget(const std::string& cwd, const std::string& target) {
  std::string path = target;
  if (target == "~" || target.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] == '/') path = std::string(home) + target.substr(1);
  }
  return ResolveRulePath(cwd, path);
}

bool IsHarmlessRedirectTarget(const std::string& target) {
  return target == "/dev/null" || target == "/dev/stdout" || target == "/dev/stderr";
}

}  // namespace raw::tools::policy
