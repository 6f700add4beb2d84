#include "daemon/tools/policy/rule_set.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/tools/policy/command_splitter.h"
#include "daemon/tools/policy/command_subjects.h"
#include "daemon/tools/policy/program_pattern.h"
#include "daemon/tools/policy/protected_links.h"
#include "daemon/tools/policy/redirect_target.h"
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
  if (spec.rule_subject_of) return spec.rule_subject_of(arguments);
  auto it = arguments.find(spec.rule_argument);
  if (it == arguments.end() && spec.rule_subject == RuleSubject::kPath &&
      !IsRequired(spec, spec.rule_argument)) {
    return std::string(".");
  }
  if (it == arguments.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// What the approval mode says about a call (or part) no rule matched.
// `unreadable` is set when the command line cannot be read fully (it cannot
// be split, hides commands, sets variables that change what runs, or writes
// where only running it tells): allow_all asks for it rather than fail open.
Decision Unmatched(const ToolSpec& spec, const Json& arguments, ApprovalMode mode,
                   bool unreadable = false) {
  switch (mode) {
    case ApprovalMode::kAskAll:
      return {RuleAction::kAsk, "approval_mode is ask_all; no rule matched"};
    case ApprovalMode::kAllowAll:
      if (unreadable) {
        return {RuleAction::kAsk,
                "approval_mode allow_all does not cover a command line that cannot be read "
                "fully; no rule matched"};
      }
      return {RuleAction::kAllow, "approval_mode is allow_all; no rule matched"};
    case ApprovalMode::kDenyAll:
      return {RuleAction::kDeny, "approval_mode is deny_all; no rule matched"};
    case ApprovalMode::kDefault:
      break;
  }
  if (spec.read_only) {
    return {RuleAction::kAllow, spec.qualified_name + " is read-only; no rule matched"};
  }
  if (spec.call_stays_local && spec.call_stays_local(arguments)) {
    return {RuleAction::kAllow, spec.qualified_name +
                                    ": this call changes and sends nothing outside the session; no "
                                    "rule matched"};
  }
  return {RuleAction::kAsk, spec.qualified_name + " is not read-only; no rule matched"};
}

// deny > ask > allow.
int Severity(RuleAction action) {
  return action == RuleAction::kDeny ? 2 : action == RuleAction::kAsk ? 1 : 0;
}

// The tool whose url rules also judge the URLs other tools fetch.
constexpr char kFetchTool[] = "builtin/web_fetch";

}  // namespace

std::string DescribeRule(const config::RuleConfig& rule) {
  std::string subject = rule.command    ? absl::StrCat(" command \"", *rule.command, "\"")
                        : rule.path     ? absl::StrCat(" path \"", *rule.path, "\"")
                        : rule.redirect ? absl::StrCat(" redirect \"", *rule.redirect, "\"")
                        : rule.url      ? absl::StrCat(" url \"", *rule.url, "\"")
                                        : "";
  return absl::StrCat(ActionName(rule.action), " ", rule.tool, subject);
}

absl::StatusOr<RuleSet> RuleSet::Compile(const std::vector<config::RuleConfig>& rules,
                                         const std::string& where) {
  RuleSet set;
  set.rules_.reserve(rules.size());
  for (size_t i = 0; i < rules.size(); ++i) {
    const config::RuleConfig& rule = rules[i];
    std::string at = absl::StrCat(where, "[", i, "]");
    if (int(rule.command.has_value()) + int(rule.path.has_value()) +
            int(rule.redirect.has_value()) + int(rule.url.has_value()) >
        1) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": a rule has one of a command, a path, a redirect or a url pattern, not several"));
    }
    // Cached: every turn compiles its agent's rules (and the built-in ones)
    // again, and they rarely change.
    auto tool = Pattern::CompileCached(rule.tool, Pattern::Style::kText);
    if (!tool.ok())
      return absl::InvalidArgumentError(absl::StrCat(at, ".tool: ", tool.status().message()));
    Compiled compiled{rule, *std::move(tool), {}, at, std::nullopt};
    const std::optional<std::string>& pattern = rule.command    ? rule.command
                                                : rule.path     ? rule.path
                                                : rule.redirect ? rule.redirect
                                                                : rule.url;
    if (pattern) {
      // Paths and redirect targets are path patterns; commands and URLs text.
      auto subject = Pattern::CompileCached(
          *pattern, rule.path || rule.redirect ? Pattern::Style::kPath : Pattern::Style::kText);
      if (!subject.ok()) {
        const char* field = rule.command    ? ".command: "
                            : rule.path     ? ".path: "
                            : rule.redirect ? ".redirect: "
                                            : ".url: ";
        return absl::InvalidArgumentError(absl::StrCat(at, field, subject.status().message()));
      }
      compiled.subject.push_back(*std::move(subject));
    }
    compiled.prepared = Prepare(compiled);
    set.rules_.push_back(std::move(compiled));
  }
  return set;
}

