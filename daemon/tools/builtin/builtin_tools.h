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

// builtin/edit_file: replaces an exact string in a text file (once, or
// everywhere), atomically; the display carries a unified diff.
ToolSpec MakeEditFileTool();

// builtin/glob: files whose paths match a glob, newest first.
ToolSpec MakeGlobTool();

// builtin/grep: lines matching an RE2 regular expression in a file or tree.
ToolSpec MakeGrepTool();

// builtin/list_dir: a directory's entries, optionally a few levels deep.
ToolSpec MakeListDirTool();

// builtin/web_fetch: an http(s) URL fetched through ToolContext::http and
// returned as text.
ToolSpec MakeWebFetchTool();

// builtin/web_search: one query against the configured web search backend
// (raven.search), returning title, URL, snippet and date per result.
ToolSpec MakeWebSearchTool();

// builtin/raven_task: one durable research Task per session (daemon/raven);
// its state rides the host-side metadata of its results.
ToolSpec MakeRavenTaskTool();

}  // namespace raw::tools::builtin
