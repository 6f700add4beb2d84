// builtin/load_skill: gives the model the instructions of one of the agent's
// selected skills (ToolContext::skills), or another file of that skill's
// folder. Read-only; rules match it by tool name only.
//
// The spec is a plain value and its handler keeps no state, so any number of
// sessions may call it concurrently.
#pragma once

#include "daemon/tools/tool.h"

namespace raw::tools::builtin {

// Arguments {name, file?}. Without `file`: the skill's SKILL.md text as it
// is on disk now (front matter removed), after a line naming the skill and
// its folder. With `file`: that UTF-8 text file, a path relative to the
// skill folder whose real path (symlinks resolved) stays inside it, capped
// at tools.files.max_read_bytes.
ToolSpec MakeLoadSkillTool();

}  // namespace raw::tools::builtin
