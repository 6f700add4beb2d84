// Protected paths: the built-in deny rules for where secrets live, put
// before the agent's own rules, and lifted only by name.

#include "daemon/tools/policy/protected_paths.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using ::testing::HasSubstr;
using tools::testing::TempDir;

class ProtectedPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = {{"HOME", home_.path()}};
    config_.source_path = home_.Join("project/raw.json");
    config::VariableConfig key;
    key.name = "KEY";
    key.source = config::VariableSource::kFile;
    key.file = home_.Join("keys/openai");
    config_.variables["KEY"] = key;
    agent_.name = "coder";
  }
  EnvLookup Env() {
    return [this](const std::string& name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }
  RuleSet Rules(std::vector<config::RuleConfig> agent_rules = {}) {
    agent_.rules = std::move(agent_rules);
    auto set = RuleSet::Compile(agent_.rules, "agents.coder.rules");
    EXPECT_TRUE(set.ok()) << set.status();
    EXPECT_TRUE(set->PrependRules(ProtectedPathRules(ProtectedPaths(config_, Env()), agent_)).ok());
    return *std::move(set);
  }
  Decision Read(const RuleSet& rules, const std::string& path,
                ApprovalMode mode = ApprovalMode::kDefault) {
    return rules.Evaluate(read_, Json{{"path", path}}, home_.path(), mode);
  }

  TempDir home_;
  std::map<std::string, std::string> env_;
  config::Config config_;
  config::AgentConfig agent_;
  ToolSpec read_ = builtin::MakeReadFileTool();
};

TEST_F(ProtectedPathsTest, EverySecretStoreIsDeniedToEveryFileTool) {
  RuleSet rules = Rules();
  for (const std::string& path : {home_.Join(".ssh"),
                                  home_.Join(".ssh/id_ed25519"),
                                  home_.Join(".aws/credentials"),
                                  home_.Join(".gnupg/private-keys-v1.d/x.key"),
                                  home_.Join(".config/gcloud/credentials.db"),
                                  home_.Join(".netrc"),
                                  home_.Join(".docker/config.json"),
                                  home_.Join(".kube/config"),
                                  home_.Join(".config/raw/config.json"),
                                  home_.Join(".local/state/raw/sessions.sqlite3"),
                                  home_.Join(".local/share/raw/x"),
                                  home_.Join("keys/openai"),
                                  home_.Join("project/raw.json"),
                                  home_.Join(".azure/msal_token_cache.json"),
                                  home_.Join(".password-store/x.gpg"),
                                  home_.Join(".config/gh/hosts.yml"),
                                  home_.Join(".git-credentials"),
                                  home_.Join(".npmrc"),
                                  home_.Join(".pypirc"),
                                  home_.Join(".pgpass"),
                                  home_.Join(".vault-token"),
                                  home_.Join(".cargo/credentials"),
                                  home_.Join(".cargo/credentials.toml")}) {
    Decision d = Read(rules, path, ApprovalMode::kAllowAll);
    EXPECT_EQ(d.action, RuleAction::kDeny) << path << ": " << d.reason;
  }
  for (ToolSpec spec :
       {builtin::MakeWriteFileTool(), builtin::MakeEditFileTool(), builtin::MakeListDirTool(),
        builtin::MakeGlobTool(), builtin::MakeGrepTool()}) {
    EXPECT_EQ(rules
                  .Evaluate(spec, Json{{"path", home_.Join(".ssh")}}, home_.path(),
                            ApprovalMode::kAllowAll)
                  .action,
              RuleAction::kDeny)
        << spec.qualified_name;
  }
  Decision d = Read(rules, ".ssh/id_rsa");
  EXPECT_THAT(d.reason, HasSubstr("protected path ~/.ssh; an agent lifts it with "
                                  "\"allow_protected_paths\": [\"~/.ssh\"] in agents.coder"));
  // Neighbours are not protected.
  EXPECT_EQ(Read(rules, home_.Join(".sshrc")).action, RuleAction::kAllow);
  EXPECT_EQ(Read(rules, home_.Join(".kube/cache/x")).action, RuleAction::kAllow);
  EXPECT_EQ(Read(rules, home_.Join("project/main.cc")).action, RuleAction::kAllow);
}

