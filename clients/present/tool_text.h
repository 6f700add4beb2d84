// How tool calls and their results read on every surface: the argument that
// identifies a call, the arguments as lines, result statuses in words, and
// the one-line summary of a result.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "raw/v1/event.pb.h"

namespace raw::present {

// The argument that best identifies a tool call for a one-line summary
// (path, command, pattern, query, url, ...), shortened to one line; "" when
// the arguments are not a JSON object with a string field.
std::string KeyArgument(const std::string& arguments_json);

// That argument's whole text, before KeyArgument puts it on one line and
// cuts it at 80 characters ("" likewise). KeyArgument(a) !=
// KeyArgumentText(a) tells a shortened summary.
std::string KeyArgumentText(const std::string& arguments_json);

// A call's JSON arguments as "key: value" lines (the text itself when it is
// not a JSON object; nothing for "{}").
std::vector<std::string> ArgumentLines(const std::string& arguments_json);

// "ok", "error", "cancelled", "denied", "skipped".
std::string ToolStatusName(v1::ToolResultStatus status);

// "info", "warning", "error".
std::string NoticeLevelName(v1::NoticeLevel level);

// A finished call's result on one line, `ellipsis` marking what is left out:
//   "diff: +3 -1"                       a unified diff (edit_file)
//   "first line … (12 lines)"           several lines
//   "(no output, exit 0)"               a bash run that printed nothing
//   "make: error … (3 lines) · exit code 2"  bash output and a failed exit
//   "(no output)"                       an empty result
// `tool` is the registry name ("builtin/bash") or the name the model used.
std::string ResultSummary(const std::string& tool, const std::string& result,
                          const std::string& ellipsis);

}  // namespace raw::present
