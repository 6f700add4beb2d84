#include "daemon/config/policy_entry.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/pattern.h"
#include "daemon/config/agent_entry.h"
#include "daemon/config/approval_mode_names.h"
#include "daemon/config/command_entry.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/config_path.h"
#include "daemon/config/package_ref.h"
#include "daemon/config/variable_refs.h"

namespace raw::config {
namespace {

constexpr std::array<absl::string_view, 3> kRuleActions = {"allow", "ask", "deny"};

// Checks a pattern's syntax; records the problem at `path`.
void CheckPattern(const std::string& text, Pattern::Style style, const std::string& path,
                  std::vector<ConfigProblem>& problems) {
  absl::StatusOr<Pattern> p = Pattern::Compile(text, style);
  if (!p.ok()) problems.push_back({path, std::string(p.status().message())});
}

// A "pkg/..." entry must be a well-formed reference to a `kind` export;
// other entries are left to the caller.
void CheckPackageRefShape(const std::string& text, absl::string_view kind, const std::string& path,
                          std::vector<ConfigProblem>& problems) {
  if (!IsPackageRef(text)) return;
  absl::StatusOr<PackageRef> ref = ParsePackageRef(text, kind);
  if (!ref.ok()) problems.push_back({path, std::string(ref.status().message())});
}

// A list of non-empty strings at `key`; nullopt when absent or invalid.
std::optional<std::vector<std::string>> StringList(FieldReader& r, absl::string_view key,
                                                   absl::string_view what,
                                                   std::vector<ConfigProblem>& problems) {
  const Json* list = r.Find(key);
  if (list == nullptr) return std::nullopt;
  if (!list->is_array()) {
    r.Report(key, absl::StrCat("expected an array of ", what, ", got ", DescribeValue(*list)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  bool ok = true;
  for (size_t i = 0; i < list->size(); ++i) {
    if (ProblemsFull(problems)) break;
    const Json& entry = (*list)[i];
    std::string path = IndexPath(r.PathOf(key), i);
    if (!entry.is_string() || entry.get_ref<const std::string&>().empty()) {
      problems.push_back({path, absl::StrCat("expected ", what, ", got ", DescribeValue(entry))});
      ok = false;
    } else if (!seen.insert(entry.get<std::string>()).second) {
      problems.push_back({path, absl::StrCat(DescribeValue(entry), " is listed twice")});
      ok = false;
    } else {
      out.push_back(entry.get<std::string>());
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<RuleConfig> ReadRule(const Json& value, const std::string& path,
                                   std::vector<ConfigProblem>& problems) {
  FieldReader r(value, path, problems);
  if (!r.is_object()) return std::nullopt;
  size_t before = problems.size();
  r.RejectUnknownKeys(kRuleKeys);
  RuleConfig rule;
  int actions = 0;
  for (size_t i = 0; i < kRuleActions.size(); ++i) {
    if (r.Find(kRuleActions[i]) == nullptr) continue;
    ++actions;
    rule.action = static_cast<RuleAction>(i);
    if (auto tool = r.NonEmptyString(kRuleActions[i], "a tool name or glob such as \"builtin/*\"")) {
      rule.tool = *tool;
      CheckPattern(*tool, Pattern::Style::kText, r.PathOf(kRuleActions[i]), problems);
    }
  }
  if (actions != 1) {
    r.Report("", absl::StrCat("a rule needs exactly one of \"allow\", \"ask\" or \"deny\" "
                              "(naming the tools it applies to), found ",
                              actions));
  }
  if (auto command = r.NonEmptyString("command", "a command pattern such as \"git status *\"")) {
    rule.command = *command;
    CheckPattern(*command, Pattern::Style::kText, r.PathOf("command"), problems);
  }
  if (auto p = r.NonEmptyString("path", "a path pattern such as \"src/**\"")) {
    rule.path = *p;
    CheckPattern(*p, Pattern::Style::kPath, r.PathOf("path"), problems);
  }
  if (auto p = r.NonEmptyString("redirect", "a path pattern such as \"/tmp/**\"")) {
    rule.redirect = *p;
    CheckPattern(*p, Pattern::Style::kPath, r.PathOf("redirect"), problems);
  }
  if (auto url = r.NonEmptyString("url", "a URL pattern such as \"https://docs.python.org/*\"")) {
    rule.url = *url;
    CheckPattern(*url, Pattern::Style::kText, r.PathOf("url"), problems);
  }
  if (int(rule.command.has_value()) + int(rule.path.has_value()) + int(rule.redirect.has_value()) +
          int(rule.url.has_value()) >
      1) {
    r.Report("", "a rule may match one of \"command\", \"path\", \"redirect\" or \"url\", not several");
  }
  if (problems.size() != before) return std::nullopt;
  return rule;
}

void ReadRules(FieldReader& r, AgentConfig& agent, std::vector<ConfigProblem>& problems) {
  const Json* rules = r.Find("rules");
  if (rules == nullptr) return;
  if (!rules->is_array()) {
    r.Report("rules", absl::StrCat("expected an array of rules such as "
                                   "{\"allow\": \"builtin/bash\", \"command\": \"git status\"}, got ",
                                   DescribeValue(*rules)));
    return;
  }
  for (size_t i = 0; i < rules->size(); ++i) {
    if (ProblemsFull(problems)) break;
    if (auto rule = ReadRule((*rules)[i], IndexPath(r.PathOf("rules"), i), problems)) {
      agent.rules.push_back(std::move(*rule));
    }
  }
}

}  // namespace

HookConfig ReadHook(const std::string& name, const Json& value, const std::string& path,
                    const ParseContext* context, std::vector<ConfigProblem>& problems) {
  HookConfig hook;
  hook.name = name;
  FieldReader r(value, path, problems);
  if (!r.is_object()) return hook;
  r.RejectUnknownKeys(kHookKeys);
  r.Require("event", "one of the hook events");
  r.Require("command", "the command to run, as an array such as [\"./check.sh\", \"--fast\"]");
  if (auto event = r.OneOf("event", kHookEvents)) {
    for (size_t i = 0; i < kHookEvents.size(); ++i) {
      if (kHookEvents[i] == *event) hook.event = static_cast<HookEvent>(i);
    }
  }
  if (auto argv = ReadCommandArgv(
          r, "command", "the command to run, as an array such as [\"./check.sh\", \"--fast\"]",
          context, problems)) {
    hook.command = *std::move(argv);
  }
  if (auto matcher = r.NonEmptyString("matcher", "a tool name or glob such as \"builtin/bash\"")) {
    hook.matcher = *matcher;
    CheckPattern(*matcher, Pattern::Style::kText, r.PathOf("matcher"), problems);
    if (hook.event != HookEvent::kPreToolUse && hook.event != HookEvent::kPostToolUse) {
      r.Report("matcher", "only pre_tool_use and post_tool_use hooks have a tool to match");
    }
  }
  if (auto ms = r.SecondsAsMillis("timeout_seconds", kMaxHookTimeoutSeconds)) {
    hook.timeout_ms = *ms;
  }
  if (auto policy = r.OneOf("on_failure", kHookFailurePolicies)) {
    hook.on_failure = *policy == "block" ? HookFailurePolicy::kBlock : HookFailurePolicy::kIgnore;
  }
  return hook;
}

void ReadAgentPolicy(FieldReader& r, AgentConfig& agent, std::vector<ConfigProblem>& problems) {
  ReadRules(r, agent, problems);
  if (auto mode = r.OneOf("approval_mode", kApprovalModes)) {
    if (auto named = ApprovalModeNamed(*mode)) agent.approval_mode = *named;
  }
  if (auto ms = r.SecondsAsMillis("approval_timeout_seconds", kMaxApprovalTimeoutSeconds)) {
    agent.approval_timeout_ms = *ms;
  }
  if (auto hooks = StringList(r, "hooks", "the name of a hook defined under \"hooks\"", problems)) {
    for (size_t i = 0; i < hooks->size(); ++i) {
      if (ProblemsFull(problems)) break;
      CheckPackageRefShape((*hooks)[i], kExportHook, IndexPath(r.PathOf("hooks"), i), problems);
    }
    agent.hooks = std::move(*hooks);
  }
  if (auto skills = StringList(r, "skills", "a skill name or glob such as \"review\" or \"*\"",
                               problems)) {
    for (size_t i = 0; i < skills->size(); ++i) {
      if (ProblemsFull(problems)) break;
      const std::string path = IndexPath(r.PathOf("skills"), i);
      if (IsPackageRef((*skills)[i])) {
        CheckPackageRefShape((*skills)[i], kExportSkill, path, problems);
      } else {
        CheckPattern((*skills)[i], Pattern::Style::kText, path, problems);
      }
    }
    agent.skills = std::move(*skills);
  }
  if (auto prompts = StringList(r, "prompts", "a prompt section \"pkg/<alias>/prompt/<name>\"",
                                problems)) {
    for (size_t i = 0; i < prompts->size(); ++i) {
      if (ProblemsFull(problems)) break;
      absl::StatusOr<PackageRef> ref = ParsePackageRef((*prompts)[i], kExportPrompt);
      if (!ref.ok()) {
        problems.push_back({IndexPath(r.PathOf("prompts"), i), std::string(ref.status().message())});
      }
    }
    agent.prompts = std::move(*prompts);
  }
  if (auto passed = StringList(r, "pass_secret_env",
                               "the name of an environment variable such as \"GH_TOKEN\"",
                               problems)) {
    for (size_t i = 0; i < passed->size(); ++i) {
      if (ProblemsFull(problems)) break;
      if (!IsVariableName((*passed)[i])) {
        problems.push_back({IndexPath(r.PathOf("pass_secret_env"), i),
                            "expected the name of an environment variable (letters, digits and "
                            "'_', not starting with a digit)"});
      }
    }
    agent.pass_secret_env = std::move(*passed);
  }
  if (auto allow = r.Boolean("allow_private_addresses")) agent.allow_private_addresses = *allow;
  if (auto names = StringList(r, "allow_protected_paths",
                              absl::StrCat("the name of a protected path (one of: ",
                                           JoinNames(kProtectedPathNames), ")"),
                              problems)) {
    for (size_t i = 0; i < names->size(); ++i) {
      if (ProblemsFull(problems)) break;
      if (std::find(kProtectedPathNames.begin(), kProtectedPathNames.end(), (*names)[i]) ==
          kProtectedPathNames.end()) {
        problems.push_back({IndexPath(r.PathOf("allow_protected_paths"), i),
                            absl::StrCat(DescribeValue(Json((*names)[i])),
                                         " is not a protected path (one of: ",
                                         JoinNames(kProtectedPathNames), ")")});
      }
    }
    agent.allow_protected_paths = std::move(*names);
  }
}

void ReadHooksAndSkillDirs(FieldReader& doc, const ParseContext& context, Config& config,
                           std::vector<ConfigProblem>& problems) {
  if (const Json* hooks = doc.Find("hooks")) {
    FieldReader section(*hooks, "hooks", problems);
    if (section.is_object()) {
      for (const auto& [name, value] : hooks->items()) {
        if (ProblemsFull(problems)) break;
        std::string path = JoinPath("hooks", name);
        if (!IsValidName(name)) {
          problems.push_back({path, "invalid hook name (letters, digits, '_', '.' and '-')"});
          continue;
        }
        config.hooks[name] = ReadHook(name, value, path, &context, problems);
      }
    }
  }
  if (auto dirs = StringList(doc, "skill_dirs", "a directory path", problems)) {
    config.skill_dirs = std::move(*dirs);
  }
}

void CheckAgentHooks(const Config& config, std::vector<ConfigProblem>& problems) {
  for (const auto& [name, agent] : config.agents) {
    if (ProblemsFull(problems)) break;
    for (size_t i = 0; i < agent.hooks.size(); ++i) {
      if (ProblemsFull(problems)) break;
      // Package hooks are looked up when the agent is resolved.
      if (config.hooks.contains(agent.hooks[i]) || IsPackageRef(agent.hooks[i])) continue;
      std::vector<std::string> defined;
      for (const auto& [hook_name, hook] : config.hooks) defined.push_back(hook_name);
      problems.push_back({IndexPath(JoinPath(JoinPath("agents", name), "hooks"), i),
                          absl::StrCat(DescribeValue(Json(agent.hooks[i])),
                                       " is not a defined hook (defined: ",
                                       defined.empty() ? "none" : JoinNames(defined), ")")});
    }
  }
}

}  // namespace raw::config
