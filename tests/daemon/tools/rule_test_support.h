// Helpers shared by the rule tests: tool specs for each kind of rule
// subject, a RuleConfig for each kind of pattern, and rules compiled as the
// agent "coder"'s (reasons name them "agents.coder.rules[i]").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/tools/policy/rule_set.h"
#include "daemon/tools/tool.h"
#include "gtest/gtest.h"

namespace raw::tools::testing {

inline ToolSpec RuleTool(std::string name, RuleSubject subject, std::string argument,
                         bool read_only) {
  ToolSpec spec;
  spec.qualified_name = std::move(name);
  spec.rule_subject = subject;
  spec.rule_argument = std::move(argument);
  spec.read_only = read_only;
  return spec;
}

inline const ToolSpec kBash = RuleTool("builtin/bash", RuleSubject::kCommand, "command", false);
inline const ToolSpec kRead = RuleTool("builtin/read_file", RuleSubject::kPath, "path", true);
inline const ToolSpec kWrite = RuleTool("builtin/write_file", RuleSubject::kPath, "path", false);
inline const ToolSpec kFetch = RuleTool("builtin/web_fetch", RuleSubject::kNone, "", true);
inline const ToolSpec kMcp = RuleTool("mcp/files/delete", RuleSubject::kNone, "", false);

inline config::RuleConfig Command(config::RuleAction action, std::string command,
                                  std::string tool = "builtin/bash") {
  return config::RuleConfig{action, std::move(tool), std::move(command), std::nullopt,
                            std::nullopt};
}
inline config::RuleConfig Path(config::RuleAction action, std::string path,
                               std::string tool = "builtin/*_file") {
  return config::RuleConfig{action, std::move(tool), std::nullopt, std::move(path), std::nullopt};
}
// A rule on the whole tool: no subject pattern.
inline config::RuleConfig Whole(config::RuleAction action, std::string tool) {
  return config::RuleConfig{action, std::move(tool), std::nullopt, std::nullopt, std::nullopt};
}
inline config::RuleConfig Redirect(config::RuleAction action, std::string target,
                                   std::string tool = "builtin/bash") {
  return config::RuleConfig{action, std::move(tool), std::nullopt, std::nullopt, std::move(target)};
}
inline config::RuleConfig Url(config::RuleAction action, std::string url,
                              std::string tool = "builtin/web_fetch") {
  config::RuleConfig rule = Whole(action, std::move(tool));
  rule.url = std::move(url);
  return rule;
}

// `rules` compiled as agents.coder.rules; a compile error fails the test
// and leaves an empty RuleSet.
inline policy::RuleSet Rules(const std::vector<config::RuleConfig>& rules) {
  auto set = policy::RuleSet::Compile(rules, "agents.coder.rules");
  EXPECT_TRUE(set.ok()) << set.status();
  return set.ok() ? *std::move(set) : policy::RuleSet();
}

// `command` run by kBash in "/".
inline policy::Decision Bash(const policy::RuleSet& rules, const std::string& command,
                             config::ApprovalMode mode = config::ApprovalMode::kDefault) {
  return rules.Evaluate(kBash, Json{{"command", command}}, "/", mode);
}

}  // namespace raw::tools::testing
