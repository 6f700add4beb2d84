// builtin/glob: the files under a directory whose relative paths match a
// glob pattern (path_glob.h), newest first.
//
// Leading literal segments of the pattern ("src/lib" in "src/lib/**/*.h")
// become the starting directory, so only that part of the tree is walked,
// and the walk skips directories the pattern cannot reach. .git and what
// .gitignore files exclude are left out (file_walker.h); symlinks to files
// are listed, symlinks to directories are neither followed nor listed. The
// starting directory is opened at the path the rules judged, refusing any
// symlink on the way, and walked relative to descriptors.

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/checked_open.h"
#include "daemon/tools/builtin/file_walker.h"
#include "daemon/tools/builtin/path_glob.h"
#include "daemon/tools/builtin/tool_args.h"

namespace raw::tools::builtin {
namespace {

struct Match {
  std::string shown;
  struct timespec mtime;
};

bool NewerFirst(const Match& a, const Match& b) {
  if (a.mtime.tv_sec != b.mtime.tv_sec) return a.mtime.tv_sec > b.mtime.tv_sec;
  if (a.mtime.tv_nsec != b.mtime.tv_nsec) return a.mtime.tv_nsec > b.mtime.tv_nsec;
  return a.shown < b.shown;
}

// A pattern split where the walk starts: its leading literal segments (a
// directory below the search directory, or below "/" for an absolute
// pattern) and the rest, which is matched during the walk.
struct SplitPattern {
  bool absolute = false;
  std::vector<std::string> literal;
  std::vector<std::string> rest;
};

absl::StatusOr<SplitPattern> Split(const std::string& pattern) {
  SplitPattern split;
  split.absolute = !pattern.empty() && pattern[0] == '/';
  std::vector<std::string> segments;
  for (std::string_view part : SplitPath(pattern)) {
    // The rules judge where the walk starts; a ".." would let it start
    // above that, somewhere they did not judge.
    if (part == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("pattern \"", pattern,
                       "\" has a \"..\" segment: a pattern matches below the "
                       "directory searched; name a directory above it in \"path\" instead"));
    }
    segments.emplace_back(part);
  }
  if (segments.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("pattern \"", pattern, "\" names no files"));
  }
  size_t literal = 0;
  while (literal + 1 < segments.size() && !HasGlobMeta(segments[literal]) &&
         segments[literal] != "**") {
    ++literal;
  }
  split.literal.assign(segments.begin(), segments.begin() + literal);
  split.rest.assign(segments.begin() + literal, segments.end());
  return split;
}

// The directory the walk starts from, as the rules see it: `path` (the
// working directory when absent) or "/", then the pattern's literal
// segments. Without a usable pattern (the call then fails) it is `path`;
// nullopt when `path` is not a string.
std::optional<std::string> SearchRoot(const Json& args) {
  auto path = args.find("path");
  if (path != args.end() && !path->is_string()) return std::nullopt;
  std::string root = path == args.end() ? std::string(".") : path->get<std::string>();
  auto pattern = args.find("pattern");
  if (pattern == args.end() || !pattern->is_string()) return root;
  absl::StatusOr<SplitPattern> split = Split(pattern->get<std::string>());
  if (!split.ok()) return root;
  if (split->absolute) root = "/";
  for (const std::string& segment : split->literal) absl::StrAppend(&root, "/", segment);
  return root;
}

