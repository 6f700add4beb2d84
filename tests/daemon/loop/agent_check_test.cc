// The config check's look at the agents reads the packages of every agent
// through one loader: a store entry that many agents use is scanned once per
// check, and each agent still gets its own error, naming its own JSON path.
#include "daemon/loop/agent_check.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/config/config_loader.h"
#include "daemon/packages/package_ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::loop {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const std::string kExample = std::string(RAW_SOURCE_DIR) + "/docs/examples/review-kit";

constexpr char kAgentCheckModels[] =
    R"("models": {"m": {"method": "openai-chat-completions", "model_id": "x",
                        "base_url": "http://127.0.0.1:1/v1"}})";

class AgentCheckTest : public ::testing::Test {
 protected:
  AgentCheckTest() {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-agents-XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    store_.emplace(dir_ + "/data/packages");
    config_path_ = dir_ + "/config.json";
  }
  ~AgentCheckTest() override { (void)packages::RemoveTree(dir_); }

  // `agents` is the JSON of the config's "agents" member.
  config::Config Load(const std::string& agents) {
    std::ofstream(config_path_) << absl::StrCat("{", kAgentCheckModels, R"(, "agents": )", agents,
                                                "}");
    absl::StatusOr<config::Config> cfg = config::LoadConfigFile(config_path_);
    EXPECT_TRUE(cfg.ok()) << cfg.status();
    return cfg.value_or(config::Config{});
  }

  std::string dir_;
  std::string config_path_;
  std::optional<packages::PackageStore> store_;
};

TEST_F(AgentCheckTest, AnEntryManyAgentsExtendIsReadOnce) {
  auto installed =
      packages::Install(packages::PackageContext{*store_, config_path_, nullptr}, kExample, "rk");
  ASSERT_TRUE(installed.ok()) << installed.status();
  std::string agents = "{";
  for (int i = 0; i < 6; ++i) {
    absl::StrAppend(&agents, i == 0 ? "" : ",", "\"a", i,
                    R"(": {"model": "m", "extends": "pkg/rk/agent/reviewer"})");
  }
  config::Config cfg = Load(agents + "}");
  std::vector<std::string> reads;
  store_->set_read_hook_for_testing([&reads](const std::string& dir) { reads.push_back(dir); });

  std::vector<std::string> errors;
  CheckAgents(cfg, *store_, errors);
  EXPECT_THAT(errors, IsEmpty());
  EXPECT_THAT(reads, ElementsAre(store_->EntryDir(installed->hash)));
}

TEST_F(AgentCheckTest, EachAgentOfABrokenReferenceGetsItsOwnError) {
  config::Config cfg = Load(R"({
      "a": {"model": "m", "extends": "pkg/nosuch/agent/x"},
      "b": {"model": "m", "skills": ["pkg/nosuch/skill/y"]}})");
  std::vector<std::string> errors;
  CheckAgents(cfg, *store_, errors);
  const std::string missing = absl::StrCat("no package is installed as \"nosuch\" for ",
                                           config_path_, " (raw package install PATH --as nosuch)");
  EXPECT_THAT(errors, ElementsAre(absl::StrCat("agents.a.extends: ", missing),
                                  absl::StrCat("agents.b.skills[0]: ", missing)));
}

}  // namespace
}  // namespace raw::loop
