// Where Raw's installed data files are: <prefix>/share/raw/, the prefix
// being the directory above the one holding the running program (bin/).
// The build tree has the same layout (build/bin, build/share/raw), so a
// program run from either finds its files the same way.
#pragma once

#include <string>

namespace raw::client {

// The absolute path of share/raw/`name` beside the program `self_exe`
// (resolved through symlinks), or "" when no such file exists.
std::string FindAsset(const std::string& self_exe, const std::string& name);

}  // namespace raw::client
