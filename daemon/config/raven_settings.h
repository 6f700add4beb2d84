// RavenSettings: the `raven` section of config.json, the deployment's
// settings of builtin/raven_task (Source checks, discovery, drafting) and of
// the web search backend that builtin/web_search shares with Raven's
// discovery. Plain values, validated by the loader (raven_entry.h).
//
// Everything that reads them reads them through a RavenSettingsSource at the
// moment it needs them (every Source check, every discovery batch, every
// draft round), so a layer that overrides the config (a settings store) can
// sit on top of the config's values without the readers changing. No field
// here can lower a Task's evidence floor: they bound how Sources are
// reopened, how Leads are found and which routes draft, never what counts as
// verified.
//
// Thread-safety: the struct is a value; RavenSettingsSource implementations
// must be safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace raw::config {

// raven.search.backend; kNone = no backend is configured.
enum class SearchBackendKind { kNone, kSearxng, kBrave };

// The endpoint builtin/web_search and Raven's discovery call for the brave
// backend unless raven.search.url replaces it.
inline constexpr char kBraveSearchUrl[] = "https://api.search.brave.com/res/v1/web/search";

struct RavenSearchSettings {
  SearchBackendKind backend = SearchBackendKind::kNone;
  // searxng: the instance's base URL ("{url}/search?q=...&format=json");
  // brave: the endpoint (default kBraveSearchUrl).
  std::string url;
  // brave: the name of the variable (variables.<NAME>) holding the
  // subscription token sent as X-Subscription-Token. Never the token itself.
  std::string api_key_variable;
  int64_t timeout_ms = 30000;  // one query
  int64_t max_results = 8;     // results asked for per query

  bool operator==(const RavenSearchSettings&) const = default;
};

struct RavenVerifySettings {
  int64_t fetch_timeout_ms = 15000;      // one Source page, redirects included
  int64_t total_timeout_ms = 60000;      // every Source of one check
  int64_t max_bytes = 5 * 1024 * 1024;  // of one page; beyond it: truncated
  int64_t max_parallel_fetches = 4;     // distinct Source URLs fetched at once

  bool operator==(const RavenVerifySettings&) const = default;
};

struct RavenDraftSettings {
  // "provider/model_id" of entries under `models` (split at the first
  // '/'); at most 4; empty = drafting is off.
  std::vector<std::string> routes;
  int64_t timeout_ms = 120000;     // one route
  int64_t max_output_tokens = 4000;  // one variant

  bool operator==(const RavenDraftSettings&) const = default;
};

struct RavenSettings {
  RavenVerifySettings verify;
  // raven.discovery.enabled: false withholds `discover` (it reports
  // unavailable with the setting named) even with a search backend.
  bool discovery_enabled = true;
  RavenSearchSettings search;
  RavenDraftSettings draft;
  // raven.network.allow_private_addresses: Source checks and search
  // requests may connect to loopback, private and link-local addresses.
  bool allow_private_addresses = false;

  bool operator==(const RavenSettings&) const = default;
};

// Where readers get the settings in force.
class RavenSettingsSource {
 public:
  virtual ~RavenSettingsSource() = default;
  virtual RavenSettings Current() const = 0;
};

// Settings that never change: the config's own section (an override layer
// replaces this with one that consults its store first).
class FixedRavenSettings : public RavenSettingsSource {
 public:
  explicit FixedRavenSettings(RavenSettings settings) : settings_(std::move(settings)) {}
  RavenSettings Current() const override { return settings_; }

 private:
  RavenSettings settings_;
};

}  // namespace raw::config
