#include "daemon/loop/stored_raven_settings.h"

#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/logging.h"
#include "daemon/config/raven_overrides.h"

namespace raw::loop {
namespace {

// Logs `problem` unless it is the one logged last; "" = no problem now (the
// next one is logged even if it is the one of before).
void WarnOnChange(const std::string& problem) {
  static std::mutex mu;
  static std::string* last = new std::string;
  std::lock_guard<std::mutex> lock(mu);
  if (problem == *last) return;
  *last = problem;
  if (!problem.empty()) RAW_LOG(Warning) << problem;
}

}  // namespace

config::RavenSettings StoredRavenSettings::Current() const {
  absl::StatusOr<store::PluginSettings> stored =
      store_.GetPluginSettings(config::kRavenSettingsNamespace);
  absl::StatusOr<Json> overrides =
      stored.ok() ? ParseJson(stored->settings_json) : absl::StatusOr<Json>(stored.status());
  if (!overrides.ok()) {
    WarnOnChange(absl::StrCat("the Raven card's settings are not applied, the config file's are: ",
                              overrides.status().ToString()));
    return config_.raven;
  }
  config::AppliedRavenOverrides applied = config::ApplyRavenOverridesByField(config_, *overrides);
  std::string problem;
  for (const auto& [path, why] : applied.broken) {
    absl::StrAppend(&problem, problem.empty() ? "" : "; ", why);
  }
  WarnOnChange(problem.empty() ? ""
                               : absl::StrCat("some of the Raven card's settings are not applied "
                                              "(the config file's values are): ",
                                              problem));
  return applied.settings;
}

}  // namespace raw::loop
