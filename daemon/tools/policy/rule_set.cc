#include "daemon/tools/policy/rule_set.h"

#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/tools/policy/command_subjects.h"
#include "daemon/tools/policy/rule_url.h"
#include "daemon/tools/policy/walk_filter.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;

const char* ActionName(RuleAction action) {
  switch (action) {
    case RuleAction::kAllow:
      return "allow";
    case RuleAction::kAsk:
      return "ask";
    case RuleAction::kDeny:
      return "deny";
  }
  return "ask";
}

bool IsRequired(const ToolSpec& spec, const std::string& argument) {
  auto required = spec.input_schema.find("required");
  if (required == spec.input_schema.end() || !required->is_array()) return false;
  for (const auto& name : *required) {
    if (name == argument) return true;
  }
  return false;
}

// The call's subject: the string argument the tool's rules see. A path tool
// whose path is optional (glob, grep, list_dir) works in the session's cwd
// when the argument is absent, so that is its subject then.
std::optional<std::string> SubjectOf(const ToolSpec& spec, const Json& arguments) {
  if (spec.rule_subject == RuleSubject::kNone || !arguments.is_object()) return std::nullopt;
  auto it = arguments.find(spec.rule_argument);
  if (it == arguments.end() && spec.rule_subject == RuleSubject::kPath &&
      !IsRequired(spec, spec.rule_argument)) {
    return std::string(".");
  }
  if (it == arguments.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// What the approval mode says about a call (or part) no rule matched.
Decision Unmatched(const ToolSpec& spec, ApprovalMode mode) {
  switch (mode) {
    case ApprovalMode::kAskAll:
      return {RuleAction::kAsk, "approval_mode is ask_all; no rule matched"};
    case ApprovalMode::kAllowAll:
      return {RuleAction::kAllow, "approval_mode is allow_all; no rule matched"};
    case ApprovalMode::kDenyAll:
      return {RuleAction::kDeny, "approval_mode is deny_all; no rule matched"};
    case ApprovalMode::kDefault:
      break;
  }
  if (spec.read_only) {
    return {RuleAction::kAllow, spec.qualified_name + " is read-only; no rule matched"};
  }
  return {RuleAction::kAsk, spec.qualified_name + " is not read-only; no rule matched"};
}

// deny > ask > allow.
int Severity(RuleAction action) {
  return action == RuleAction::kDeny ? 2 : action == RuleAction::kAsk ? 1 : 0;
}

}  // namespace

absl::StatusOr<RuleSet> RuleSet::Compile(const std::vector<config::RuleConfig>& rules,
                                         const std::string& where) {
  RuleSet set;
  for (size_t i = 0; i < rules.size(); ++i) {
    const config::RuleConfig& rule = rules[i];
    std::string at = absl::StrCat(where, "[", i, "]");
    if (int(rule.command.has_value()) + int(rule.path.has_value()) + int(rule.url.has_value()) >
        1) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": a rule has one command, path or url pattern, not several"));
    }
    auto tool = Pattern::Compile(rule.tool, Pattern::Style::kText);
    if (!tool.ok())
      return absl::InvalidArgumentError(absl::StrCat(at, ".tool: ", tool.status().message()));
    Compiled compiled{rule, *std::move(tool), {}, at};
    if (rule.command || rule.path || rule.url) {
      const char* field = rule.command ? ".command: " : rule.path ? ".path: " : ".url: ";
      const std::string& text = rule.command ? *rule.command : rule.path ? *rule.path : *rule.url;
      auto subject =
          Pattern::Compile(text, rule.path ? Pattern::Style::kPath : Pattern::Style::kText);
      if (!subject.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(at, field, subject.status().message()));
      }
      compiled.subject.push_back(*std::move(subject));
    }
    set.rules_.push_back(std::move(compiled));
  }
  return set;
}

absl::Status RuleSet::AddSessionRules(const std::vector<config::RuleConfig>& rules) {
  auto compiled = Compile(rules, "session rules");
  if (!compiled.ok()) return compiled.status();
  for (Compiled& rule : compiled->rules_) {
    rule.label = "session rule";
    rules_.push_back(std::move(rule));
  }
  return absl::OkStatus();
}

