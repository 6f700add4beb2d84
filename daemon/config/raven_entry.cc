#include "daemon/config/raven_entry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/config/base_url.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/model_entry.h"
#include "daemon/config/variable_refs.h"

namespace raw::config {
namespace {

// Largest raven.verify.max_bytes (1 GiB), as for tools.* byte limits.
constexpr int64_t kMaxRavenBytes = int64_t{1} << 30;

void ReadVerify(FieldReader& raven, RavenVerifySettings& verify,
                std::vector<ConfigProblem>& problems) {
  const Json* section = raven.Find("verify");
  if (section == nullptr) return;
  FieldReader r(*section, raven.PathOf("verify"), problems);
  r.RejectUnknownKeys(kRavenVerifyKeys);
  if (auto ms = r.SecondsAsMillis("fetch_timeout_seconds", kMaxRavenTimeoutSeconds)) {
    verify.fetch_timeout_ms = *ms;
  }
  if (auto ms = r.SecondsAsMillis("total_timeout_seconds", kMaxRavenTimeoutSeconds)) {
    verify.total_timeout_ms = *ms;
  }
  if (auto n = r.Integer("max_bytes", 1, kMaxRavenBytes)) verify.max_bytes = *n;
  if (auto n = r.Integer("max_parallel_fetches", 1, kMaxRavenParallelFetches)) {
    verify.max_parallel_fetches = *n;
  }
}

void ReadSearch(FieldReader& raven, const Config& config,
                const std::set<std::string>& broken_variables, RavenSearchSettings& search,
                std::vector<ConfigProblem>& problems) {
  const Json* section = raven.Find("search");
  if (section == nullptr) return;
  FieldReader r(*section, raven.PathOf("search"), problems);
  r.RejectUnknownKeys(kRavenSearchKeys);
  if (!r.is_object()) return;
  r.Require("backend", "\"searxng\" or \"brave\"");
  std::optional<std::string> backend = r.OneOf("backend", kSearchBackends);
  if (auto ms = r.SecondsAsMillis("timeout_seconds", kMaxRavenTimeoutSeconds)) {
    search.timeout_ms = *ms;
  }
  if (auto n = r.Integer("max_results", 1, kMaxSearchResults)) search.max_results = *n;
  std::optional<std::string> url;
  if (r.Find("url") != nullptr) {
    if (std::optional<std::string> text = r.String("url")) {
      UrlHints hints{"http://127.0.0.1:8888", "name the variable holding a key in api_key_variable"};
      absl::StatusOr<BaseUrlParts> parts = ParseBaseUrl(*text, hints);
      if (parts.ok()) {
        url = TrimBaseUrl(*text);
      } else {
        r.Report("url", std::string(parts.status().message()));
      }
    }
  }
  std::optional<std::string> key_variable;
  if (r.Find("api_key_variable") != nullptr) {
    if (std::optional<std::string> name = r.String("api_key_variable")) {
      if (!IsVariableName(*name)) {
        // Not echoed: a key pasted here instead of its variable's name
        // would otherwise reach the terminal and the logs.
        r.Report("api_key_variable",
                 "expected the name of a variable holding the key (letters, digits and '_', not "
                 "starting with a digit); the value is not shown, since it may be the key itself");
      } else if (!config.variables.contains(*name)) {
        if (!broken_variables.contains(*name)) {
          std::vector<std::string> defined;
          for (const auto& [n, v] : config.variables) defined.push_back(n);
          r.Report("api_key_variable",
                   absl::StrCat(DescribeValue(Json(*name)),
                                " is not a defined variable (defined: ", JoinNames(defined), ")"));
        }
      } else {
        key_variable = *name;
      }
    }
  }
  if (!backend) return;
  if (*backend == "searxng") {
    search.backend = SearchBackendKind::kSearxng;
    r.Require("url", "the SearXNG instance's base URL, such as \"http://127.0.0.1:8888\"");
    if (r.Find("api_key_variable") != nullptr) {
      r.Report("api_key_variable", "only the \"brave\" backend takes an API key");
    }
  } else {
    search.backend = SearchBackendKind::kBrave;
    r.Require("api_key_variable",
              "the name of the variable holding the Brave Search subscription token");
  }
  search.url = url.value_or(search.backend == SearchBackendKind::kBrave ? kBraveSearchUrl : "");
  search.api_key_variable = key_variable.value_or("");
}

void ReadDraft(FieldReader& raven, const Config& config, RavenDraftSettings& draft,
               std::vector<ConfigProblem>& problems) {
  const Json* section = raven.Find("draft");
  if (section == nullptr) return;
  FieldReader r(*section, raven.PathOf("draft"), problems);
  r.RejectUnknownKeys(kRavenDraftKeys);
  if (auto ms = r.SecondsAsMillis("timeout_seconds", kMaxRavenTimeoutSeconds)) {
    draft.timeout_ms = *ms;
  }
  if (auto n = r.Integer("max_output_tokens", 1, kMaxTokenCount)) draft.max_output_tokens = *n;
  const Json* routes = r.Find("routes");
  if (routes == nullptr) return;
  const std::string path = r.PathOf("routes");
  if (!routes->is_array()) {
    problems.push_back({path, absl::StrCat("expected an array of \"provider/model_id\" routes, got ",
                                           DescribeValue(*routes))});
    return;
  }
  if (routes->size() > static_cast<size_t>(kMaxDraftRoutes)) {
    problems.push_back({path, absl::StrCat("at most ", kMaxDraftRoutes, " routes, got ",
                                           routes->size())});
    return;
  }
  for (size_t i = 0; i < routes->size(); ++i) {
    const Json& entry = (*routes)[i];
    const std::string at = IndexPath(path, i);
    if (!entry.is_string()) {
      problems.push_back({at, absl::StrCat("expected a \"provider/model_id\" string, got ",
                                           DescribeValue(entry))});
      continue;
    }
    const std::string route = entry.get<std::string>();
    if (std::find(draft.routes.begin(), draft.routes.end(), route) != draft.routes.end()) {
      problems.push_back({at, absl::StrCat(DescribeValue(entry), " is listed twice")});
      continue;
    }
    if (!ModelForRoute(config, route)) {
      std::vector<std::string> defined;
      for (const auto& [name, model] : config.models) {
        defined.push_back(absl::StrCat(model.provider, "/", model.model_id));
      }
      problems.push_back(
          {at, absl::StrCat(DescribeValue(entry),
                            " names no defined model (expected \"provider/model_id\" of an entry "
                            "under models: ",
                            JoinNames(defined), ")")});
      continue;
    }
    draft.routes.push_back(route);
  }
}

}  // namespace

std::optional<std::string> ModelForRoute(const Config& config, const std::string& route) {
  size_t slash = route.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == route.size()) return std::nullopt;
  const std::string provider = route.substr(0, slash);
  const std::string model_id = route.substr(slash + 1);
  for (const auto& [name, model] : config.models) {
    if (model.provider == provider && model.model_id == model_id) return name;
  }
  return std::nullopt;
}

void ReadRaven(FieldReader& doc, Config& config, const std::set<std::string>& broken_variables,
               std::vector<ConfigProblem>& problems) {
  const Json* section = doc.Find("raven");
  if (section == nullptr) return;
  FieldReader r(*section, "raven", problems);
  if (!r.is_object()) return;
  r.RejectUnknownKeys(kRavenKeys);
  RavenSettings& raven = config.raven;
  ReadVerify(r, raven.verify, problems);
  if (const Json* discovery = r.Find("discovery")) {
    FieldReader d(*discovery, r.PathOf("discovery"), problems);
    d.RejectUnknownKeys(kRavenDiscoveryKeys);
    if (auto enabled = d.Boolean("enabled")) raven.discovery_enabled = *enabled;
  }
  ReadSearch(r, config, broken_variables, raven.search, problems);
  ReadDraft(r, config, raven.draft, problems);
  if (const Json* network = r.Find("network")) {
    FieldReader n(*network, r.PathOf("network"), problems);
    n.RejectUnknownKeys(kRavenNetworkKeys);
    if (auto allow = n.Boolean("allow_private_addresses")) raven.allow_private_addresses = *allow;
  }
}

}  // namespace raw::config