std::optional<RuleSet::PreparedAnchor> RuleSet::Prepare(const Compiled& rule) {
  // Allow rules keep the links under the working directory, which each
  // check names: they are anchored at the check. So are relative patterns.
  if (rule.config.action == RuleAction::kAllow || rule.subject.empty() ||
      !(rule.config.path || rule.config.redirect)) {
    return std::nullopt;
  }
  const std::string& pattern = rule.subject[0].text();
  if (pattern.starts_with("re:")) return std::nullopt;
  const std::optional<std::string> in_home = HomePatternPath(pattern);
  if (!in_home && (pattern.empty() || pattern[0] != '/')) return std::nullopt;
  const std::string& absolute = in_home ? *in_home : pattern;
  PreparedAnchor prepared;
  if (in_home) prepared.home = std::getenv("HOME");
  prepared.split = SplitPathPattern(absolute);
  prepared.normal = LexicalNormal(prepared.split.literal);
  // A normal literal part holds no character EscapeGlob changes (it would
  // have ended the literal part): anchored as written, it is `absolute`.
  std::string joined;
  const std::string& text = prepared.normal == prepared.split.literal
                                ? absolute
                                : (joined = JoinAnchored(prepared.normal, prepared.split.rest));
  // Usually the pattern itself (a protected path's is written normalized);
  // otherwise cached, as Compile's own patterns: every turn compiles the
  // rules again, and these are the texts the check would otherwise compile.
  auto anchored = text == pattern ? absl::StatusOr<Pattern>(rule.subject[0])
                                  : Pattern::CompileCached(text, Pattern::Style::kPath);
  if (!anchored.ok()) return std::nullopt;  // anchored at each check, and failing there
  if (!anchored->is_regex() && !text.ends_with("/**")) {
    auto inside = Pattern::CompileCached(text == "/" ? std::string("/**") : text + "/**",
                                         Pattern::Style::kPath);
    if (!inside.ok()) return std::nullopt;
    prepared.inside = *std::move(inside);
  }
  prepared.anchored = *std::move(anchored);
  return prepared;
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
  // Each deny rule naming one literal file or directory protects that
  // file's other names too (protected_links.h).
  std::vector<ProtectedLinks::Root> roots;
  for (const auto& [rule, label] : rules) {
    if (rule.action != RuleAction::kDeny || !rule.path) continue;
    std::optional<std::string> path = ProtectedLinks::LiteralPathOf(*rule.path);
    if (!path) continue;
    auto same = [&](const ProtectedLinks::Root& root) { return root.path == *path; };
    if (std::none_of(roots.begin(), roots.end(), same)) roots.push_back({*path, label});
  }
  if (links_ != nullptr) {
    for (const ProtectedLinks::Root& root : links_->roots()) roots.push_back(root);
  }
  if (!roots.empty()) links_ = std::make_shared<const ProtectedLinks>(std::move(roots));
  compiled->rules_.reserve(compiled->rules_.size() + rules_.size());
  for (Compiled& rule : rules_) compiled->rules_.push_back(std::move(rule));
  rules_ = std::move(compiled->rules_);
  return absl::OkStatus();
}

