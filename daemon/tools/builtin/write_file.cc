// builtin/write_file: replaces a file's whole content atomically.
//
// The content goes to a temporary file in the target's directory, which is
// flushed and then renamed over the target, so readers see either the old
// file or the new one and a failure never leaves a half-written file. A
// symlink is followed as the rules resolved it (its target is replaced, the
// link stays; a link that appears later is refused, atomic_write.h); an existing
// file keeps its permission bits; a new one gets 0666 minus the umask.
// Missing parent directories are created one component at a time relative
// to descriptors, never through a symlink (checked_open.h), and the file is
// written in the very directory so reached.

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/tools/builtin/atomic_write.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/checked_open.h"
#include "daemon/tools/builtin/tool_args.h"

namespace raw::tools::builtin {
namespace {

namespace fs = std::filesystem;

std::string Errno(const std::string& what, const std::string& path, int err) {
  return absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(err));
}

ToolOutput WriteFile(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"path", "content"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> raw_path = RequiredString(args, "path");
  if (!raw_path.ok()) return ToolOutput::Error(std::string(raw_path.status().message()));
  absl::StatusOr<std::string> content = RequiredString(args, "content");
  if (!content.ok()) return ToolOutput::Error(std::string(content.status().message()));
  absl::StatusOr<std::string> resolved = TargetPath(ctx.cwd, *raw_path, ctx.judged_path);
  if (!resolved.ok()) return ToolOutput::Error(std::string(resolved.status().message()));
  if (!raw_path->empty() && raw_path->back() == '/') {
    return ToolOutput::Error(absl::StrCat("path \"", *raw_path, "\" names a directory, not a file"));
  }

  // The path the rules judged, with symlinks resolved: writing through a
  // link replaces its target and the link survives.
  const std::string& target = *resolved;

  const fs::path path(target);
  absl::StatusOr<OpenedFile> parent = OpenOrCreateDirectory(path.parent_path().string());
  if (!parent.ok()) return ToolOutput::Error(std::string(parent.status().message()));
  const std::string name = path.filename().string();

  // What is there now, in the very directory the write goes to, without
  // following a link: the target was resolved when the call was judged, so
  // a link at its name appeared since. The write replaces such a link and
  // the new file gets a new file's mode, never the mode of whatever the
  // link points at.
  bool existed = false;
  mode_t mode = NewFileMode();
  struct stat st;
  if (fstatat(parent->handle.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return ToolOutput::Error(absl::StrCat(target, " is a directory; write_file writes files"));
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
      return ToolOutput::Error(absl::StrCat(
          target, " is not a regular file (device, FIFO or socket); write_file writes files"));
    }
    existed = true;
    if (S_ISREG(st.st_mode)) mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    return ToolOutput::Error(Errno("write", target, errno));
  }

  if (absl::Status s = ReplaceFileAtomicallyAt(parent->handle.get(), name, target, *content, mode);
      !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  return ToolOutput::Ok(absl::StrCat(existed ? "Overwrote " : "Created ", target, " (",
                                     content->size(), " bytes written)"));
}

}  // namespace

ToolSpec MakeWriteFileTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/write_file";
  spec.model_name = "write_file";
  spec.description =
      "Write a file, replacing all of its content. Creates missing parent directories. The write "
      "is atomic: the file is either fully replaced or left unchanged. Relative paths are "
      "resolved against the session's working directory; absolute paths are allowed. Reports "
      "whether the file was created or overwritten and how many bytes were written.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"path",
         {{"type", "string"},
          {"description",
           "The file to write: absolute, or relative to the working directory."}}},
        {"content",
         {{"type", "string"}, {"description", "The complete new content of the file."}}}}},
      {"required", {"path", "content"}},
      {"additionalProperties", false}};
  spec.read_only = false;
  spec.rule_subject = RuleSubject::kPath;
  spec.rule_argument = "path";
  spec.handler = WriteFile;
  return spec;
}

}  // namespace raw::tools::builtin
