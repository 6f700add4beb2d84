// Names of MCP tools inside Raw.
//
// Qualified name: "mcp/<server>/<tool>", what agents' tools.use patterns
// match. Model-facing name: "mcp__<server>__<tool>" when that already
// matches ^[a-zA-Z0-9_-]{1,64}$; otherwise every other character becomes
// '_', the name is cut to leave room, and "_" plus 8 hex digits of a hash
// of the qualified name is appended, so different tools whose names
// sanitize alike still differ, and a name is the same on every run.
//
// Uniqueness: config admits only server names of at most 32 of
// [a-zA-Z0-9_-] without "__" and not ending in '_'
// (config::AmbiguousServerName). The server part of a model-facing name
// then ends at the first "__" after "mcp__", and the cut never reaches it,
// so tools of different servers never share a model-facing name. A server
// name outside that rule (not accepted by config) is always hashed. What
// remains is within one server: a tool literally named like another's
// sanitized form ("issues_list_152d6992" next to "issues.list"), or two
// hashes that agree; McpManager leaves the second such tool out with a
// notice.
//
// Usable names: the qualified name is what rules and tools.use patterns
// match, so a tool name a pattern could not name exactly, or that reads
// differently from what it is, is left out (ToolNameProblem): control
// characters (a newline slips past a "re:" rule whose `.` stops at it),
// whitespace, the glob characters '*', '?' and '\\', bidirectional
// formatting and zero-width characters, and ill-formed UTF-8.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace raw::mcp {

std::string QualifiedToolName(const std::string& server, const std::string& tool);

// What makes `tool` unusable as a tool name ("a control character",
// "whitespace", "'*'", ...), or "" when it is usable.
std::string ToolNameProblem(const std::string& tool);
// `tool` with every character ToolNameProblem objects to written as an
// escape ("\n", "\x1B", "\u202E"; a backslash as "\\"), at most
// about 200 bytes: safe to show in a notice.
std::string EscapedToolName(const std::string& tool);
std::string ModelFacingToolName(const std::string& server, const std::string& tool);

// True when `pattern` (a glob, common/star_glob.h) matches some qualified
// name that starts with `prefix`: whether a tools.use entry may select tools
// of a server ("mcp/<server>/").
bool PatternMayMatchPrefix(const std::string& pattern, const std::string& prefix);

}  // namespace raw::mcp
