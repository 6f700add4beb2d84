#include "daemon/tools/policy/environment_names.h"

namespace raw::tools::policy {

bool ChangesWhatRuns(std::string_view name) {
  for (std::string_view prefix : {"LD_", "DYLD_", "GIT_"}) {
    if (name.starts_with(prefix)) return true;
  }
  for (std::string_view suffix : {"CONFIG", "PATH", "_OPTIONS", "OPTS", "OPT"}) {
    if (name.ends_with(suffix)) return true;
  }
  if (name.find("_CONFIG_") != std::string_view::npos) return true;
  for (std::string_view exact :
       {"BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS4", "SHELLOPTS", "BASHOPTS", "IFS",
        "HOME", "XDG_CONFIG_HOME", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN",
        "LESSCLOSE", "SSH_ASKPASS", "SUDO_ASKPASS", "PERL5LIB", "RUBYLIB", "PYTHONSTARTUP",
        "PYTHONHOME", "BROWSER", "TERMINFO"}) {
    if (name == exact) return true;
  }
  return false;
}

}  // namespace raw::tools::policy
