// Redirect targets: the path a redirect rule (config::RuleConfig::redirect)
// sees for a file a command line writes to through a redirection, and the
// targets any line may write to without a rule.
// Reads $HOME and the file system (rule_path.h); thread-safe.
#pragma once

#include <optional>
#include <string>

namespace raw::tools::policy {

// `target` as bash opens it from `cwd`: an unquoted "~" or "~/…" (as the
// analyzer reports it, command_subjects.h) is the user's home ($HOME), then
// resolved like a path rule's subject, except that `..` is taken as the
// kernel takes it ("link/.." is the parent of the link's target: bash does
// not normalize a path before it opens it). nullopt when the target passes
// through more links than the kernel follows, or through /proc (a process's
// own view: /proc/self, /proc/<pid>, /dev/fd/N, /dev/stdin), which rawd
// would resolve as its own, not as the shell's: no rule can tell where it
// is. A harmless target (below) is returned as written.
std::optional<std::string> ResolveRedirectTarget(const std::string& cwd, const std::string& target);

// /dev/null, /dev/stdout and /dev/stderr as written: writing there changes
// no file, so no rule is needed.
bool IsHarmlessRedirectTarget(const std::string& target);

}  // namespace raw::tools::policy
