// builtin/edit_file: replaces an exact string in a text file.
//
// old_string must occur exactly once (or replace_all is set), so an edit
// never lands somewhere the model did not mean. The file is rewritten
// atomically (atomic_write.h) keeping its permission bits; a symlink is
// followed as the rules resolved it and survives (one that appears later is
// refused, checked_open.h). The model gets a one-line confirmation; clients get
// a unified diff of the change in ToolOutput::display.

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "daemon/tools/builtin/atomic_write.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/checked_open.h"
#include "daemon/tools/builtin/tool_args.h"
#include "daemon/tools/builtin/unified_diff.h"

namespace raw::tools::builtin {
namespace {

// Files larger than this are not edited in memory.
constexpr int64_t kMaxEditBytes = 16 * 1024 * 1024;

size_t CountOccurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++count;
  }
  return count;
}

// The size of `text` once its `count` occurrences of a `from_size`-byte string
// are replaced by a `to_size`-byte one, or nullopt when that is over `limit`
// (computed without building it and without overflow).
std::optional<size_t> EditedSize(size_t text_size, size_t count, size_t from_size, size_t to_size,
                                 size_t limit) {
  const size_t kept = text_size - count * from_size;  // occurrences never overlap
  if (kept > limit) return std::nullopt;
  if (to_size != 0 && count > (limit - kept) / to_size) return std::nullopt;
  return kept + count * to_size;
}

std::string ReplaceAll(const std::string& text, const std::string& from, const std::string& to,
                       size_t result_size) {
  std::string out;
  out.reserve(result_size);
  size_t start = 0;
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, start)) {
    out.append(text, start, pos - start);
    out += to;
    start = pos + from.size();
  }
  out.append(text, start, std::string::npos);
  return out;
}

size_t LineOfByte(const std::string& s, size_t pos) {
  size_t line = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i) line += s[i] == '\n';
  return line;
}