absl::Status RuleSet::PrependRules(
    const std::vector<std::pair<config::RuleConfig, std::string>>& rules) {
  std::vector<config::RuleConfig> configs;
  for (const auto& [rule, label] : rules) configs.push_back(rule);
  auto compiled = Compile(configs, "built-in rules");
  if (!compiled.ok()) return compiled.status();
  for (size_t i = 0; i < rules.size(); ++i) compiled->rules_[i].label = rules[i].second;
  for (Compiled& rule : rules_) compiled->rules_.push_back(std::move(rule));
  rules_ = std::move(compiled->rules_);
  return absl::OkStatus();
}

Decision RuleSet::Evaluate(const ToolSpec& spec, const Json& arguments, const std::string& cwd,
                           config::ApprovalMode mode) const {
  auto describe = [](const Compiled& rule) {
    const config::RuleConfig& c = rule.config;
    std::string subject = c.command ? absl::StrCat(" command \"", *c.command, "\"")
                          : c.path  ? absl::StrCat(" path \"", *c.path, "\"")
                          : c.url   ? absl::StrCat(" url \"", *c.url, "\"")
                                    : "";
    return absl::StrCat(rule.label, " (", ActionName(c.action), " ", c.tool, subject, ")");
  };
  // The first rule that applies to the call with `command` or `path` as its
  // subject (neither: the call has none). Without `allow_patterns`, allow
  // rules with a command pattern are skipped (a line they must not decide).
  auto first_rule = [&](const std::string* command, const std::string* path,
                        bool allow_patterns) -> const Compiled* {
    for (const Compiled& rule : rules_) {
      if (!rule.tool.Matches(spec.qualified_name)) continue;
      if (rule.subject.empty()) return &rule;
      if (rule.config.command && spec.rule_subject == RuleSubject::kCommand) {
        if (command != nullptr && (allow_patterns || rule.config.action != RuleAction::kAllow) &&
            rule.subject[0].Matches(*command)) {
          return &rule;
        }
      } else if (rule.config.path && spec.rule_subject == RuleSubject::kPath && path != nullptr) {
        auto anchored =
            Pattern::Compile(AnchorPathPattern(cwd, rule.subject[0].text()), Pattern::Style::kPath);
        if (anchored.ok() && anchored->Matches(*path)) return &rule;
      } else if (rule.config.url && spec.rule_subject == RuleSubject::kUrl && path != nullptr) {
        if (rule.subject[0].Matches(*path)) return &rule;  // `path` holds the URL here
      }
    }
    return nullptr;
  };
  auto decide = [&](const Compiled* rule) {
    return rule != nullptr ? Decision{rule->config.action, describe(*rule)} : Unmatched(spec, mode);
  };

  std::optional<std::string> subject = SubjectOf(spec, arguments);
  if (spec.rule_subject == RuleSubject::kPath) {
    if (!subject) return decide(first_rule(nullptr, nullptr, true));
    std::string resolved = ResolveRulePath(cwd, *subject);
    Decision decision = decide(first_rule(nullptr, &resolved, true));
    decision.reason = absl::StrCat(decision.reason, " for ", resolved);
    return decision;
  }
  if (spec.rule_subject == RuleSubject::kUrl) {
    if (!subject) return decide(first_rule(nullptr, nullptr, true));
    std::string url = RuleUrl(*subject);
    Decision decision = decide(first_rule(nullptr, &url, true));
    decision.reason = absl::StrCat(decision.reason, " for ", url);
    return decision;
  }
  if (spec.rule_subject != RuleSubject::kCommand) return decide(first_rule(nullptr, nullptr, true));

  absl::StatusOr<CommandSubjects> analysis =
      subject ? AnalyzeShellCommand(*subject)
              : absl::InvalidArgumentError("the call has no \"" + spec.rule_argument + "\" string");
  if (analysis.ok() && analysis->subjects.empty()) {
    analysis = absl::InvalidArgumentError("the command is empty");
  }
  if (!analysis.ok()) {
    // Deny and ask patterns are still tried on the whole text.
    Decision decision = decide(first_rule(subject ? &*subject : nullptr, nullptr, false));
    decision.reason = absl::StrCat("command patterns do not apply (", analysis.status().message(),
                                   "); ", decision.reason);
    return decision;
  }
  // Each subject on its own; the most severe answer wins, and its reason
  // names the command that caused it. A canonical form only restricts.
  const std::string& opaque = analysis->opaque_reason;
  Decision overall{RuleAction::kAllow, ""};
  std::vector<std::string> allowed;
  for (const CommandSubject& part : analysis->subjects) {
    const Compiled* rule = first_rule(&part.text, nullptr, opaque.empty());
    if (part.kind == CommandSubject::Kind::kCanonical &&
        (rule == nullptr || rule->config.action == RuleAction::kAllow)) {
      continue;
    }
    Decision decision = decide(rule);
    std::string reason = absl::StrCat("\"", part.text, "\": ", decision.reason);
    if (decision.action == RuleAction::kAllow) allowed.push_back(reason);
    if (Severity(decision.action) > Severity(overall.action)) overall = {decision.action, reason};
  }
  if (overall.action == RuleAction::kAllow) overall.reason = absl::StrJoin(allowed, "; ");
  if (!opaque.empty()) {
    overall.reason = absl::StrCat("allow patterns do not apply (", opaque, "); ", overall.reason);
  }
  return overall;
}

