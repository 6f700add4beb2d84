// NamedPaths: what `raw config check` reports beyond the loader's
// validation, about folders the config names. The loader does not refuse a
// config for them (an agent that never reads them works), but a turn of an
// agent that does would fail, so a check names them before any turn does.
// Reads the file system (stat); thread-safe.
#pragma once

#include <vector>

#include "daemon/config/config_loader.h"

namespace raw::config {

// One problem per `skill_dirs` entry that does not exist or is not a
// directory, e.g.
//   skill_dirs[0]: "skills" (/home/me/.config/raw/skills) does not exist; ...
// A relative entry is taken against the directory of `config.source_path`,
// as turns take it (the current directory when there is no source path).
std::vector<ConfigProblem> CheckNamedPaths(const Config& config);

// The directory relative `skill_dirs` entries are taken against: that of
// `config.source_path`, or the current directory when there is none.
std::string SkillBaseDir(const Config& config);

}  // namespace raw::config
