// Built-in tools: the factories for the tools compiled into rawd. Each tool
// lives in its own file and exports one ToolSpec; RegisterBuiltinTools
// (declared in registry.h) adds them all, one line per tool.
//
// The specs are plain values: every call builds a fresh one, and the
// handlers keep no state between calls, so any number of sessions may run
// them concurrently from their own turn threads.
#pragma once

#include "daemon/tools/tool.h"

namespace raw::tools::builtin {

// builtin/read_file: reads a UTF-8 text file, optionally a window of lines.
ToolSpec MakeReadFileTool();

// builtin/write_file: writes a whole file atomically, creating directories.
ToolSpec MakeWriteFileTool();

// builtin/bash: runs a command with /bin/bash in its own process group.
ToolSpec MakeBashTool();

}  // namespace raw::tools::builtin