Decision RuleSet::Evaluate(const ToolSpec& spec, const Json& arguments, const std::string& cwd,
                           config::ApprovalMode mode) const {
  auto describe = [](const Compiled& rule) {
    return absl::StrCat(rule.label, " (", DescribeRule(rule.config), ")");
  };
  LinkMemo links;  // this evaluation's view of the file system
  // A deny or ask rule covers what its pattern names and everything inside
  // it ("secret" or "secret/" keeps secret/key too), and one whose anchored
  // pattern does not compile applies: no rule fails open.
  auto anchored_matches = [](RuleAction action, const std::string& anchored_text,
                             const std::string& path) {
    auto anchored = Pattern::CompileCached(anchored_text, Pattern::Style::kPath);
    if (!anchored.ok()) return action != RuleAction::kAllow;
    if (PathRuleMatches(action, *anchored, path)) return true;
    if (action == RuleAction::kAllow || anchored->is_regex() || anchored_text.ends_with("/**")) {
      return false;
    }
    auto inside = Pattern::CompileCached(
        anchored_text == "/" ? std::string("/**") : anchored_text + "/**", Pattern::Style::kPath);
    return !inside.ok() || inside->Matches(path);
  };
  const char* home = std::getenv("HOME");
  auto path_matches = [&](const Compiled& rule, const std::string& path) {
    const RuleAction action = rule.config.action;
    const std::optional<PreparedAnchor>& prepared = rule.prepared;
    if (prepared && (prepared->home.empty() || (home != nullptr && prepared->home == home))) {
      // What AnchorPathPattern does, with the split and, when the literal
      // directories resolve as written, the compiled patterns made once.
      const std::string resolved =
          ResolveRulePathWith("/", prepared->split.literal, &links, {}).path;
      if (resolved != prepared->normal) {
        return anchored_matches(action, JoinAnchored(resolved, prepared->split.rest), path);
      }
      if (PathRuleMatches(action, *prepared->anchored, path)) return true;
      return prepared->inside && prepared->inside->Matches(path);
    }
    return anchored_matches(
        action,
        AnchorPathPattern(cwd, rule.subject[0].text(), &links, action == RuleAction::kAllow), path);
  };
  // The first rule that applies to the call with `command`, `path` or
  // `redirect` (a redirection's resolved target) as its subject (none: the
  // call has none). Without `allow_patterns`, allow rules with a command or
  // redirect pattern are skipped (a line they must not decide).
  auto first_rule = [&](const std::string* command, const std::string* path,
                        const std::string* redirect, bool allow_patterns) -> const Compiled* {
    for (const Compiled& rule : rules_) {
      if (!rule.tool.Matches(spec.qualified_name)) continue;
      if (rule.subject.empty()) return &rule;
      bool may_allow = allow_patterns || rule.config.action != RuleAction::kAllow;
      if (rule.config.command && spec.rule_subject == RuleSubject::kCommand) {
        if (command != nullptr && may_allow && rule.subject[0].Matches(*command)) return &rule;
      } else if (rule.config.redirect && spec.rule_subject == RuleSubject::kCommand) {
        if (redirect != nullptr && may_allow && path_matches(rule, *redirect)) return &rule;
      } else if (rule.config.path && spec.rule_subject == RuleSubject::kPath && path != nullptr) {
        if (path_matches(rule, *path)) return &rule;
      } else if (rule.config.url && spec.rule_subject == RuleSubject::kUrl && path != nullptr) {
        if (rule.subject[0].Matches(*path)) return &rule;  // `path` holds the URL here
      }
    }
    return nullptr;
  };
  auto decide = [&](const Compiled* rule, bool unreadable = false) {
    return rule != nullptr ? Decision{rule->config.action, describe(*rule)}
                           : Unmatched(spec, arguments, mode, unreadable);
  };

  std::optional<std::string> subject = SubjectOf(spec, arguments);
  if (spec.rule_subject == RuleSubject::kPath) {
    if (!subject) return decide(first_rule(nullptr, nullptr, nullptr, true));
    RulePath judged = ResolveRulePathWith(cwd, *subject, &links, {});
    if (!judged.complete) {
      return Decision{RuleAction::kDeny,
                      absl::StrCat("the path ", *subject,
                                   " passes through more symbolic links than the system follows "
                                   "(40): no rule can tell which file it names")};
    }
    const std::string& resolved = judged.path;
    const Compiled* rule = first_rule(nullptr, &resolved, nullptr, true);
    // Another name of a protected file (protected_links.h): one stat, and a
    // walk of the protected places only for a file with several links.
    if (links_ != nullptr && (rule == nullptr || rule->config.action != RuleAction::kDeny)) {
      if (std::optional<std::string> link = links_->CheckPath(resolved)) {
        return {RuleAction::kDeny, absl::StrCat(*link, " for ", resolved)};
      }
    }
    Decision decision = decide(rule);
    decision.reason = absl::StrCat(decision.reason, " for ", resolved);
    return decision;
  }
  if (spec.rule_subject == RuleSubject::kUrl) {
    if (!subject) return decide(first_rule(nullptr, nullptr, nullptr, true));
    std::string url = RuleUrl(*subject);
    Decision decision = decide(first_rule(nullptr, &url, nullptr, true));
    decision.reason = absl::StrCat(decision.reason, " for ", url);
    return decision;
  }
  if (spec.rule_subject != RuleSubject::kCommand && spec.fetched_urls_of) {
    // The call as a whole, then each URL it names: the most severe answer
    // wins, and the reason names every part that got it.
    Decision whole = decide(first_rule(nullptr, nullptr, nullptr, true));
    std::vector<std::string> reasons[3];  // by Severity
    reasons[Severity(whole.action)].push_back(whole.reason);
    if (arguments.is_object()) {
      for (const std::string& written : spec.fetched_urls_of(arguments)) {
        const std::string url = RuleUrl(written);
        const Compiled* rule = FirstUrlRule(spec.qualified_name, url);
        if (rule == nullptr || rule->config.action == RuleAction::kAllow) continue;
        std::string reason = absl::StrCat(describe(*rule), " for ", url);
        std::vector<std::string>& list = reasons[Severity(rule->config.action)];
        if (std::find(list.begin(), list.end(), reason) == list.end()) list.push_back(reason);
      }
    }
    for (RuleAction action : {RuleAction::kDeny, RuleAction::kAsk, RuleAction::kAllow}) {
      if (!reasons[Severity(action)].empty()) {
        return {action, absl::StrJoin(reasons[Severity(action)], "; ")};
      }
    }
    return whole;
  }
  if (spec.rule_subject != RuleSubject::kCommand) {
    return decide(first_rule(nullptr, nullptr, nullptr, true));
  }

  absl::StatusOr<CommandSubjects> analysis =
      subject ? AnalyzeShellCommand(*subject)
              : absl::InvalidArgumentError("the call has no \"" + spec.rule_argument + "\" string");
  if (analysis.ok() && analysis->subjects.empty()) {
    analysis = absl::InvalidArgumentError("the command is empty");
  }
  if (!analysis.ok()) {
    // Deny and ask patterns are still tried on the whole text.
    Decision decision =
        decide(first_rule(subject ? &*subject : nullptr, nullptr, nullptr, false), true);
    decision.reason = absl::StrCat("command patterns do not apply (", analysis.status().message(),
                                   "); ", decision.reason);
    return decision;
  }
  // Each subject on its own; the most severe answer wins, and the reason
  // names every part that got it. A canonical form only restricts.
  const std::string& opaque = analysis->opaque_reason;
  const std::vector<std::string>& environment = analysis->environment;
  bool unreadable = !opaque.empty() || !environment.empty();
  std::vector<std::string> reasons[3];  // by Severity
  auto add = [&](RuleAction action, std::string reason) {
    std::vector<std::string>& list = reasons[Severity(action)];
    if (std::find(list.begin(), list.end(), reason) == list.end())
      list.push_back(std::move(reason));
  };
  for (const CommandSubject& part : analysis->subjects) {
    if (part.kind == CommandSubject::Kind::kRedirect) {
      // A target whose links cannot all be followed is one only running the
      // line would tell.
      std::optional<std::string> target = ResolveRedirectTarget(cwd, part.text);
      const bool known = part.known && target.has_value();
      const std::string resolved = target.value_or("");
      const Compiled* rule =
          first_rule(nullptr, nullptr, known ? &resolved : nullptr, opaque.empty() && known);
      Decision decision = rule != nullptr || !known || !IsHarmlessRedirectTarget(part.text)
                              ? decide(rule, unreadable || !known)
                              : Decision{RuleAction::kAllow, "writes no file"};
      add(decision.action,
          absl::StrCat("\"redirect to ",
                       known ? resolved : part.text + "\" (only known when the line runs)",
                       known ? "\": " : ": ", decision.reason));
      continue;
    }
    const Compiled* rule = first_rule(&part.text, nullptr, nullptr, opaque.empty());
    if (part.kind == CommandSubject::Kind::kCanonical &&
        (rule == nullptr || rule->config.action == RuleAction::kAllow)) {
      continue;
    }
    Decision decision = decide(rule, unreadable);
    add(decision.action, absl::StrCat("\"", part.text, "\": ", decision.reason));
  }
  Decision overall{RuleAction::kAllow, ""};
  for (RuleAction action : {RuleAction::kDeny, RuleAction::kAsk, RuleAction::kAllow}) {
    if (reasons[Severity(action)].empty()) continue;
    overall = {action, absl::StrJoin(reasons[Severity(action)], "; ")};
    break;
  }
  if (!environment.empty()) {
    overall.reason = absl::StrCat("the command line sets ", absl::StrJoin(environment, ", "),
                                  ", which can change what commands run; ", overall.reason);
  }
  if (!opaque.empty()) {
    overall.reason = absl::StrCat("allow patterns do not apply (", opaque, "); ", overall.reason);
  }
  return overall;
}

