#include "daemon/loop/stored_raven_settings.h"

#include "common/json.h"
#include "common/logging.h"
#include "daemon/config/raven_overrides.h"

namespace raw::loop {

config::RavenSettings StoredRavenSettings::Current() const {
  absl::StatusOr<store::PluginSettings> stored =
      store_.GetPluginSettings(config::kRavenSettingsNamespace);
  absl::StatusOr<config::RavenSettings> applied =
      stored.ok() ? [&]() -> absl::StatusOr<config::RavenSettings> {
        absl::StatusOr<Json> overrides = ParseJson(stored->settings_json);
        if (!overrides.ok()) return overrides.status();
        return config::ApplyRavenOverrides(config_, *overrides);
      }()
                  : absl::StatusOr<config::RavenSettings>(stored.status());
  if (applied.ok()) return *applied;
  if (!warned_.exchange(true)) {
    RAW_LOG(Warning) << "the Raven card's settings are not applied, the config file's are: "
                     << applied.status();
  }
  return config_.raven;
}

}  // namespace raw::loop
