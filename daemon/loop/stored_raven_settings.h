// StoredRavenSettings: the Raven settings in force for a turn: the config
// file's `raven` section with the dashboard card's overrides on top
// (plugin namespace "raven-research", config/raven_overrides.h), read from
// the store at every Current() call, so a saved change takes effect at the
// next Source check, discovery batch or draft round without a restart.
//
// Overrides that no longer fit the config (a draft route whose model entry
// was removed from the file since) or cannot be read leave the config's
// values in force; the first such failure is logged. Thread-safe.
#pragma once

#include <atomic>
#include <utility>

#include "daemon/config/config.h"
#include "daemon/config/raven_settings.h"
#include "daemon/store/session_store.h"

namespace raw::loop {

class StoredRavenSettings : public config::RavenSettingsSource {
 public:
  // `config` is the config the turn was planned with; `store` outlives this.
  StoredRavenSettings(config::Config config, store::SessionStore& store)
      : config_(std::move(config)), store_(store) {}

  config::RavenSettings Current() const override;

 private:
  const config::Config config_;
  store::SessionStore& store_;
  mutable std::atomic<bool> warned_{false};
};

}  // namespace raw::loop
