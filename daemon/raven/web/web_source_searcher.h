// WebSourceSearcher: the production SourceSearcher. It runs one discovery
// batch through the configured web search backend (daemon/search, the same
// client builtin/web_search uses): every query on its own thread at once,
// each under its own deadline (raven.search.timeout_ms), so one slow or
// failing query neither delays past its deadline nor fails the others; a
// failed query comes back as that query's error (the engine records it as a
// `tool` Limitation). Only the caller's `cancel` aborts the whole batch.
//
// It reports observations only: ranked results per query. Merging
// (round-robin by rank), URL folding, the batch caps and the Limitations are
// the engine's (engine_discover.cc).
//
// Settings are read from the source at every call, so a change takes effect
// on the next batch. Unavailable() names why discovery cannot run: withheld
// by raven.discovery.enabled, no backend configured, or no HTTP client.
// Thread-safe if the client and the key resolver are.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/config/raven_settings.h"
#include "daemon/http/http_client.h"
#include "daemon/raven/seams.h"

namespace raw::raven::web {

// Resolves the value of a config variable (variables.<NAME>) by name.
using VariableResolver = std::function<absl::StatusOr<std::string>(const std::string& name)>;

class WebSourceSearcher : public SourceSearcher {
 public:
  // `http` null = no HTTP client (discovery is unavailable). `resolve`
  // reads the brave backend's api_key_variable; null = no variables.
  // `extra_allow_private`: also connect to non-public addresses when the
  // caller allows them on its own account (the agent's
  // allow_private_addresses).
  WebSourceSearcher(http::HttpClient* http, const config::RavenSettingsSource& settings,
                    VariableResolver resolve, bool extra_allow_private = false)
      : http_(http),
        settings_(settings),
        resolve_(std::move(resolve)),
        extra_allow_private_(extra_allow_private) {}

  std::optional<std::string> Unavailable() const override;
  std::vector<SearchAnswer> Search(const std::vector<std::string>& queries, size_t max_results,
                                   const CancelToken& cancel) override;

 private:
  http::HttpClient* http_;
  const config::RavenSettingsSource& settings_;
  VariableResolver resolve_;
  bool extra_allow_private_;
};

// Why the configured backend cannot be used at all, or nullopt (shared with
// builtin/web_search).
std::optional<std::string> SearchUnavailable(const config::RavenSettings& settings,
                                             const http::HttpClient* http);

// The brave backend's subscription token from its variable; "" for
// searxng. Errors name the variable, never a value.
absl::StatusOr<std::string> SearchApiKey(const config::RavenSearchSettings& search,
                                         const VariableResolver& resolve);

}  // namespace raw::raven::web