// The daemon's environment holds its API keys and every variable withheld
// from bash: no file tool reads it, by any of its names, nor another
// process's environment, command line or memory.
TEST_F(ProtectedPathsTest, AProcessEnvironmentIsDenied) {
  RuleSet rules = Rules();
  const std::string self = absl::StrCat("/proc/", getpid());
  for (const std::string& path :
       {std::string("/proc/self/environ"), self + "/environ", std::string("/proc/1/environ"),
        std::string("/proc/thread-self/environ"),
        self + "/task/" + std::to_string(getpid()) + "/environ", std::string("/proc/self/cmdline"),
        std::string("/proc/self/mem")}) {
    Decision d = Read(rules, path, ApprovalMode::kAllowAll);
    EXPECT_EQ(d.action, RuleAction::kDeny) << path << ": " << d.reason;
    EXPECT_THAT(d.reason, HasSubstr("protected path process-environment")) << path;
  }
  // The rest of /proc is not a secret store.
  EXPECT_EQ(Read(rules, "/proc/cpuinfo").action, RuleAction::kAllow);
  EXPECT_EQ(Read(rules, "/proc/self/status").action, RuleAction::kAllow);
  agent_.allow_protected_paths = {"process-environment"};
  EXPECT_EQ(Read(Rules(), "/proc/self/environ").action, RuleAction::kAllow);
}

TEST_F(ProtectedPathsTest, TheAgentsOwnAllowRulesDoNotLiftThem) {
  config::RuleConfig allow_all;
  allow_all.action = RuleAction::kAllow;
  allow_all.tool = "builtin/*";
  RuleSet rules = Rules({allow_all});
  EXPECT_EQ(Read(rules, home_.Join(".aws/credentials")).action, RuleAction::kDeny);
}

TEST_F(ProtectedPathsTest, ALinkIntoAProtectedPathIsDeniedToo) {
  std::filesystem::create_directories(home_.Join(".ssh"));
  ASSERT_EQ(symlink(home_.Join(".ssh").c_str(), home_.Join("innocent").c_str()), 0);
  EXPECT_EQ(Read(Rules(), "innocent/id_rsa").action, RuleAction::kDeny);
}

// However a call spells a protected file, the rules see the file itself.
TEST_F(ProtectedPathsTest, EverySpellingOfAProtectedPathIsDenied) {
  std::filesystem::create_directories(home_.Join(".ssh"));
  std::filesystem::create_directories(home_.Join("project/src"));
  tools::testing::WriteText(home_.Join(".ssh/id_rsa"), "key");
  tools::testing::WriteText(home_.Join(".git-credentials"), "token");
  ASSERT_EQ(symlink(".ssh/id_rsa", home_.Join("key").c_str()), 0);
  ASSERT_EQ(symlink("key", home_.Join("key2").c_str()), 0);  // a chain
  ASSERT_EQ(symlink("..", home_.Join("project/up").c_str()), 0);
  ASSERT_EQ(symlink(home_.Join(".git-credentials").c_str(), home_.Join("project/creds").c_str()),
            0);
  RuleSet rules = Rules();
  const std::string cwd = home_.Join("project");
  for (const std::string& path :
       {home_.Join(".ssh/id_rsa"), home_.Join(".ssh/"), home_.Join(".ssh//id_rsa"),
        home_.Join("./.ssh/./id_rsa"), home_.Join("project/../.ssh/id_rsa"),
        home_.Join("project/src/../../.ssh/id_rsa"), std::string("../.ssh/id_rsa"),
        std::string("up/.ssh/id_rsa"), std::string("up/.ssh"), home_.Join("key"),
        home_.Join("key2"), std::string("../key2"), std::string("creds"),
        home_.Join(".git-credentials/"), "/" + home_.path() + "/.pgpass"}) {
    Decision d = rules.Evaluate(read_, Json{{"path", path}}, cwd, ApprovalMode::kAllowAll);
    EXPECT_EQ(d.action, RuleAction::kDeny) << path << ": " << d.reason;
  }
}

// Each check looks at the file system afresh, on the protected paths' side
// too: a link a previous call made, or a directory it replaced by a link,
// is followed at the next check by the same rules.
TEST_F(ProtectedPathsTest, LinksMadeBetweenChecksAreSeenAtTheNext) {
  std::filesystem::create_directories(home_.Join(".ssh"));
  tools::testing::WriteText(home_.Join(".ssh/id_rsa"), "key");
  std::filesystem::create_directories(home_.Join("stash/gh"));
  RuleSet rules = Rules();
  // A link in the home directory to a protected file.
  EXPECT_EQ(Read(rules, "innocent").action, RuleAction::kAllow);
  ASSERT_EQ(symlink(home_.Join(".ssh/id_rsa").c_str(), home_.Join("innocent").c_str()), 0);
  EXPECT_EQ(Read(rules, "innocent").action, RuleAction::kDeny);
  // A protected name that did not exist becomes a link to a directory the
  // call then names directly: ~/.cargo -> ~/stash.
  EXPECT_EQ(Read(rules, "stash/credentials").action, RuleAction::kAllow);
  ASSERT_EQ(symlink(home_.Join("stash").c_str(), home_.Join(".cargo").c_str()), 0);
  Decision d = Read(rules, "stash/credentials");
  EXPECT_EQ(d.action, RuleAction::kDeny) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("protected path ~/.cargo/credentials"));
  // A directory above a protected one replaced by a link: ~/.config ->
  // ~/stash makes ~/stash/gh the protected ~/.config/gh.
  std::filesystem::create_directories(home_.Join(".config"));
  EXPECT_EQ(Read(rules, "stash/gh/hosts.yml").action, RuleAction::kAllow);
  std::filesystem::remove(home_.Join(".config"));
  ASSERT_EQ(symlink("stash", home_.Join(".config").c_str()), 0);
  d = Read(rules, "stash/gh/hosts.yml");
  EXPECT_EQ(d.action, RuleAction::kDeny) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("protected path ~/.config/gh"));
  // And back: the link removed, the real directory is what is protected.
  std::filesystem::remove(home_.Join(".config"));
  std::filesystem::create_directories(home_.Join(".config/gh"));
  EXPECT_EQ(Read(rules, "stash/gh/hosts.yml").action, RuleAction::kAllow);
  EXPECT_EQ(Read(rules, ".config/gh/hosts.yml").action, RuleAction::kDeny);
  // A protected directory replaced by a link elsewhere is protected there.
  std::filesystem::rename(home_.Join(".ssh"), home_.Join("moved"));
  ASSERT_EQ(symlink("moved", home_.Join(".ssh").c_str()), 0);
  EXPECT_EQ(Read(rules, "moved/id_rsa").action, RuleAction::kDeny);
}

