// The settings of the dashboard's Raven card (plugin namespace
// "raven-research", kept in rawd's database by SetPluginSettings): a partial
// `raven` section whose fields override the config file's, so a change
// takes effect at the next Source check without editing the file.
//
// Only what bounds Raven's own work can be overridden: the Source-check
// limits, discovery on or off, per-query search limits and the draft
// routes and limits. Where rawd connects (the search backend, its URL and
// key, raven.network) stays in the config file: a browser tab must not be
// able to point rawd at other hosts. No field lowers a Task's evidence floor.
//
// The overrides are read by the config's own reader (raven_entry.h), so
// they take the same values and give the same path-specific errors.
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "daemon/config/config.h"

namespace raw::config {

inline constexpr char kRavenSettingsNamespace[] = "raven-research";

// The JSON Schema (draft 7) of the override object: one object per section
// (verify, discovery, search, draft) with "title" and "description" on
// every section and field; the card renders its rows from it.
const Json& RavenOverrideSchema();

// The values `settings` gives the overridable fields, in the override
// object's shape (the search section only when a backend is configured).
Json RavenOverridableValues(const RavenSettings& settings);

// config.raven with `overrides` on top. INVALID_ARGUMENT naming every
// problem at its path ("raven.verify.max_bytes: ...") for a value the config
// file would refuse there or a field that cannot be overridden. Search
// limits while the file configures no backend are dormant: their field
// names are checked, their values neither read nor applied (a save may keep
// them but not set new ones: CheckRavenOverridesSave).
absl::StatusOr<RavenSettings> ApplyRavenOverrides(const Config& config, const Json& overrides);

// config.raven with every override of `overrides` that applies, field by
// field: one the reader refuses now (a draft route naming a model entry
// removed from the file since it was saved) is left out alone, and the
// others stay in force. `broken` maps the path of each one left out
// ("draft.routes"; a section, or "raven" for a non-object, when that is
// the unit) to why. Empty `broken` = ApplyRavenOverrides.
struct AppliedRavenOverrides {
  RavenSettings settings;
  std::map<std::string, std::string> broken;
};
AppliedRavenOverrides ApplyRavenOverridesByField(const Config& config, const Json& overrides);

// The sections whose overrides `settings` (the config file's) leaves out
// of force, each with why, as an object: {"search": "no search backend is
// configured (...)"} while the file configures no backend; else {}.
Json RavenInactiveSections(const RavenSettings& settings);

// Checks a save of the card: `next` replacing the overrides `stored` (the
// object saved now; {} when none). ApplyRavenOverrides's problems, and, in
// a section RavenInactiveSections names, a field set or changed: it could
// not take effect, so it is refused rather than kept silently. Keeping a
// stored value as it is or removing it is accepted, so a dormant override,
// or one that broke since it was saved (ApplyRavenOverridesByField), never
// blocks saving the other rows. INVALID_ARGUMENT naming every problem at
// its path.
absl::Status CheckRavenOverridesSave(const Config& config, const Json& stored, const Json& next);

}  // namespace raw::config
