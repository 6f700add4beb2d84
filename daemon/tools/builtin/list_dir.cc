// builtin/list_dir: a directory's entries, optionally a few levels deep, as
// an indented tree.
//
// Everything is listed except .git (this is a listing, not a search, so
// .gitignore does not apply). Symlinks are shown with their target and never
// entered. The listing stops at tools.files.max_results entries. The
// directory is opened at the path the rules judged, refusing any symlink on
// the way, and walked relative to descriptors (file_walker.h).

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/checked_open.h"
#include "daemon/tools/builtin/file_walker.h"
#include "daemon/tools/builtin/tool_args.h"

namespace raw::tools::builtin {
namespace {

constexpr int64_t kMaxDepth = 5;

std::string HumanSize(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < sizeof(units) / sizeof(units[0])) {
    value /= 1024.0;
    ++unit;
  }
  return absl::StrFormat("%.1f %s", value, units[unit]);
}

std::string LinkTarget(const WalkEntry& entry) {
  std::string target(4096, '\0');
  ssize_t n = readlinkat(entry.dir_fd, entry.name(), target.data(), target.size());
  if (n < 0) return "?";
  target.resize(static_cast<size_t>(n));
  return target;
}

ToolOutput ListDir(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"path", "depth"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::optional<std::string>> path_arg = OptionalString(args, "path");
  if (!path_arg.ok()) return ToolOutput::Error(std::string(path_arg.status().message()));
  absl::StatusOr<std::optional<int64_t>> depth_arg = OptionalInteger(args, "depth", 1);
  if (!depth_arg.ok()) return ToolOutput::Error(std::string(depth_arg.status().message()));
  const int64_t depth = depth_arg->value_or(1);
  if (depth > kMaxDepth) {
    return ToolOutput::Error(
        absl::StrCat("argument \"depth\" must be at most ", kMaxDepth, ", got ", depth));
  }
  absl::StatusOr<std::string> dir = ResolvePath(ctx.cwd, path_arg->value_or(ctx.cwd));
  if (!dir.ok()) return ToolOutput::Error(std::string(dir.status().message()));

  // The directory is opened at the path the rules judged, refusing any
  // symlink on the way (checked_open.h); the listing shows it as written.
  absl::StatusOr<std::string> judged = TargetPath(ctx.cwd, *dir, ctx.judged_path);
  if (!judged.ok()) return ToolOutput::Error(std::string(judged.status().message()));
  struct stat st;
  if (stat(judged->c_str(), &st) != 0) {
    return ToolOutput::Error(absl::StrCat("directory not found: ", *dir));
  }
  if (!S_ISDIR(st.st_mode)) {
    return ToolOutput::Error(
        absl::StrCat(*dir, " is not a directory; read files with read_file"));
  }
  absl::StatusOr<OpenedFile> opened = OpenDirectoryToWalk(*judged);
  // A directory that cannot be read is listed as such; a link on the way is
  // refused.
  if (!opened.ok() && !absl::IsUnknown(opened.status())) {
    return ToolOutput::Error(std::string(opened.status().message()));
  }
  FileHandle root_dir = opened.ok() ? std::move(opened->handle) : FileHandle();

  const int64_t configured = ctx.settings.files.max_results;
  const int64_t cap = configured > 0 ? configured : 500;
  std::string out = *dir == "/" ? "/\n" : absl::StrCat(*dir, "/\n");
  int64_t listed = 0;
  bool capped = false;
  WalkOptions options;
  options.respect_gitignore = false;
  options.max_depth = static_cast<int>(depth);
  options.withheld = ctx.withheld;
  auto visit = [&](const WalkEntry& entry) {
    if (listed >= cap) {
      capped = true;
      return WalkStep::kStop;
    }
    ++listed;
    size_t level = 0;
    for (char c : entry.rel) level += c == '/';
    std::string indent(2 * (level + 1), ' ');
    absl::string_view name = entry.rel;
    if (size_t slash = name.rfind('/'); slash != absl::string_view::npos) {
      name = name.substr(slash + 1);
    }
    switch (entry.type) {
      case WalkEntry::Type::kDirectory:
        absl::StrAppend(&out, indent, name, "/\n");
        break;
      case WalkEntry::Type::kFile:
        absl::StrAppend(&out, indent, name, " (", HumanSize(entry.st.st_size), ")\n");
        break;
      case WalkEntry::Type::kSymlink: {
        struct stat target;
        bool to_dir =
            fstatat(entry.dir_fd, entry.name(), &target, 0) == 0 && S_ISDIR(target.st_mode);
        absl::StrAppend(&out, indent, name, to_dir ? "/" : "", " -> ", LinkTarget(entry), "\n");
        break;
      }
      case WalkEntry::Type::kOther:
        absl::StrAppend(&out, indent, name, S_ISFIFO(entry.st.st_mode)    ? " (fifo)\n"
                                            : S_ISSOCK(entry.st.st_mode) ? " (socket)\n"
                                                                         : " (device)\n");
        break;
    }
    return WalkStep::kContinue;
  };
  WalkSummary summary = WalkTree(std::move(root_dir), *judged, options, ctx.cancel, visit);
  if (summary.cancelled) return ToolOutput::Cancelled("list_dir was cancelled");
  if (listed == 0) absl::StrAppend(&out, "  (empty)\n");
  if (capped) {
    absl::StrAppend(&out, "[listing cut at ", cap, " entries (tools.files.max_results); list a "
                    "subdirectory or use a smaller depth to see the rest]\n");
  }
  if (summary.unreadable_directories > 0) {
    absl::StrAppend(&out, "[", summary.unreadable_directories, " director",
                    summary.unreadable_directories == 1 ? "y" : "ies",
                    " could not be read]\n");
  }
  absl::StrAppend(&out, WithheldNote(summary));
  out.pop_back();
  return ToolOutput::Ok(std::move(out));
}

}  // namespace

ToolSpec MakeListDirTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/list_dir";
  spec.model_name = "list_dir";
  spec.description =
      "List a directory's entries as an indented tree, sorted by name: directories end with "
      "'/', files show their size, symlinks show `name -> target` (and are not entered). With "
      "depth > 1, subdirectories are listed too, down to that many levels. Lists everything "
      "except .git, ignored files included. The listing is capped at the configured number of "
      "entries. To find files by name across a tree use glob; to read a file use read_file.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"path",
         {{"type", "string"},
          {"description", "The directory to list: absolute, or relative to the working "
                          "directory. Default: the working directory."}}},
        {"depth",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", kMaxDepth},
          {"description", "How many levels to list (1 = only the directory's own entries). "
                          "Default: 1."}}}}},
      {"required", OrderedJson::array()},
      {"additionalProperties", false}};
  spec.read_only = true;
  spec.rule_subject = RuleSubject::kPath;
  spec.rule_argument = "path";
  spec.handler = ListDir;
  return spec;
}

}  // namespace raw::tools::builtin