TEST_F(ProtectedPathsTest, NamingOneInAllowProtectedPathsLiftsOnlyThatOne) {
  agent_.allow_protected_paths = {"~/.kube/config", "raw-state"};
  RuleSet rules = Rules();
  EXPECT_EQ(Read(rules, home_.Join(".kube/config")).action, RuleAction::kAllow);
  EXPECT_EQ(Read(rules, home_.Join(".local/state/raw/rawd.log")).action, RuleAction::kAllow);
  EXPECT_EQ(Read(rules, home_.Join(".ssh/id_rsa")).action, RuleAction::kDeny);
}

// The runtime directory holds the daemon socket and raw-dashboard's --open
// page, whose address carries the dashboard's token: the one the daemon's
// environment names, the ones a gateway without XDG_RUNTIME_DIR uses (under
// the state directory, and the last resort).
TEST_F(ProtectedPathsTest, TheRuntimeDirectoryAndItsFallbacksAreDenied) {
  env_["XDG_RUNTIME_DIR"] = home_.Join("run");
  RuleSet rules = Rules();
  const std::string fallback = absl::StrCat("/tmp/raw-", getuid());
  for (const std::string& path :
       {home_.Join("run/raw"), home_.Join("run/raw/dashboard-40123.html"),
        home_.Join("run/raw/rawd.sock"), fallback, fallback + "/dashboard-40123.html"}) {
    Decision d = Read(rules, path, ApprovalMode::kAllowAll);
    EXPECT_EQ(d.action, RuleAction::kDeny) << path << ": " << d.reason;
    EXPECT_THAT(d.reason, HasSubstr("protected path raw-runtime")) << path;
  }
  // Inside the state directory, so raw-state protects it as well.
  EXPECT_EQ(
      Read(rules, home_.Join(".local/state/raw/run/dashboard-40123.html"), ApprovalMode::kAllowAll)
          .action,
      RuleAction::kDeny);
  agent_.allow_protected_paths = {"raw-state"};
  rules = Rules();
  EXPECT_EQ(
      Read(rules, home_.Join(".local/state/raw/run/dashboard-40123.html"), ApprovalMode::kAllowAll)
          .action,
      RuleAction::kDeny)
      << "raw-runtime covers the fallback on its own";
  EXPECT_EQ(Read(rules, home_.Join("run/other")).action, RuleAction::kAllow);
  agent_.allow_protected_paths = {"raw-runtime", "raw-state"};
  rules = Rules();
  EXPECT_EQ(Read(rules, home_.Join("run/raw/dashboard-40123.html")).action, RuleAction::kAllow);
  EXPECT_EQ(Read(rules, home_.Join(".local/state/raw/run/dashboard-40123.html")).action,
            RuleAction::kAllow);
  EXPECT_EQ(Read(rules, fallback + "/dashboard-40123.html").action, RuleAction::kAllow);
}

TEST_F(ProtectedPathsTest, XdgDirectoriesAreFollowed) {
  env_["XDG_STATE_HOME"] = home_.Join("state");
  env_["XDG_CONFIG_HOME"] = home_.Join("conf");
  RuleSet rules = Rules();
  EXPECT_EQ(Read(rules, home_.Join("state/raw/rawd.log")).action, RuleAction::kDeny);
  EXPECT_EQ(Read(rules, home_.Join("conf/raw/config.json")).action, RuleAction::kDeny);
}

}  // namespace
}  // namespace raw::tools::policy
