// ChangesWhatRuns: whether setting an environment variable can change which
// program a command runs or make it run other code (a preloaded library, a
// configured pager or hook, a shell startup file, a module search path), so
// that a rule about the command no longer describes what happens:
//   LD_* DYLD_* GIT_* (GIT_CONFIG_COUNT/KEY_n/VALUE_n set any git option,
//   core.pager included), names ending in CONFIG or containing _CONFIG_
//   (KUBECONFIG, NPM_CONFIG_…), PATH and names ending in PATH (PYTHONPATH,
//   LD_LIBRARY_PATH), names ending in _OPTIONS, OPTS or OPT (NODE_OPTIONS,
//   JAVA_TOOL_OPTIONS, PERL5OPT), BASH_ENV, ENV, PROMPT_COMMAND, PS0, PS1,
//   PS4, SHELLOPTS, BASHOPTS, IFS, HOME and XDG_CONFIG_HOME (where
//   configuration is read from), EDITOR, VISUAL, PAGER, MANPAGER, LESSOPEN,
//   LESSCLOSE, SSH_ASKPASS, SUDO_ASKPASS, PERL5LIB, RUBYLIB, PYTHONSTARTUP,
//   PYTHONHOME, NODE_PATH, BROWSER, TERMINFO.
// Pure; thread-safe.
#pragma once

#include <string_view>

namespace raw::tools::policy {

bool ChangesWhatRuns(std::string_view name);

}  // namespace raw::tools::policy
