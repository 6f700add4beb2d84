#include "daemon/tools/policy/rule_url.h"

#include "daemon/tools/builtin/web_url.h"

namespace raw::tools::policy {

std::string RuleUrl(const std::string& url) {
  absl::StatusOr<std::string> checked = builtin::CheckFetchUrl(url);
  return checked.ok() ? *checked : url;
}

}  // namespace raw::tools::policy