namespace {

// The exact session rule for each distinct subject of a command line, with
// the program pattern its command may be widened to ("git status *");
// nullopt when nothing can be allowed exactly (the line cannot be split, is
// opaque, or writes where only running it tells).
struct OfferedRule {
  config::RuleConfig exact;
  std::string text;                    // the command as written
  std::optional<std::string> program;  // command rules only
};
std::optional<std::vector<OfferedRule>> CommandSessionRules(const config::RuleConfig& whole_tool,
                                                            const std::string& command,
                                                            const std::string& cwd) {
  auto analysis = AnalyzeShellCommand(command);
  if (!analysis.ok() || !analysis->opaque_reason.empty()) return std::nullopt;
  std::set<std::string> written;  // the line's own simple commands
  if (auto line = ParseShellLine(command); line.ok()) {
    for (const SimpleCommand& simple : line->commands) written.insert(simple.Text());
  }
  std::vector<OfferedRule> offered;
  std::set<std::string> seen;
  for (const CommandSubject& part : analysis->subjects) {
    if (part.kind == CommandSubject::Kind::kCanonical) continue;
    OfferedRule rule{whole_tool, part.text, std::nullopt};
    if (part.kind == CommandSubject::Kind::kRedirect) {
      if (!part.known) return std::nullopt;
      if (IsHarmlessRedirectTarget(part.text)) continue;
      std::optional<std::string> target = ResolveRedirectTarget(cwd, part.text);
      if (!target) return std::nullopt;
      rule.exact.redirect = EscapeGlob(*target);
    } else {
      rule.exact.command = EscapeGlob(part.text);
      // A line that sets what changes commands is allowed exactly only, and
      // so is a command that another runs (bash -c, xargs, find -exec, …):
      // only the line's own simple commands are widened.
      if (analysis->environment.empty() && written.contains(part.text)) {
        rule.program = ProgramPattern(part.text);
      }
    }
    if (seen.insert(DescribeRule(rule.exact)).second) offered.push_back(std::move(rule));
  }
  return offered;
}

}  // namespace

