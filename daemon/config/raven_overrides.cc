#include "daemon/config/raven_overrides.h"

#include <map>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/model_entry.h"
#include "daemon/config/raven_entry.h"

namespace raw::config {
namespace {

// Section -> the fields the card may override.
const std::map<std::string, std::set<std::string>>& Overridable() {
  static const auto* fields = new std::map<std::string, std::set<std::string>>{
      {"verify",
       {"fetch_timeout_seconds", "total_timeout_seconds", "max_bytes", "max_parallel_fetches"}},
      {"discovery", {"enabled"}},
      {"search", {"timeout_seconds", "max_results"}},
      {"draft", {"routes", "timeout_seconds", "max_output_tokens"}},
  };
  return *fields;
}

Json Seconds(const char* title, const char* description) {
  return Json{{"type", "number"},
              {"exclusiveMinimum", 0},
              {"maximum", kMaxRavenTimeoutSeconds},
              {"title", title},
              {"description", description}};
}

// "x-order" keeps the card's order (a JSON object's keys have none).
Json Section(int order, const char* title, const char* description,
             std::vector<std::pair<const char*, Json>> fields) {
  Json properties = Json::object();
  int position = 0;
  for (auto& [name, rule] : fields) {
    rule["x-order"] = position++;
    properties[name] = std::move(rule);
  }
  return Json{{"type", "object"},
              {"x-order", order},
              {"additionalProperties", false},
              {"title", title},
              {"description", description},
              {"properties", std::move(properties)}};
}

Json BuildSchema() {
  Json verify =
      Section(0, "Source checks", "How Sources are reopened when a Task checkpoints and completes.",
              {{"fetch_timeout_seconds",
                Seconds("Page timeout (s)", "One Source page, redirects included.")},
               {"total_timeout_seconds",
                Seconds("Check timeout (s)", "Every Source of one check together.")},
               {"max_bytes",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"maximum", int64_t{1} << 30},
                 {"title", "Page size limit (bytes)"},
                 {"description", "A longer page counts as unavailable, never as failed."}}},
               {"max_parallel_fetches",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"maximum", kMaxRavenParallelFetches},
                 {"title", "Pages at once"},
                 {"description", "Source pages fetched at the same time during one check."}}}});
  Json discovery = Section(
      1, "Discovery", "Finding Leads with the configured search backend.",
      {{"enabled", {{"type", "boolean"},
                    {"title", "Discovery on"},
                    {"description", "Off: the discover action reports unavailable."}}}});
  Json search = Section(
      2, "Search", "Per-query limits of the search backend (set in the config file).",
      {{"timeout_seconds", Seconds("Query timeout (s)", "One search query.")},
       {"max_results", {{"type", "integer"},
                        {"minimum", 1},
                        {"maximum", kMaxSearchResults},
                        {"title", "Results per query"},
                        {"description", "Candidates asked for per query."}}}});
  Json draft = Section(
      3, "Drafting", "Candidate wording from other models; drafts are never evidence.",
      {{"routes", {{"type", "array"},
                   {"maxItems", kMaxDraftRoutes},
                   {"uniqueItems", true},
                   {"items", {{"type", "string"}, {"pattern", "^[^/]+/.+$"}}},
                   {"title", "Draft routes"},
                   {"description", "One provider/model route per line, each a model entry of "
                                   "the config; none turns drafting off."}}},
       {"timeout_seconds", Seconds("Route timeout (s)", "One route's draft.")},
       {"max_output_tokens", {{"type", "integer"},
                              {"minimum", 1},
                              {"maximum", kMaxTokenCount},
                              {"title", "Tokens per draft"},
                              {"description", "The output cap of one variant."}}}});
  return Json{{"$schema", "http://json-schema.org/draft-07/schema#"},
              {"type", "object"},
              {"additionalProperties", false},
              {"properties",
               {{"verify", verify}, {"discovery", discovery}, {"search", search}, {"draft", draft}}}};
}

double AsSeconds(int64_t ms) { return static_cast<double>(ms) / 1000.0; }

constexpr char kNoSearchBackend[] =
    "no search backend is configured (raven.search.backend in the config file)";

}  // namespace

const Json& RavenOverrideSchema() {
  static const Json* schema = new Json(BuildSchema());
  return *schema;
}

Json RavenOverridableValues(const RavenSettings& s) {
  Json values = {
      {"verify",
       {{"fetch_timeout_seconds", AsSeconds(s.verify.fetch_timeout_ms)},
        {"total_timeout_seconds", AsSeconds(s.verify.total_timeout_ms)},
        {"max_bytes", s.verify.max_bytes},
        {"max_parallel_fetches", s.verify.max_parallel_fetches}}},
      {"discovery", {{"enabled", s.discovery_enabled}}},
      {"draft",
       {{"routes", s.draft.routes},
        {"timeout_seconds", AsSeconds(s.draft.timeout_ms)},
        {"max_output_tokens", s.draft.max_output_tokens}}},
  };
  if (s.search.backend != SearchBackendKind::kNone) {
    values["search"] = {{"timeout_seconds", AsSeconds(s.search.timeout_ms)},
                        {"max_results", s.search.max_results}};
  }
  return values;
}

