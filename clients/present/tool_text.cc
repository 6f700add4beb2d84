#include "clients/present/tool_text.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "clients/present/diff_text.h"
#include "clients/present/terminal_text.h"
#include "clients/present/text.h"
#include "common/json.h"

namespace raw::present {
namespace {

constexpr size_t kMaxKeyArgumentChars = 80;

bool IsBash(const std::string& tool) { return tool == "bash" || absl::EndsWith(tool, "/bash"); }

// The bash tool ends its result with one "[exit code N]" (or "[killed by
// ...]") line; splits it off. Empty when the last line is no such note.
std::string SplitBashNote(std::string& text) {
  size_t start = text.rfind('\n');
  start = start == std::string::npos ? 0 : start + 1;
  absl::string_view last = absl::string_view(text).substr(start);
  if (last.size() < 2 || last.front() != '[' || last.back() != ']') return "";
  std::string note(last.substr(1, last.size() - 2));
  text.erase(start == 0 ? 0 : start - 1);
  return note;
}

// What the bash tool writes in place of output when the command printed
// nothing (then its exit note follows on the next line).
constexpr absl::string_view kBashNoOutput = "(no output)";

// "(no output, exit 0)" for the note "exit code 0"; other notes ("killed by
// signal 9 (SIGKILL)") as they are.
std::string NoOutputSummary(absl::string_view note) {
  constexpr absl::string_view kExitCode = "exit code ";
  if (absl::StartsWith(note, kExitCode)) {
    return absl::StrCat("(no output, exit ", note.substr(kExitCode.size()), ")");
  }
  return absl::StrCat("(no output, ", note, ")");
}

}  // namespace

std::string ToolStatusName(v1::ToolResultStatus status) {
  switch (status) {
    case v1::TOOL_RESULT_STATUS_OK:
      return "ok";
    case v1::TOOL_RESULT_STATUS_ERROR:
      return "error";
    case v1::TOOL_RESULT_STATUS_CANCELLED:
      return "cancelled";
    case v1::TOOL_RESULT_STATUS_DENIED:
      return "denied";
    case v1::TOOL_RESULT_STATUS_SKIPPED:
      return "skipped";
    default:
      return "unknown";
  }
}

std::string NoticeLevelName(v1::NoticeLevel level) {
  switch (level) {
    case v1::NOTICE_LEVEL_WARNING:
      return "warning";
    case v1::NOTICE_LEVEL_ERROR:
      return "error";
    default:
      return "info";
  }
}

std::string KeyArgument(const std::string& arguments_json) {
  return Truncate(OneLine(KeyArgumentText(arguments_json)), kMaxKeyArgumentChars);
}

std::string KeyArgumentText(const std::string& arguments_json) {
  auto parsed = ParseJson(arguments_json);
  if (!parsed.ok() || !parsed->is_object()) return "";
  static const char* const kKeys[] = {"path", "file_path", "command", "cmd",  "pattern",
                                      "query", "url",      "file",    "name", "task"};
  const Json* chosen = nullptr;
  for (const char* key : kKeys) {
    auto it = parsed->find(key);
    if (it != parsed->end() && it->is_string()) {
      chosen = &*it;
      break;
    }
  }
  if (chosen == nullptr) {
    for (const auto& item : parsed->items()) {
      if (item.value().is_string()) {
        chosen = &item.value();
        break;
      }
    }
  }
  return chosen == nullptr ? "" : chosen->get<std::string>();
}

std::vector<std::string> ArgumentLines(const std::string& arguments_json) {
  std::vector<std::string> lines;
  auto parsed = ParseJson(arguments_json);
  if (!parsed.ok() || !parsed->is_object()) {
    if (!arguments_json.empty() && arguments_json != "{}") {
      lines.push_back(ShowCarriageReturns(arguments_json));
    }
    return lines;
  }
  for (const auto& item : parsed->items()) {
    std::string value =
        item.value().is_string() ? item.value().get<std::string>() : item.value().dump();
    // A carriage return shown, not dropped: it is part of what runs.
    lines.push_back(ShowCarriageReturns(absl::StrCat(item.key(), ": ", value)));
  }
  return lines;
}

std::string ResultSummary(const std::string& tool, const std::string& result,
                          const std::string& ellipsis) {
  if (LooksLikeDiff(result)) {
    DiffCounts counts = CountDiff(result);
    return absl::StrCat("diff: +", counts.added, " -", counts.removed);
  }
  std::string text(absl::StripTrailingAsciiWhitespace(result));
  std::string note = IsBash(tool) || absl::StartsWith(text, kBashNoOutput) ? SplitBashNote(text) : "";
  text = std::string(absl::StripTrailingAsciiWhitespace(text));
  if (!note.empty() && (text.empty() || text == kBashNoOutput)) return NoOutputSummary(note);
  std::string summary;
  size_t lines = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++lines;
    absl::string_view stripped = absl::StripAsciiWhitespace(line);
    if (summary.empty() && !stripped.empty()) summary = std::string(stripped);
  }
  if (text.empty()) summary = "(no output)";
  if (lines > 1) absl::StrAppend(&summary, " ", ellipsis, " (", lines, " lines)");
  if (!note.empty() && note != "exit code 0") absl::StrAppend(&summary, " · ", note);
  return summary;
}

}  // namespace raw::present