std::vector<std::vector<config::RuleConfig>> RuleSet::SessionRuleOptions(const ToolSpec& spec,
                                                                         const Json& arguments,
                                                                         const std::string& cwd) {
  config::RuleConfig whole_tool;
  whole_tool.action = RuleAction::kAllow;
  whole_tool.tool = EscapeGlob(spec.qualified_name);
  std::optional<std::string> subject = SubjectOf(spec, arguments);
  // A session rule for the whole tool would let every later call send any
  // URL unasked; none narrower means anything for it.
  if (spec.fetched_urls_of) return {};
  if (spec.rule_subject == RuleSubject::kNone) return {{whole_tool}};
  if (!subject) return {};
  if (spec.rule_subject == RuleSubject::kPath) {
    whole_tool.path = EscapeGlob(ResolveRulePath(cwd, *subject));
    return {{whole_tool}};
  }
  if (spec.rule_subject == RuleSubject::kUrl) {
    whole_tool.url = EscapeGlob(RuleUrl(*subject));
    return {{whole_tool}};
  }
  std::optional<std::vector<OfferedRule>> offered = CommandSessionRules(whole_tool, *subject, cwd);
  if (!offered || offered->empty()) return {};
  std::vector<config::RuleConfig> exact, widened;
  std::set<std::string> seen;
  bool wider = false;
  for (const OfferedRule& rule : *offered) {
    exact.push_back(rule.exact);
    config::RuleConfig wide = rule.exact;
    if (rule.program) {
      wide.command = *rule.program;
      wider = true;
      // "ls *" does not match "ls" itself: the exact rule stays then.
      auto pattern = Pattern::Compile(*rule.program, Pattern::Style::kText);
      if (!pattern.ok() || !pattern->Matches(rule.text)) {
        if (seen.insert(DescribeRule(rule.exact)).second) widened.push_back(rule.exact);
      }
    }
    if (seen.insert(DescribeRule(wide)).second) widened.push_back(std::move(wide));
  }
  std::vector<std::vector<config::RuleConfig>> options{std::move(exact)};
  if (wider) options.push_back(std::move(widened));
  return options;
}