ToolOutput Glob(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"pattern", "path"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> pattern = RequiredString(args, "pattern");
  if (!pattern.ok()) return ToolOutput::Error(std::string(pattern.status().message()));
  absl::StatusOr<std::optional<std::string>> path_arg = OptionalString(args, "path");
  if (!path_arg.ok()) return ToolOutput::Error(std::string(path_arg.status().message()));
  if (pattern->empty()) return ToolOutput::Error("argument \"pattern\" is empty");

  absl::StatusOr<std::string> base = ResolvePath(ctx.cwd, path_arg->value_or(ctx.cwd));
  if (!base.ok()) return ToolOutput::Error(std::string(base.status().message()));
  const std::string shown_base = DisplayPath(ctx.cwd, *base);
  struct stat st;
  if (stat(base->c_str(), &st) != 0) {
    return ToolOutput::Error(absl::StrCat("directory not found: ", shown_base));
  }
  if (!S_ISDIR(st.st_mode)) {
    return ToolOutput::Error(absl::StrCat(shown_base, " is not a directory; path names the "
                                          "directory to search from"));
  }

  // An absolute pattern is searched from "/" and its results stay absolute.
  absl::StatusOr<SplitPattern> split = Split(*pattern);
  if (!split.ok()) return ToolOutput::Error(std::string(split.status().message()));
  std::string root = split->absolute ? "/" : *base;
  std::string shown_prefix = split->absolute ? "/" : "";
  if (!split->literal.empty()) {
    std::string joined = absl::StrJoin(split->literal, "/");
    root = std::filesystem::path(root + "/" + joined).lexically_normal().string();
    if (root.size() > 1 && root.back() == '/') root.pop_back();
    absl::StrAppend(&shown_prefix, joined, "/");
  }
  const std::vector<std::string>& rest = split->rest;
  absl::StatusOr<PathGlob> glob = PathGlob::Compile(absl::StrJoin(rest, "/"));
  if (!glob.ok()) {
    return ToolOutput::Error(absl::StrCat("invalid pattern: ", glob.status().message()));
  }

  const std::string no_match =
      absl::StrCat("No files found matching \"", *pattern, "\" in ", shown_base);
  // The walk starts at the directory the rules judged, opened without
  // following any symlink on the way (checked_open.h).
  absl::StatusOr<std::string> judged = TargetPath(ctx.cwd, root, ctx.judged_path);
  if (!judged.ok()) return ToolOutput::Error(std::string(judged.status().message()));
  absl::StatusOr<OpenedFile> opened = OpenDirectoryToWalk(*judged);
  if (absl::IsNotFound(opened.status()) || absl::IsFailedPrecondition(opened.status())) {
    return ToolOutput::Ok(no_match);
  }
  if (!opened.ok() && !absl::IsUnknown(opened.status())) {
    return ToolOutput::Error(std::string(opened.status().message()));
  }
  FileHandle root_dir = opened.ok() ? std::move(opened->handle) : FileHandle();

  std::vector<Match> matches;
  WalkOptions options;
  options.withheld = ctx.withheld;
  auto visit = [&](const WalkEntry& entry) {
    switch (entry.type) {
      case WalkEntry::Type::kDirectory:
        return glob->CouldMatchInside(entry.rel) ? WalkStep::kContinue
                                                 : WalkStep::kSkipDirectory;
      case WalkEntry::Type::kFile:
        if (glob->Matches(entry.rel)) {
          matches.push_back({shown_prefix + entry.rel, entry.st.st_mtim});
        }
        break;
      case WalkEntry::Type::kSymlink: {
        struct stat target;
        if (glob->Matches(entry.rel) && fstatat(entry.dir_fd, entry.name(), &target, 0) == 0 &&
            S_ISREG(target.st_mode)) {
          matches.push_back({shown_prefix + entry.rel, target.st_mtim});
        }
        break;
      }
      case WalkEntry::Type::kOther:
        break;
    }
    return WalkStep::kContinue;
  };
  WalkSummary summary = WalkTree(std::move(root_dir), *judged, options, ctx.cancel, visit);
  if (summary.cancelled) return ToolOutput::Cancelled("glob was cancelled");
  if (matches.empty() && !summary.hit_entry_limit) {
    std::string note = WithheldNote(summary);
    return ToolOutput::Ok(note.empty() ? no_match : absl::StrCat(no_match, "\n", note));
  }

  std::sort(matches.begin(), matches.end(), NewerFirst);
  const int64_t configured = ctx.settings.files.max_results;
  const size_t cap = static_cast<size_t>(configured > 0 ? configured : 500);
  std::string out;
  for (size_t i = 0; i < matches.size() && i < cap; ++i) absl::StrAppend(&out, matches[i].shown, "\n");
  if (matches.size() > cap) {
    absl::StrAppend(&out, "[", matches.size() - cap, " more matching files not shown: the "
                    "list stops at ", cap, " (tools.files.max_results); narrow the pattern or "
                    "path to see them]\n");
  }
  if (summary.hit_entry_limit) {
    absl::StrAppend(&out, "[the search stopped after visiting ", summary.visited,
                    " entries, so matches may be missing; narrow the pattern or path]\n");
  }
  absl::StrAppend(&out, WithheldNote(summary));
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return ToolOutput::Ok(std::move(out));
}

}  // namespace

ToolSpec MakeGlobTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/glob";
  spec.model_name = "glob";
  spec.description =
      "Find files by name pattern. Returns the paths of matching files relative to the search "
      "directory, one per line, sorted by modification time, most recently modified first "
      "(ties by name). Patterns: `*` matches any run of characters within one path segment, "
      "`?` one character, `[abc]` a character class, `{a,b}` alternatives, and `**` any number "
      "of directories, e.g. \"**/*.py\", \"src/**/*.{h,cc}\", \"*.md\" (top level only). Skips "
      ".git and files excluded by .gitignore; does not follow symlinked directories. The list "
      "is capped at the configured number of results and says how many more matched.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"pattern",
         {{"type", "string"},
          {"description", "Glob pattern matched against paths relative to the search "
                          "directory, e.g. \"src/**/*.cc\"."}}},
        {"path",
         {{"type", "string"},
          {"description", "Directory to search from: absolute, or relative to the working "
                          "directory. Default: the working directory."}}}}},
      {"required", {"pattern"}},
      {"additionalProperties", false}};
  spec.read_only = true;
  spec.rule_subject = RuleSubject::kPath;
  spec.rule_argument = "path";
  // The rules judge where the walk starts, which the pattern can move below
  // `path` ("secret/**") or to "/" ("/etc/*").
  spec.rule_subject_of = SearchRoot;
  spec.handler = Glob;
  return spec;
}

}  // namespace raw::tools::builtin
