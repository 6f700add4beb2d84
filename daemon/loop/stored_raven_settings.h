// StoredRavenSettings: the Raven settings in force for a turn: the config
// file's `raven` section with the dashboard card's overrides on top
// (plugin namespace "raven-research", config/raven_overrides.h), read from
// the store at every Current() call, so a saved change takes effect at the
// next Source check, discovery batch or draft round without a restart.
//
// The overrides apply field by field (config::ApplyRavenOverridesByField):
// one that no longer fits the config (a draft route whose model entry was
// removed from the file since) leaves only its own field at the config's
// value; stored settings that cannot be read leave every field so. Each
// distinct problem is logged once per process (not once per turn: an
// instance lives for one turn's plan), and again only after it changed or
// was gone. Thread-safe.
#pragma once

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
};

}  // namespace raw::loop