ToolOutput EditFile(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"path", "old_string", "new_string",
                                                  "replace_all"});
      !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> raw_path = RequiredString(args, "path");
  if (!raw_path.ok()) return ToolOutput::Error(std::string(raw_path.status().message()));
  absl::StatusOr<std::string> old_string = RequiredString(args, "old_string");
  if (!old_string.ok()) return ToolOutput::Error(std::string(old_string.status().message()));
  absl::StatusOr<std::string> new_string = RequiredString(args, "new_string");
  if (!new_string.ok()) return ToolOutput::Error(std::string(new_string.status().message()));
  absl::StatusOr<bool> replace_all = OptionalBool(args, "replace_all", false);
  if (!replace_all.ok()) return ToolOutput::Error(std::string(replace_all.status().message()));
  absl::StatusOr<std::string> resolved = TargetPath(ctx.cwd, *raw_path, ctx.judged_path);
  if (!resolved.ok()) return ToolOutput::Error(std::string(resolved.status().message()));

  if (old_string->empty()) {
    return ToolOutput::Error(
        "old_string is empty; give the exact text to replace (to create a file or replace all "
        "of its content, use write_file)");
  }
  if (*old_string == *new_string) {
    return ToolOutput::Error("old_string and new_string are identical; the edit would change "
                             "nothing");
  }

  // The path the rules judged, with symlinks resolved: editing through a
  // link changes its target and the link stays.
  const std::string& target = *resolved;
  const std::string shown = DisplayPath(ctx.cwd, target);

  struct stat st;
  if (stat(target.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return ToolOutput::Error(absl::StrCat("file not found: ", shown,
                                            " (edit_file changes existing files; create new "
                                            "ones with write_file)"));
    }
    return ToolOutput::Error(absl::StrCat("cannot read ", shown, ": ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return ToolOutput::Error(absl::StrCat(shown, " is a directory; edit_file edits files"));
  }
  if (!S_ISREG(st.st_mode)) {
    return ToolOutput::Error(absl::StrCat(
        shown, " is not a regular file (device, FIFO or socket); edit_file edits files"));
  }
  if (st.st_size > kMaxEditBytes) {
    return ToolOutput::Error(absl::StrCat(shown, " is too large to edit (", st.st_size,
                                          " bytes; the limit is ", kMaxEditBytes, ")"));
  }

  std::string text;
  {
    absl::StatusOr<OpenedFile> opened = OpenRegularFile(target, "edit_file edits regular files");
    if (!opened.ok()) return ToolOutput::Error(std::string(opened.status().message()));
    // As read_file: a link to a protected file made since the judgement.
    if (std::optional<std::string> link = ProtectedLink(ctx, target, opened->info)) {
      return ToolOutput::Error(absl::StrCat(shown, " is denied when edit_file runs: ", *link));
    }
    char buffer[64 * 1024];
    for (;;) {
      ssize_t n = read(opened->handle.get(), buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        return ToolOutput::Error(absl::StrCat("cannot read ", shown, ": ", std::strerror(errno)));
      }
      if (n == 0) break;
      text.append(buffer, static_cast<size_t>(n));
      if (text.size() > static_cast<size_t>(kMaxEditBytes)) {
        return ToolOutput::Error(absl::StrCat(shown, " is too large to edit (the limit is ",
                                              kMaxEditBytes, " bytes)"));
      }
    }
  }
  if (text.find('\0') != std::string::npos) {
    return ToolOutput::Error(absl::StrCat(
        shown, " looks like a binary file (it contains NUL bytes); edit_file edits UTF-8 text"));
  }
  if (size_t valid = ValidUtf8Prefix(text); valid != text.size()) {
    return ToolOutput::Error(absl::StrCat(shown, " is not UTF-8 text (invalid byte on line ",
                                          LineOfByte(text, valid),
                                          "); edit_file edits UTF-8 text only"));
  }

  const size_t count = CountOccurrences(text, *old_string);
  if (count == 0) {
    std::string message = absl::StrCat(
        "old_string was not found in ", shown,
        ". It must match the file exactly, including whitespace, indentation and line breaks; "
        "read the file again and copy the text to replace from it.");
    if (text.find("\r\n") != std::string::npos &&
        old_string->find('\n') != std::string::npos &&
        old_string->find("\r\n") == std::string::npos) {
      absl::StrAppend(&message, " Note: ", shown,
                      " uses CRLF (\\r\\n) line endings, which old_string must match.");
    }
    return ToolOutput::Error(std::move(message));
  }
  if (count > 1 && !*replace_all) {
    return ToolOutput::Error(absl::StrCat(
        "old_string occurs ", count, " times in ", shown,
        "; include more surrounding lines in old_string so that it matches exactly once, or "
        "set replace_all to true to replace every occurrence"));
  }

  // The edited text is bounded like the file read: replace_all with a short
  // old_string and a long new_string would otherwise multiply the file's size
  // in memory, on disk and in the diff.
  const std::optional<size_t> new_size =
      EditedSize(text.size(), count, old_string->size(), new_string->size(),
                 static_cast<size_t>(kMaxEditBytes));
  if (!new_size) {
    return ToolOutput::Error(absl::StrCat(
        "the edit would make ", shown, " larger than ", kMaxEditBytes,
        " bytes (16 MiB), the limit of edit_file; nothing was changed. Use write_file, or bash "
        "for a mechanical rewrite of a large file"));
  }

  std::string updated;
  if (*replace_all) {
    updated = ReplaceAll(text, *old_string, *new_string, *new_size);
  } else {
    size_t pos = text.find(*old_string);
    updated = text;
    updated.replace(pos, old_string->size(), *new_string);
  }
  if (absl::Status s = ReplaceFileAtomically(target, updated, st.st_mode & 07777); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  ToolOutput out = ToolOutput::Ok(absl::StrCat("Replaced ", count,
                                               count == 1 ? " occurrence" : " occurrences",
                                               " in ", shown));
  out.display = UnifiedDiff(text, updated, shown, shown);
  return out;
}

}  // namespace

ToolSpec MakeEditFileTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/edit_file";
  spec.model_name = "edit_file";
  spec.description =
      "Edit a text file by replacing an exact string. old_string must match the file's text "
      "exactly (whitespace, indentation and line breaks included) and, unless replace_all is "
      "true, occur exactly once: include enough surrounding lines to make it unique. Read the "
      "file first so old_string is copied from its current content. To create a file or "
      "rewrite it whole, use write_file. Relative paths are resolved against the session's "
      "working directory. Reports how many occurrences were replaced.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"path",
         {{"type", "string"},
          {"description", "The file to edit: absolute, or relative to the working directory."}}},
        {"old_string",
         {{"type", "string"},
          {"description", "The exact text to replace (not empty)."}}},
        {"new_string",
         {{"type", "string"},
          {"description", "The text to put in its place (may be empty to delete old_string)."}}},
        {"replace_all",
         {{"type", "boolean"},
          {"description", "Replace every occurrence of old_string instead of requiring exactly "
                          "one. Default: false."}}}}},
      {"required", {"path", "old_string", "new_string"}},
      {"additionalProperties", false}};
  spec.read_only = false;
  spec.rule_subject = RuleSubject::kPath;
  spec.rule_argument = "path";
  spec.handler = EditFile;
  return spec;
}

}  // namespace raw::tools::builtin
