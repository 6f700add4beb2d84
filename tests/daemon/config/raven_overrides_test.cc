// The Raven card's overrides of the config's `raven` section: applied over
// the file's values, checked by the config's own reader, limited to what
// bounds Raven's work, and described by a schema whose fields and bounds
// are the reader's.
#include "daemon/config/raven_overrides.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::testing::HasSubstr;

// Model "flash" (deepseek/deepseek-chat) and a SearXNG backend.
Config WithSearch() {
  absl::StatusOr<Config> config = ParseConfig(
      R"({"models": {"flash": )" + testing::ModelJson() +
      R"(}, "raven": {"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"},
                      "draft": {"routes": ["deepseek/deepseek-chat"]}}})");
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : Config{};
}

std::string Error(const Config& config, const std::string& overrides) {
  absl::StatusOr<RavenSettings> applied = ApplyRavenOverrides(config, Json::parse(overrides));
  EXPECT_FALSE(applied.ok()) << overrides;
  return applied.ok() ? "" : std::string(applied.status().message());
}

TEST(RavenOverridesTest, OverridesApplyOverTheFilesValues) {
  const Config config = WithSearch();
  absl::StatusOr<RavenSettings> applied = ApplyRavenOverrides(config, Json::parse(R"({
    "verify": {"fetch_timeout_seconds": 2.5, "max_parallel_fetches": 2},
    "discovery": {"enabled": false},
    "search": {"max_results": 3},
    "draft": {"routes": []}
  })"));
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->verify.fetch_timeout_ms, 2500);
  EXPECT_EQ(applied->verify.max_parallel_fetches, 2);
  EXPECT_EQ(applied->verify.total_timeout_ms, config.raven.verify.total_timeout_ms);
  EXPECT_FALSE(applied->discovery_enabled);
  EXPECT_EQ(applied->search.max_results, 3);
  // What the file says about where rawd connects stays.
  EXPECT_EQ(applied->search.backend, SearchBackendKind::kSearxng);
  EXPECT_EQ(applied->search.url, config.raven.search.url);
  EXPECT_TRUE(applied->draft.routes.empty());  // replaced, not appended to
  absl::StatusOr<RavenSettings> none = ApplyRavenOverrides(config, Json::object());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, config.raven);
}

TEST(RavenOverridesTest, BadValuesAreNamedAtTheirPaths) {
  const Config config = WithSearch();
  EXPECT_THAT(Error(config, R"({"verify": {"max_bytes": 0}})"), HasSubstr("raven.verify.max_bytes"));
  EXPECT_THAT(Error(config, R"({"draft": {"routes": ["openai/none"]}})"),
              HasSubstr("raven.draft.routes[0]: \"openai/none\" names no defined model"));
  EXPECT_THAT(Error(config, R"({"network": {"allow_private_addresses": true}})"),
              HasSubstr("raven.network: set in the config file only"));
  EXPECT_THAT(Error(config, R"({"search": {"url": "http://10.0.0.1"}})"),
              HasSubstr("raven.search.url: set in the config file only"));
  EXPECT_THAT(Error(config, R"({"verify": {"depth": 2}})"),
              HasSubstr("raven.verify.depth: not a setting of Raven's card"));
  EXPECT_THAT(Error(config, R"([1])"), HasSubstr("raven: expected an object"));
  EXPECT_THAT(Error(Config{}, R"({"search": {"url": "http://10.0.0.1"}})"),
              HasSubstr("raven.search.url: set in the config file only"));
}

// A stale override (a draft route whose model entry left the file) is left
// out alone: the other overrides stay in force, the broken one is named at
// its path, and a save may keep it as it is but not set a broken value.
TEST(RavenOverridesTest, OneBrokenOverrideLeavesTheOthersInForce) {
  const Config config = WithSearch();
  const Json stored = Json::parse(R"({
    "verify": {"fetch_timeout_seconds": 2.5},
    "draft": {"routes": ["openai/none"], "timeout_seconds": 7}
  })");
  AppliedRavenOverrides applied = ApplyRavenOverridesByField(config, stored);
  EXPECT_EQ(applied.settings.verify.fetch_timeout_ms, 2500);
  EXPECT_EQ(applied.settings.draft.timeout_ms, 7000);
  EXPECT_EQ(applied.settings.draft.routes, config.raven.draft.routes);
  ASSERT_EQ(applied.broken.size(), 1u);
  EXPECT_THAT(applied.broken["draft.routes"], HasSubstr("\"openai/none\" names no defined model"));

  Json next = stored;
  next["verify"]["max_bytes"] = 4096;
  EXPECT_TRUE(CheckRavenOverridesSave(config, stored, next).ok());
  next["draft"]["routes"] = {"openai/other"};
  EXPECT_THAT(CheckRavenOverridesSave(config, stored, next).message(),
              HasSubstr("raven.draft.routes[0]"));

  AppliedRavenOverrides clean =
      ApplyRavenOverridesByField(config, Json::parse(R"({"discovery": {"enabled": false}})"));
  EXPECT_TRUE(clean.broken.empty());
  EXPECT_FALSE(clean.settings.discovery_enabled);
  EXPECT_EQ(ApplyRavenOverridesByField(config, Json::parse("[1]")).broken.count("raven"), 1u);
}

// A search override stored while a backend was configured outlives the
// backend's removal from the file: it is dormant, and every other override
// still applies (and a save that keeps it is accepted).
TEST(RavenOverridesTest, ASearchOverrideWithoutABackendIsDormant) {
  const Config config;  // no raven.search
  absl::StatusOr<RavenSettings> applied = ApplyRavenOverrides(
      config, Json::parse(R"({"search": {"max_results": 3}, "verify": {"max_bytes": 4096}})"));
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->verify.max_bytes, 4096);
  EXPECT_EQ(applied->search, config.raven.search);
  const Config with = WithSearch();
  absl::StatusOr<RavenSettings> again =
      ApplyRavenOverrides(with, Json::parse(R"({"search": {"max_results": 3}})"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->search.max_results, 3);
}

// A save without a backend may keep a stored search limit or remove it,
// but setting or changing one (which could not take effect) is refused at
// its path, beside the reader's own problems; with a backend it is taken.
TEST(RavenOverridesTest, ASaveSetsNoSearchLimitWithoutABackend) {
  const Config config;  // no raven.search
  EXPECT_EQ(RavenInactiveSections(config.raven),
            Json({{"search",
                   "no search backend is configured (raven.search.backend in the "
                   "config file)"}}));
  EXPECT_EQ(RavenInactiveSections(WithSearch().raven), Json::object());
  const Json stored = Json::parse(R"({"search": {"max_results": 3, "timeout_seconds": 2}})");
  auto check = [&](const Config& c, const Json& before, const char* next) {
    return CheckRavenOverridesSave(c, before, Json::parse(next));
  };
  EXPECT_TRUE(check(config, stored, R"({"search": {"max_results": 3}, "verify": {}})").ok());
  EXPECT_TRUE(check(config, stored, R"({"verify": {"max_bytes": 4096}})").ok());
  absl::Status changed = check(config, stored,
                               R"({"search": {"max_results": 4, "timeout_seconds": 2},
                                   "verify": {"max_bytes": 0}})");
  EXPECT_TRUE(absl::IsInvalidArgument(changed)) << changed;
  EXPECT_THAT(changed.message(),
              HasSubstr("raven.search.max_results: would not be in effect: no search backend is "
                        "configured (raven.search.backend in the config file); a value saved "
                        "before can only be kept or removed"));
  EXPECT_THAT(changed.message(), ::testing::Not(HasSubstr("raven.search.timeout_seconds")));
  EXPECT_THAT(changed.message(), HasSubstr("raven.verify.max_bytes"));
  EXPECT_THAT(check(config, Json::object(), R"({"search": {"max_results": 3}})").message(),
              HasSubstr("raven.search.max_results: would not be in effect"));
  EXPECT_THAT(check(config, stored, R"({"search": 7})").message(),
              HasSubstr("raven.search: would not be in effect"));
  EXPECT_TRUE(check(WithSearch(), Json::object(), R"({"search": {"max_results": 4}})").ok());
}