std::vector<config::RuleConfig> RuleSet::SessionRulesFor(const ToolSpec& spec,
                                                         const Json& arguments,
                                                         const std::string& cwd) {
  config::RuleConfig whole_tool;
  whole_tool.action = RuleAction::kAllow;
  whole_tool.tool = EscapeGlob(spec.qualified_name);
  std::optional<std::string> subject = SubjectOf(spec, arguments);
  if (spec.rule_subject == RuleSubject::kNone) return {whole_tool};
  if (!subject) return {};
  if (spec.rule_subject == RuleSubject::kPath) {
    whole_tool.path = EscapeGlob(ResolveRulePath(cwd, *subject));
    return {whole_tool};
  }
  if (spec.rule_subject == RuleSubject::kUrl) {
    whole_tool.url = EscapeGlob(RuleUrl(*subject));
    return {whole_tool};
  }
  auto analysis = AnalyzeShellCommand(*subject);
  if (!analysis.ok() || !analysis->opaque_reason.empty()) return {};
  std::vector<config::RuleConfig> rules;
  std::set<std::string> seen;
  for (const CommandSubject& part : analysis->subjects) {
    if (part.kind != CommandSubject::Kind::kCommand || !seen.insert(part.text).second) continue;
    config::RuleConfig rule = whole_tool;
    rule.command = EscapeGlob(part.text);
    rules.push_back(std::move(rule));
  }
  return rules;
}

std::optional<std::string> RuleSet::ResolvedPath(const ToolSpec& spec, const Json& arguments,
                                                 const std::string& cwd) {
  if (spec.rule_subject != RuleSubject::kPath) return std::nullopt;
  std::optional<std::string> subject = SubjectOf(spec, arguments);
  if (!subject) return std::nullopt;
  return ResolveRulePath(cwd, *subject);
}

std::function<bool(const std::string&)> RuleSet::WalkFilterFor(const ToolSpec& spec,
                                                               const std::string& cwd,
                                                               bool user_approved) const {
  if (spec.rule_subject != RuleSubject::kPath) return nullptr;
  std::vector<WalkFilter::Rule> rules;
  for (const Compiled& rule : rules_) {
    if (!rule.tool.Matches(spec.qualified_name)) continue;
    if (rule.subject.empty()) {
      rules.push_back({rule.config.action, std::nullopt});
      continue;
    }
    if (!rule.config.path) continue;  // a command or url pattern never matches a path tool
    auto anchored =
        Pattern::Compile(AnchorPathPattern(cwd, rule.subject[0].text()), Pattern::Style::kPath);
    if (anchored.ok()) rules.push_back({rule.config.action, std::move(*anchored)});
  }
  return WalkFilter::Callback(std::move(rules), user_approved);
}

}  // namespace raw::tools::policy
