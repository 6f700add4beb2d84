// How one Raw tool call reads as an ACP tool call: its kind, title,
// locations, raw input and content.
//
// Kinds by the registry name: builtin/read_file, list_dir and load_skill
// read; glob and grep search; edit_file and write_file edit; bash
// execute; web_fetch fetch; everything else (MCP tools, unknown names)
// other. Raw has no tools of the kinds delete, move or think.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "common/json.h"
#include "raw/v1/event.pb.h"

namespace raw::acp {

// The ACP ToolKind of a tool (its registry name, e.g. "builtin/bash").
std::string ToolKind(const std::string& tool);

// "bash make -j2", "edit_file src/a.cc": the name the model used and the
// argument that identifies the call (clients/present's KeyArgument).
std::string ToolTitle(const std::string& name, const std::string& arguments_json);

// What a permission request's title gains when ToolTitle shortened the
// key argument (cut it at 80 characters or put it on one line), and
// whether it did.
inline constexpr char kShortenedTitleNote[] = " (shortened; in full below)";
bool TitleIsShortened(const std::string& arguments_json);

// The call in full as Markdown, in a code block: a bash command as it runs,
// other tools' arguments as "key: value" lines (the text itself when they
// are not a JSON object); "" when there is nothing to show.
std::string FullCallText(const std::string& tool, const std::string& arguments_json);

// The call's arguments as JSON (the text as a string when it does not parse).
Json RawInput(const std::string& arguments_json);

// Where the call works: the `path` argument made absolute against `cwd`,
// with read_file's `offset` as the line; [] when it names no path.
Json Locations(const std::string& tool, const std::string& arguments_json,
               const std::string& cwd);

// The `diff` content an edit shows before it runs: edit_file's old_string
// and new_string, write_file's content (oldText null: the old text is not
// known to the client). Empty array for other tools.
Json EditDiff(const std::string& tool, const std::string& arguments_json, const std::string& cwd);

// A `tool_call` update (status pending) for `call`.
Json ToolCallUpdate(const v1::ToolCall& call, const std::string& cwd);

// "completed" for an OK result, "failed" otherwise (error, cancelled,
// denied, skipped: ACP has no other final status).
std::string ResultStatus(v1::ToolResultStatus status);

// The content a finished call shows: an edit's diff when it succeeded,
// else the result text as the model got it, prefixed by its status when
// that was not OK ("denied: ...").
Json ResultContent(const v1::ToolResult& result, const std::string& arguments_json,
                   const std::string& cwd);

// A text ContentBlock inside a ToolCallContent.
Json TextContent(const std::string& text);

}  // namespace raw::acp