std::vector<config::RuleConfig> RuleSet::SessionRulesFor(const ToolSpec& spec,
                                                         const Json& arguments,
                                                         const std::string& cwd) {
  std::vector<std::vector<config::RuleConfig>> options = SessionRuleOptions(spec, arguments, cwd);
  return options.empty() ? std::vector<config::RuleConfig>{} : options[0];
}

std::optional<std::string> RuleSet::ResolvedPath(const ToolSpec& spec, const Json& arguments,
                                                 const std::string& cwd) {
  if (spec.rule_subject != RuleSubject::kPath) return std::nullopt;
  std::optional<std::string> subject = SubjectOf(spec, arguments);
  if (!subject) return std::nullopt;
  return ResolveRulePath(cwd, *subject);
}

const RuleSet::Compiled* RuleSet::FirstUrlRule(const std::string& tool,
                                               const std::string& url) const {
  for (const Compiled& rule : rules_) {
    if (!rule.config.url) continue;
    if (!rule.tool.Matches(tool) && !rule.tool.Matches(kFetchTool)) continue;
    if (rule.subject[0].Matches(url)) return &rule;
  }
  return nullptr;
}

std::function<std::optional<std::string>(const std::string&)> RuleSet::UrlRefusalFor(
    const ToolSpec& spec) const {
  if (!spec.fetched_urls_of) return nullptr;
  // The url rules that apply to the tool, in order, each with how reasons
  // name it; kept by value, as the callback may outlive this RuleSet.
  struct UrlRule {
    bool deny;
    Pattern url;
    std::string named;
  };
  std::vector<UrlRule> rules;
  bool any_deny = false;
  for (const Compiled& rule : rules_) {
    if (!rule.config.url) continue;
    if (!rule.tool.Matches(spec.qualified_name) && !rule.tool.Matches(kFetchTool)) continue;
    const bool deny = rule.config.action == RuleAction::kDeny;
    any_deny = any_deny || deny;
    rules.push_back(
        {deny, rule.subject[0], absl::StrCat(rule.label, " (", DescribeRule(rule.config), ")")});
  }
  if (!any_deny) return nullptr;
  return [rules = std::move(rules)](const std::string& written) -> std::optional<std::string> {
    const std::string url = RuleUrl(written);
    for (const UrlRule& rule : rules) {
      if (!rule.url.Matches(url)) continue;
      if (!rule.deny) return std::nullopt;
      return absl::StrCat(rule.named, " for ", url);
    }
    return std::nullopt;
  };
}

