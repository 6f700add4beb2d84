// The Raven settings a turn runs with: the config file's `raven` section
// with the dashboard card's overrides on top, each applied on its own, and a
// problem with them logged once per change rather than once per turn.
#include "daemon/loop/stored_raven_settings.h"

#include <string>

#include "common/logging.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/raven_overrides.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

config::Config RavenConfigWithRoute() {
  absl::StatusOr<config::Config> parsed =
      config::ParseConfig(R"({"models": {"flash": )" + config::testing::ModelJson() +
                          R"(}, "raven": {"draft": {"routes": ["deepseek/deepseek-chat"]}}})");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : config::Config{};
}

TEST(StoredRavenSettingsTest, AStaleOverrideIsDroppedAloneAndWarnedOncePerChange) {
  testing::TempStore temp;
  store::SessionStore& store = temp.store();
  ASSERT_TRUE(store
                  .SetPluginSettings(config::kRavenSettingsNamespace,
                                     R"({"verify": {"max_bytes": 4096},
                                         "draft": {"routes": ["removed/model"]}})",
                                     0)
                  .ok());
  int warnings = 0;
  SetLogFilter([&warnings](const std::string& text) {
    if (text.find("Raven card") != std::string::npos) ++warnings;
    return text;
  });
  const config::Config config = RavenConfigWithRoute();
  for (int turn = 0; turn < 3; ++turn) {
    StoredRavenSettings settings(config, store);  // one per turn's plan
    config::RavenSettings now = settings.Current();
    EXPECT_EQ(now.verify.max_bytes, 4096) << "the valid override stays in force";
    EXPECT_EQ(now.draft.routes, config.raven.draft.routes) << "the stale route is left out";
    now = settings.Current();
  }
  EXPECT_EQ(warnings, 1);
  ASSERT_TRUE(store
                  .SetPluginSettings(config::kRavenSettingsNamespace,
                                     R"({"draft": {"routes": ["gone/too"]}})", 1)
                  .ok());
  StoredRavenSettings(config, store).Current();
  StoredRavenSettings(config, store).Current();
  EXPECT_EQ(warnings, 2) << "a changed problem is logged again, once";
  SetLogFilter(nullptr);
}

}  // namespace
}  // namespace raw::loop
