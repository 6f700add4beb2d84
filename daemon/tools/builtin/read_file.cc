// builtin/read_file: returns a UTF-8 text file, or a window of its lines.
//
// The file is streamed in chunks, so a huge file costs memory only for the
// bytes that are returned; reaching a far offset still reads every line
// before it, so the cancel token is checked before each chunk. Output is
// capped at tools.files.max_read_bytes; the cut falls on a line boundary
// and the result says where to continue. The file is opened at the path the
// rules judged, refusing symlinks on the way and anything but a regular file
// (checked_open.h).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/checked_open.h"
#include "daemon/tools/builtin/tool_args.h"
#include "common/utf8.h"

namespace raw::tools::builtin {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;
// A NUL byte in the first few KiB marks a binary file (the heuristic git and
// grep use).
constexpr size_t kBinarySniffBytes = 8 * 1024;

int64_t LineOfByte(const std::string& s, size_t pos, int64_t first_line) {
  int64_t line = first_line;
  for (size_t i = 0; i < pos && i < s.size(); ++i) line += s[i] == '\n';
  return line;
}

std::string Describe(const std::string& path, int err) {
  if (err == ENOENT || err == ENOTDIR) return absl::StrCat("file not found: ", path);
  return absl::StrCat("cannot read ", path, ": ", std::strerror(err));
}

ToolOutput ReadFile(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"path", "offset", "limit"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> raw_path = RequiredString(args, "path");
  if (!raw_path.ok()) return ToolOutput::Error(std::string(raw_path.status().message()));
  absl::StatusOr<std::optional<int64_t>> offset_arg = OptionalInteger(args, "offset", 1);
  if (!offset_arg.ok()) return ToolOutput::Error(std::string(offset_arg.status().message()));
  absl::StatusOr<std::optional<int64_t>> limit_arg = OptionalInteger(args, "limit", 1);
  if (!limit_arg.ok()) return ToolOutput::Error(std::string(limit_arg.status().message()));
  absl::StatusOr<std::string> resolved = TargetPath(ctx.cwd, *raw_path, ctx.judged_path);
  if (!resolved.ok()) return ToolOutput::Error(std::string(resolved.status().message()));
  const std::string& path = *resolved;

  const int64_t offset = offset_arg->value_or(1);
  const int64_t last_wanted = limit_arg->has_value() && **limit_arg <= INT64_MAX - offset
                                  ? offset + **limit_arg - 1
                                  : std::numeric_limits<int64_t>::max();
  const size_t cap = FileReadCap(ctx.settings.files.max_read_bytes);

  struct stat st;
  if (stat(path.c_str(), &st) != 0) return ToolOutput::Error(Describe(path, errno));
  if (S_ISDIR(st.st_mode)) {
    return ToolOutput::Error(absl::StrCat(
        path, " is a directory; read_file reads files (list directories with list_dir)"));
  }
  if (!S_ISREG(st.st_mode)) {
    return ToolOutput::Error(absl::StrCat(
        path, " is not a regular file (device, FIFO or socket); read_file reads regular files"));
  }
  absl::StatusOr<OpenedFile> opened = OpenRegularFile(path, "read_file reads regular files");
  if (!opened.ok()) return ToolOutput::Error(std::string(opened.status().message()));
  // A file with several names may have become another name of a protected
  // file since the call was judged (a bash call of the same batch made the
  // link): ToolContext::protected_link tells (policy/protected_links.h).
  if (std::optional<std::string> link = ProtectedLink(ctx, path, opened->info)) {
    return ToolOutput::Error(absl::StrCat(path, " is denied when read_file runs: ", *link));
  }
  const int fd = opened->handle.get();

  std::string out;
  std::string buf(kChunkBytes, '\0');
  int64_t line = 1;               // the line the next byte belongs to
  size_t line_start_in_out = 0;   // where the current line begins in `out`
  bool more = false;              // bytes follow the returned window
  bool capped = false;
  bool first_chunk = true;
  char last_byte = '\n';          // '\n' for an empty file
  int read_errno = 0;
  for (bool done = false; !done;) {
    if (ctx.cancel.cancelled()) return ToolOutput::Cancelled("read_file was cancelled");
    ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      read_errno = errno;
      break;
    }
    if (n == 0) break;
    const size_t got = static_cast<size_t>(n);
    if (first_chunk && std::memchr(buf.data(), '\0', std::min(got, kBinarySniffBytes))) {
      return ToolOutput::Error(absl::StrCat(
          path, " looks like a binary file (it contains NUL bytes); read_file reads UTF-8 text"));
    }
    first_chunk = false;
    last_byte = buf[got - 1];
    for (size_t i = 0; i < got;) {
      if (line > last_wanted) {
        more = true;
        done = true;
        break;
      }
      const void* nl = std::memchr(buf.data() + i, '\n', got - i);
      size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) + 1 : got;
      if (line >= offset) {
        if (out.size() + (end - i) > cap) {
          out.append(buf.data() + i, std::min(end - i, cap + 1 - out.size()));
          capped = true;
          done = true;
          break;
        }
        out.append(buf.data() + i, end - i);
      }
      if (nl) {
        ++line;
        line_start_in_out = out.size();
      }
      i = end;
    }
  }
  if (read_errno != 0) return ToolOutput::Error(Describe(path, read_errno));

  std::string footer;
  if (capped) {
    std::string limit_text =
        absl::StrCat(cap, " bytes (the read limit, tools.files.max_read_bytes)");
    if (line_start_in_out > 0) {
      // Drop the partial line: the model continues from its start.
      out.resize(line_start_in_out);
      footer = absl::StrCat("[output truncated at ", limit_text, ": showed lines ", offset, "-",
                            line - 1, "; read on with offset=", line, "]");
    } else {
      // One line longer than the cap: show its head.
      out.resize(Utf8Floor(out, cap));
      footer = absl::StrCat("[output truncated at ", limit_text, ": line ", line,
                            " alone is longer; showed its first ", out.size(),
                            " bytes; the next line starts at offset=", line + 1, "]");
    }
  } else if (more) {
    footer = absl::StrCat("[showed lines ", offset, "-", line - 1,
                          "; the file continues: read on with offset=", line, "]");
  } else {
    int64_t total_lines = last_byte == '\n' ? line - 1 : line;
    if (offset > total_lines && !(offset == 1 && total_lines == 0)) {
      return ToolOutput::Error(absl::StrCat("offset ", offset, " is past the end of ", path,
                                            " (it has ", total_lines, " lines)"));
    }
    if (total_lines == 0) return ToolOutput::Ok(absl::StrCat("(", path, " is empty)"));
    if (offset > 1) {
      footer = absl::StrCat("[showed lines ", offset, "-", total_lines, "; end of file]");
    }
  }

  size_t valid = ValidUtf8Prefix(out);
  if (valid != out.size()) {
    return ToolOutput::Error(absl::StrCat(path, " is not UTF-8 text (invalid byte on line ",
                                          LineOfByte(out, valid, offset),
                                          "); read_file reads UTF-8 text only"));
  }
  if (footer.empty()) return ToolOutput::Ok(std::move(out));
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += footer;
  return ToolOutput::Ok(std::move(out));
}

}  // namespace

ToolSpec MakeReadFileTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/read_file";
  spec.model_name = "read_file";
  spec.description =
      "Read a UTF-8 text file. Returns the file's text exactly as stored (no line numbers). "
      "Relative paths are resolved against the session's working directory; absolute paths are "
      "allowed. Large files are cut on a line boundary at the configured read limit and the "
      "result says which offset to read on from. Directories and binary files are refused.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"path",
         {{"type", "string"},
          {"description",
           "The file to read: absolute, or relative to the working directory."}}},
        {"offset",
         {{"type", "integer"},
          {"minimum", 1},
          {"description", "1-based number of the first line to return. Default: 1."}}},
        {"limit",
         {{"type", "integer"},
          {"minimum", 1},
          {"description", "Maximum number of lines to return. Default: to the end of the file "
                          "(within the read limit)."}}}}},
      {"required", {"path"}},
      {"additionalProperties", false}};
  spec.read_only = true;
  spec.rule_subject = RuleSubject::kPath;
  spec.rule_argument = "path";
  spec.handler = ReadFile;
  return spec;
}

}  // namespace raw::tools::builtin
