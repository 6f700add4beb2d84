// RuleSet: an agent's ordered allow/ask/deny rules (config::RuleConfig),
// compiled, plus the rules a user adds for the session ("allow for this
// session"), deciding what happens to one tool call.
//
// Evaluation of one call:
// - Rules are tried in order (built-in rules first, PrependRules; session
//   rules after the agent's); a rule applies when its tool pattern matches
//   the qualified name and its command/path/url pattern (if any) matches the
//   call's subject.
// - The subject is the string argument named by spec.rule_argument; a
//   command, path or url pattern never matches a call without one, nor a
//   tool whose rule_subject is of another kind (or kNone).
// - kCommand tools: the command line gives its subjects (command_subjects.h:
//   each simple command as written, the form bash runs it in, what
//   prefixes, bash -c and eval run) and each is decided on its own by the
//   first rule that matches it; the call is denied if any is denied, asks if
//   any asks, and is allowed only when every command is (a canonical form
//   only restricts: its allow or no-match answer does not count). A command
//   no rule matches gets the approval mode's answer (kDefault: ask, as a
//   command tool is not read-only). A command that cannot be split, or has
//   no simple command at all, is never allowed by a command pattern (deny
//   and ask patterns are still tried on the whole text); nor is an opaque
//   line, where bash may run commands no static reading sees (its subjects
//   still meet the deny and ask patterns), and the reason says why:
//   "allow patterns do not apply (the command line hides a command in quotes
//   that bash may evaluate); \"echo …\": builtin/bash is not read-only; no
//   rule matched". The reason names every part that got the call's answer.
// - Redirections of a command line: each file written through one is a
//   subject that only rules with a redirect pattern (matched like a path
//   pattern against the resolved target, "~/" expanded) and rules on the
//   whole tool decide; /dev/null, /dev/stdout and /dev/stderr are allowed
//   without a rule; a target only running tells ("> $f") is never allowed
//   by a pattern.
// - approval_mode allow_all does not allow what the analysis cannot read
//   fully: a line that cannot be split, an opaque one, one that sets
//   variables that change what commands run (LD_PRELOAD, GIT_*, PATH, …,
//   environment_names.h; the reason names them in any mode) or writes where
//   only running it tells asks instead, unless a rule decides it.
// - kPath tools: the subject is the path argument resolved against the
//   session cwd (rule_path.h: normalized, symlinks resolved, so "../" and
//   links cannot hide the real target); a relative glob is anchored at the
//   cwd ("src/**" is <cwd>/src/**), "re:" patterns see the absolute path.
// - kUrl tools (builtin/web_fetch): the subject is the URL normalized as it
//   is fetched (rule_url.h); url patterns are kText globs, so
//   "https://docs.python.org/*" matches every page below that origin.
// - Tools that fetch URLs beside their work (spec.fetched_urls_of,
//   builtin/raven_task): the call is judged as a kNone tool, then every URL
//   it names (normalized as for kUrl) meets the url rules for this tool or
//   for builtin/web_fetch, the first that matches deciding; a deny or ask
//   there is the call's answer when it is more severe, and the reason names
//   the URL. At run time UrlRefusalFor refuses every URL (reopened ones
//   too) that such a deny rule matches.
// - Hard links of protected files: the built-in deny rules (PrependRules)
//   that name one literal file or directory also deny, to every kPath tool,
//   each file that is the same file (device and inode) as one there
//   (protected_links.h), whatever rule would come after; the reason is the
//   built-in rule's label and names the protected file: "protected path
//   ~/.ssh; ... (a hard link of /home/u/.ssh/id_ed25519) for /p/notes.txt".
// - No rule matched: the approval mode decides (config::ApprovalMode);
//   kDefault allows read-only tools and asks for the others.
// Reasons name the rule as "agents.coder.rules[2] (deny builtin/bash
// command \"rm *\")" (the index as in the config) or "session rule (…)".
// Thread-safety: immutable after Compile except AddSessionRules, which needs
// external synchronization against Evaluate.
#pragma once

#include <sys/stat.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "common/pattern.h"
#include "daemon/config/config.h"
#include "daemon/tools/policy/protected_links.h"
#include "daemon/tools/policy/rule_path.h"  // ResolveRulePath
#include "daemon/tools/tool.h"

namespace raw::tools::policy {

struct Decision {
  config::RuleAction action = config::RuleAction::kAsk;
  // Why, for the approval request and for denial results, e.g.
  // "\"rm -rf x\": agents.coder.rules[2] (deny builtin/bash command
  // \"rm *\")" or "builtin/write_file is not read-only; no rule matched
  // /home/u/p/a.txt".
  std::string reason;
};

// A rule in words, as reasons and approval prompts name it:
// "allow builtin/bash command \"git status *\"".
std::string DescribeRule(const config::RuleConfig& rule);

// A file a command line writes through a redirection, as written and where
// it resolves (ResolveRedirectTarget); nullopt when only running the line
// tells (an expansion, too many links).
struct RedirectTarget {
  std::string written;
  std::optional<std::string> resolved;

  bool operator==(const RedirectTarget&) const = default;
};

class RuleSet {
 public:
  RuleSet() = default;

  // `where` names the rules in errors ("agents.coder.rules"); an invalid
  // pattern fails naming the rule index and field:
  // "agents.coder.rules[2].command: invalid regular expression: ...".
  static absl::StatusOr<RuleSet> Compile(const std::vector<config::RuleConfig>& rules,
                                         const std::string& where);

  Decision Evaluate(const ToolSpec& spec, const Json& arguments, const std::string& cwd,
                    config::ApprovalMode mode) const;

