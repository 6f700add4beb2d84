// Start-up check of the directories rawd trusts: its state directory
// (database, log, lock) and its config directory. One that group or others
// may write to lets another user replace the config or plant files the
// daemon opens, so it is reported (logged as a warning, shown by `raw
// daemon status`). It is never chmod-ed: the user decides.
// Reads the file system only; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace raw::app {

struct TrustedDir {
  std::string what;  // "state directory"
  std::string path;
};

// One sentence per directory that exists and has group or other write
// permission, naming it, its mode and the fix: "the state directory
// /home/u/.local/state/raw is writable by group and others (mode 0777);
// anyone who can write there can replace files rawd opens: run chmod go-w
// /home/u/.local/state/raw". Missing directories are not reported.
std::vector<std::string> DirPermissionWarnings(const std::vector<TrustedDir>& dirs);

}  // namespace raw::app