absl::StatusOr<RavenSettings> ApplyRavenOverrides(const Config& config, const Json& overrides) {
  std::vector<ConfigProblem> problems;
  if (!overrides.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("raven: expected an object, got ", DescribeValue(overrides)));
  }
  Json section = overrides;
  for (const auto& [name, value] : overrides.items()) {
    const std::string path = absl::StrCat("raven.", name);
    auto fields = Overridable().find(name);
    if (fields == Overridable().end()) {
      problems.push_back({path, name == "network" ? "set in the config file only: a browser may "
                                                    "not widen where rawd connects"
                                                  : "not a setting of Raven's card"});
      continue;
    }
    if (!value.is_object()) continue;  // the reader reports it
    for (const auto& [field, unused] : value.items()) {
      if (!fields->second.contains(field)) {
        problems.push_back({absl::StrCat(path, ".", field),
                            name == "search" && (field == "backend" || field == "url" ||
                                                 field == "api_key_variable")
                                ? "set in the config file only: a browser may not choose "
                                  "where rawd connects"
                                : "not a setting of Raven's card"});
      }
    }
    if (name == "search") {
      const RavenSearchSettings& search = config.raven.search;
      if (search.backend == SearchBackendKind::kNone) {
        // Dormant, not refused: a search override saved while a backend
        // was configured must not keep every other override out of force
        // or every later save refused (the card shows it as not in effect,
        // and CheckRavenOverridesSave refuses setting a new one). It
        // applies again with a backend.
        section.erase(name);
        continue;
      }
      // What the reader requires of a search section comes from the file.
      Json& s = section[name];
      s["backend"] = search.backend == SearchBackendKind::kSearxng ? "searxng" : "brave";
      s["url"] = search.url;
      if (!search.api_key_variable.empty()) s["api_key_variable"] = search.api_key_variable;
    }
  }
  if (problems.empty()) {
    Config copy = config;
    // Routes given replace the file's list; the reader appends to it.
    if (section.contains("draft") && section["draft"].is_object() &&
        section["draft"].contains("routes")) {
      copy.raven.draft.routes.clear();
    }
    Json doc = {{"raven", section}};
    FieldReader root(doc, "", problems);
    ReadRaven(root, copy, {}, problems);
    if (problems.empty()) return copy.raven;
  }
  std::vector<std::string> lines;
  for (const ConfigProblem& p : problems) lines.push_back(absl::StrCat(p.path, ": ", p.message));
  return absl::InvalidArgumentError(absl::StrJoin(lines, "; "));
}

AppliedRavenOverrides ApplyRavenOverridesByField(const Config& config, const Json& overrides) {
  AppliedRavenOverrides out{config.raven, {}};
  absl::StatusOr<RavenSettings> all = ApplyRavenOverrides(config, overrides);
  if (all.ok()) {
    out.settings = *all;
    return out;
  }
  if (!overrides.is_object()) {
    out.broken["raven"] = std::string(all.status().message());
    return out;
  }
  // The units: each field of an object section, else the section.
  std::vector<std::pair<std::string, std::string>> pending;  // section, field ("" = whole)
  for (const auto& [name, value] : overrides.items()) {
    if (!value.is_object()) {
      pending.push_back({name, ""});
      continue;
    }
    for (const auto& [field, unused] : value.items()) pending.push_back({name, field});
  }
  // Each unit is tried with the ones accepted so far, again while any is
  // accepted, so one that needs another (a page timeout within a raised
  // check timeout) is not left out for the order alone.
  Json accepted = Json::object();
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      const auto& [name, field] = *it;
      Json candidate = accepted;
      if (field.empty()) {
        candidate[name] = overrides[name];
      } else {
        candidate[name][field] = overrides[name][field];
      }
      absl::StatusOr<RavenSettings> applied = ApplyRavenOverrides(config, candidate);
      const std::string path = field.empty() ? name : absl::StrCat(name, ".", field);
      if (applied.ok()) {
        accepted = std::move(candidate);
        out.settings = *applied;
        out.broken.erase(path);
        it = pending.erase(it);
        progress = true;
      } else {
        out.broken[path] = std::string(applied.status().message());
        ++it;
      }
    }
  }
  return out;
}

Json RavenInactiveSections(const RavenSettings& settings) {
  Json inactive = Json::object();
  if (settings.search.backend == SearchBackendKind::kNone) inactive["search"] = kNoSearchBackend;
  return inactive;
}

absl::Status CheckRavenOverridesSave(const Config& config, const Json& stored, const Json& next) {
  std::vector<std::string> lines;
  const Json inactive = RavenInactiveSections(config.raven);
  if (next.is_object()) {
    for (const auto& [name, why] : inactive.items()) {
      if (!next.contains(name)) continue;
      const Json& now = next[name];
      const Json before =
          stored.is_object() && stored.contains(name) ? stored[name] : Json::object();
      const std::string refusal =
          absl::StrCat("would not be in effect: ", why.get<std::string>(),
                       "; a value saved before can only be kept or removed");
      if (!now.is_object() || !before.is_object()) {
        if (now != before) lines.push_back(absl::StrCat("raven.", name, ": ", refusal));
        continue;
      }
      for (const auto& [field, value] : now.items()) {
        if (!before.contains(field) || before[field] != value) {
          lines.push_back(absl::StrCat("raven.", name, ".", field, ": ", refusal));
        }
      }
    }
  }
  // A value that broke since it was saved (its route's model was removed
  // from the file) may be kept as it is; a new or changed one must apply.
  const AppliedRavenOverrides applied = ApplyRavenOverridesByField(config, next);
  for (const auto& [path, why] : applied.broken) {
    const size_t dot = path.find('.');
    const std::string section = path.substr(0, dot);
    const std::string field = dot == std::string::npos ? "" : path.substr(dot + 1);
    const auto value_at = [&](const Json& j) -> const Json* {
      if (!j.is_object() || !j.contains(section)) return nullptr;
      const Json& s = j[section];
      if (field.empty()) return &s;
      return s.is_object() && s.contains(field) ? &s[field] : nullptr;
    };
    const Json* before = value_at(stored);
    const Json* now = value_at(next);
    if (path == "raven" || before == nullptr || now == nullptr || *before != *now) {
      lines.push_back(why);
    }
  }
  if (lines.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(lines, "; "));
}

}  // namespace raw::config