  // The session rules that "allow for this session" adds for this call: for
  // kCommand tools one exact (escaped glob) rule per distinct command
  // subject (canonical forms aside) and one exact redirect rule per file a
  // redirection writes to (but /dev/null and the like), for kPath tools the
  // exact resolved path, for kUrl tools the exact URL, otherwise the whole
  // tool. Empty when nothing exact can be allowed (no subject argument, a
  // command that cannot be split or an opaque one, a redirection whose
  // target only running tells, a tool with fetched_urls_of).
  static std::vector<config::RuleConfig> SessionRulesFor(const ToolSpec& spec,
                                                         const Json& arguments,
                                                         const std::string& cwd);
  // The choices "allow for this session" offers, each the rules it adds:
  // first SessionRulesFor; then, for a kCommand tool, the same with each
  // command widened to its program pattern where that is safe
  // (program_pattern.h: "echo *", "git status *"; the exact rule stays when
  // the pattern does not match the command itself; only the line's own
  // simple commands widen, not those another command runs: bash -c, xargs,
  // find -exec), absent when no command widens or the line sets variables
  // that change what runs. Empty when
  // SessionRulesFor is.
  static std::vector<std::vector<config::RuleConfig>> SessionRuleOptions(const ToolSpec& spec,
                                                                         const Json& arguments,
                                                                         const std::string& cwd);
  absl::Status AddSessionRules(const std::vector<config::RuleConfig>& rules);

  // Puts `rules` before all others, each named in reasons by its label
  // (built-in rules such as protected_paths.h's, which the agent's own
  // rules must not override). Those that deny a literal path (or one with
  // "/**") deny its files' hard links too (protected_links.h).
  absl::Status PrependRules(const std::vector<std::pair<config::RuleConfig, std::string>>& rules);

  // The path a kPath call's rules see (ResolveRulePath of its subject);
  // nullopt for other tools and for a call without a path string. A call
  // judged on one path must not run on another: see loop/tool_batch.h.
  static std::optional<std::string> ResolvedPath(const ToolSpec& spec, const Json& arguments,
                                                 const std::string& cwd);
  // The files a kCommand call's redirections write, in the line's order, as
  // its redirect rules see them now; empty for other tools and for a line
  // that cannot be split. A call judged on one target must not write
  // through another: see loop/tool_batch.h.
  static std::vector<RedirectTarget> ResolvedRedirects(const ToolSpec& spec, const Json& arguments,
                                                       const std::string& cwd);

  // For a tool with fetched_urls_of: why the url rules (as Evaluate puts
  // them to the URLs a call names) deny a request to `url`, e.g.
  // "agents.coder.rules[1] (deny builtin/* url \"https://paste.example/*\")
  // for https://paste.example/x"; nullopt when the first url rule that
  // matches is no deny. A ToolContext::url_refused callback that keeps
  // what it needs (it may outlive this RuleSet); null for other tools and
  // when no deny url rule applies to the tool.
  std::function<std::optional<std::string>(const std::string& url)> UrlRefusalFor(
      const ToolSpec& spec) const;

  // For a kPath call that walks a tree below its path (grep, glob,
  // list_dir): the rules each entry of the walk meets (walk_filter.h), as a
  // ToolContext::withheld callback; null when no rule can withhold anything.
  // Hard links of protected files are withheld too, from one snapshot of
  // the protected places per walk (protected_links.h). Null for a kPath
  // tool whose path is required (read_file, edit_file, write_file), which
  // walks nothing (ProtectedLinkCheck asks about the file it opens).
  // The patterns are anchored (which reads the file system) at the walk's
  // first entry, not here; the callback keeps what it needs and may outlive
  // this RuleSet.
  std::function<bool(const std::string&)> WalkFilterFor(const ToolSpec& spec,
                                                        const std::string& cwd,
                                                        bool user_approved) const;

  // A ToolContext::protected_link callback: why the file a tool opened is
  // another name of a protected file (protected_links.h), from a snapshot of
  // the protected places taken then; null when no built-in rule protects a
  // file. It keeps what it needs and may outlive this RuleSet.
  std::function<std::optional<std::string>(const std::string& path, const struct stat& opened)>
  ProtectedLinkCheck() const;

 private:
  // A deny or ask rule's absolute (or "~/…") path or redirect pattern, split
  // once (rule_path.h) and anchored and compiled for the usual case, where
  // no link lies on the way of its literal directories. Each check still
  // resolves those directories afresh; only when they resolve to `normal`
  // are the patterns below used, which are then exactly what anchoring the
  // pattern would make.
  struct PreparedAnchor {
    std::string home;  // the $HOME a "~" pattern was read with; empty for others
    PathPatternSplit split;
    std::string normal;               // LexicalNormal(split.literal)
    std::optional<Pattern> anchored;  // JoinAnchored(normal, split.rest); always set
    std::optional<Pattern> inside;    // the anchored pattern + "/**", when it is tried
  };
  struct Compiled {
    config::RuleConfig config;
    Pattern tool;
    std::vector<Pattern> subject;  // empty or one
    std::string label;             // "agents.coder.rules[2]" or "session rule"
    std::optional<PreparedAnchor> prepared;
  };
  static std::optional<PreparedAnchor> Prepare(const Compiled& rule);
  // The first rule with a url pattern matching `url` whose tool pattern
  // matches `tool` or builtin/web_fetch; null when none does.
  const Compiled* FirstUrlRule(const std::string& tool, const std::string& url) const;
  std::vector<Compiled> rules_;
  // The places the built-in rules protect, for their hard links; null when
  // none. Shared with walk filters, which may outlive this RuleSet.
  std::shared_ptr<const ProtectedLinks> links_;
};

}  // namespace raw::tools::policy