// Every field of the schema is a field of the values, and the reader takes
// each bound the schema states and refuses just beyond it.
TEST(RavenOverridesTest, TheSchemaStatesTheReadersFieldsAndBounds) {
  const Config config = WithSearch();
  const Json values = RavenOverridableValues(config.raven);
  const Json& sections = RavenOverrideSchema()["properties"];
  ASSERT_EQ(sections.size(), values.size());
  for (const auto& [section, schema] : sections.items()) {
    ASSERT_TRUE(values.contains(section)) << section;
    EXPECT_FALSE(schema.value("title", "").empty()) << section;
    ASSERT_EQ(schema["properties"].size(), values[section].size()) << section;
    for (const auto& [field, rule] : schema["properties"].items()) {
      const std::string at = absl::StrCat(section, ".", field);
      ASSERT_TRUE(values[section].contains(field)) << at;
      EXPECT_FALSE(rule.value("title", "").empty()) << at;
      EXPECT_FALSE(rule.value("description", "").empty()) << at;
      // Copies: a lambda may not capture structured bindings (before C++20
      // compilers that implement P1091).
      auto with = [section = std::string(section), field = std::string(field)](
                      const Json& value) { return Json{{section, {{field, value}}}}; };
      if (rule.contains("maximum")) {
        const int64_t max = rule["maximum"].get<int64_t>();
        EXPECT_TRUE(ApplyRavenOverrides(config, with(max)).ok()) << at;
        EXPECT_FALSE(ApplyRavenOverrides(config, with(max + 1)).ok()) << at;
      }
      if (rule.contains("minimum")) {
        const int64_t min = rule["minimum"].get<int64_t>();
        EXPECT_TRUE(ApplyRavenOverrides(config, with(min)).ok()) << at;
        EXPECT_FALSE(ApplyRavenOverrides(config, with(min - 1)).ok()) << at;
      }
      if (rule.contains("exclusiveMinimum")) {
        EXPECT_FALSE(ApplyRavenOverrides(config, with(rule["exclusiveMinimum"])).ok()) << at;
      }
      // The file's own value is always accepted back.
      EXPECT_TRUE(ApplyRavenOverrides(config, with(values[section][field])).ok()) << at;
    }
  }
}

}  // namespace
}  // namespace raw::config
