#include "daemon/loop/agent_check.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/config/named_paths.h"
#include "daemon/packages/package_loader.h"
#include "daemon/packages/package_resolver.h"
#include "daemon/skills/skill_set.h"

namespace raw::loop {

void CheckAgents(const config::Config& cfg, absl::StatusOr<packages::PackageStore> store,
                 std::vector<std::string>& errors) {
  packages::PackageLoader loader(cfg.source_path, std::move(store), packages::EntryCheck::kTrust);
  for (const auto& [name, agent] : cfg.agents) {
    absl::StatusOr<packages::PackagedConfig> packaged =
        packages::ResolvePackages(cfg, name, loader);
    if (!packaged.ok()) {
      errors.push_back(std::string(packaged.status().message()));
      continue;
    }
    const config::Config& resolved = packaged->config;
    auto it = resolved.agents.find(name);
    if (it == resolved.agents.end() || it->second.skills.empty()) continue;
    absl::StatusOr<skills::SkillSet> set = skills::SkillSet::Load(
        resolved.skill_dirs, config::SkillBaseDir(resolved), it->second.skills);
    if (!set.ok()) {
      errors.push_back(absl::StrCat("agents.", name, ".skills: ", set.status().message()));
    }
  }
  const std::string base = config::SkillBaseDir(cfg);
  absl::StatusOr<std::vector<skills::BrokenSkill>> unreadable =
      skills::SkillSet::Unreadable(cfg.skill_dirs, base);
  if (!unreadable.ok()) return;  // a folder that vanished since CheckNamedPaths
  for (const skills::BrokenSkill& b : *unreadable) {
    errors.push_back(absl::StrCat("skill_dirs: ", b.error.message(),
                                  " (the folder is set aside: no agent can use it)"));
  }
}

}  // namespace raw::loop