std::vector<RedirectTarget> RuleSet::ResolvedRedirects(const ToolSpec& spec, const Json& arguments,
                                                       const std::string& cwd) {
  std::vector<RedirectTarget> targets;
  if (spec.rule_subject != RuleSubject::kCommand) return targets;
  std::optional<std::string> subject = SubjectOf(spec, arguments);
  if (!subject) return targets;
  absl::StatusOr<CommandSubjects> analysis = AnalyzeShellCommand(*subject);
  if (!analysis.ok()) return targets;
  for (const CommandSubject& part : analysis->subjects) {
    if (part.kind != CommandSubject::Kind::kRedirect) continue;
    targets.push_back(
        {part.text, part.known ? ResolveRedirectTarget(cwd, part.text) : std::nullopt});
  }
  return targets;
}

std::function<std::optional<std::string>(const std::string&, const struct stat&)>
RuleSet::ProtectedLinkCheck() const {
  if (links_ == nullptr) return nullptr;
  return [links = links_](const std::string& path,
                          const struct stat& opened) -> std::optional<std::string> {
    std::optional<ProtectedLinks::Snapshot> snapshot;
    return links->Check(path, opened, snapshot);
  };
}

std::function<bool(const std::string&)> RuleSet::WalkFilterFor(const ToolSpec& spec,
                                                               const std::string& cwd,
                                                               bool user_approved) const {
  if (spec.rule_subject != RuleSubject::kPath) return nullptr;
  // A tool that names one file (its path is required: read_file, edit_file,
  // write_file) walks nothing; the rules judged its path, and the loop
  // judges it again if it resolves elsewhere when the call runs. A hard link
  // made after the judgement (by a bash call of the same batch) resolves to
  // the same path: ProtectedLinkCheck asks about the file it opened.
  if (IsRequired(spec, spec.rule_argument) && !spec.rule_subject_of) return nullptr;
  struct PathRule {
    RuleAction action;
    std::optional<std::string> pattern;  // none: the rule matches every path
  };
  std::vector<PathRule> applicable;
  bool can_withhold = false;
  for (const Compiled& rule : rules_) {
    if (!rule.tool.Matches(spec.qualified_name)) continue;
    if (!rule.subject.empty() && !rule.config.path) continue;  // never matches a path tool
    can_withhold = can_withhold || rule.config.action == RuleAction::kDeny ||
                   (rule.config.action == RuleAction::kAsk && !user_approved);
    if (rule.subject.empty()) {
      applicable.push_back({rule.config.action, std::nullopt});
      break;  // the rules after it can never be reached
    }
    applicable.push_back({rule.config.action, rule.subject[0].text()});
  }
  if (!can_withhold && links_ == nullptr) return nullptr;
  // Anchoring the patterns reads the file system, so it waits for the walk's
  // first entry: a call that walks nothing (read_file, edit_file) never pays
  // for it. One walk, one thread (walk_filter.h): no lock.
  struct Lazy {
    std::vector<PathRule> rules;
    std::string cwd;
    bool user_approved;
    std::shared_ptr<const ProtectedLinks> links;
    bool built = false;
    std::function<bool(const std::string&)> filter;
  };
  auto lazy = std::make_shared<Lazy>(
      Lazy{std::move(applicable), cwd, user_approved, links_, false, nullptr});
  return [lazy](const std::string& path) {
    if (!lazy->built) {
      LinkMemo links;
      std::vector<WalkFilter::Rule> rules;
      for (const PathRule& rule : lazy->rules) {
        if (!rule.pattern) {
          rules.push_back({rule.action, std::nullopt});
          continue;
        }
        const bool allow = rule.action == RuleAction::kAllow;
        auto anchored = Pattern::CompileCached(
            AnchorPathPattern(lazy->cwd, *rule.pattern, &links, allow), Pattern::Style::kPath);
        if (anchored.ok()) {
          rules.push_back({rule.action, std::move(*anchored)});
        } else if (!allow) {
          rules.push_back({rule.action, std::nullopt});  // applies to every entry: fails closed
        }
      }
      lazy->filter =
          WalkFilter::Callback(std::move(rules), lazy->user_approved, std::move(lazy->links));
      lazy->built = true;
    }
    return lazy->filter != nullptr && lazy->filter(path);
  };
}

}  // namespace raw::tools::policy
