// builtin/grep: searches file contents for an RE2 regular expression, line
// by line, in one file or a directory tree.
//
// The file or directory searched is opened at the path the rules judged,
// without following a symlink (checked_open.h), and the tree walk
// (file_walker.h) reaches the files below it relative to descriptors. The
// walk skips .git, what .gitignore files exclude and symlinks; binary files
// (a NUL byte in their first 8 KiB) and files over kMaxFileBytes are
// skipped. Output is bounded: at most tools.files.max_results lines, each
// cut at kMaxLineBytes.

#include <sys/stat.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/checked_open.h"
#include "daemon/tools/builtin/file_walker.h"
#include "daemon/tools/builtin/path_glob.h"
#include "daemon/tools/builtin/string_view_bridge.h"
#include "daemon/tools/builtin/tool_args.h"
#include "re2/re2.h"

namespace raw::tools::builtin {
namespace {

constexpr size_t kMaxLineBytes = 500;
constexpr int64_t kMaxFileBytes = 32 * 1024 * 1024;
constexpr int64_t kMaxContext = 10;

enum class Mode { kContent, kFilesWithMatches, kCount };

struct Search {
  const RE2* regex = nullptr;
  Mode mode = Mode::kContent;
  size_t context = 0;
  size_t cap = 0;
  const CancelToken* cancel = nullptr;

  std::string out;
  size_t lines_out = 0;
  bool capped = false;
  bool cancelled = false;
  bool any_group = false;  // a content group was printed (for "--")

  // Adds one output line; false once the cap is reached.
  bool Emit(std::string_view line) {
    if (lines_out >= cap) {
      capped = true;
      return false;
    }
    absl::StrAppend(&out, ToAbsl(line), "\n");
    ++lines_out;
    return true;
  }

  static std::string Cut(std::string_view text) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.size() <= kMaxLineBytes) return SanitizeUtf8(text);
    return absl::StrCat(SanitizeUtf8(text.substr(0, Utf8Floor(text, kMaxLineBytes))),
                        " [... line cut]");
  }

  // Searches `text` (the content of the file shown as `shown`); false when
  // the whole search must stop.
  bool File(const std::string& shown, std::string_view text) {
    size_t count = 0;
    size_t line_no = 0;
    size_t last_printed = 0;   // line number last printed in this file
    size_t after_left = 0;     // trailing context lines still to print
    std::deque<std::pair<size_t, std::string_view>> before;
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      size_t end = nl == std::string_view::npos ? text.size() : nl;
      std::string_view line = text.substr(start, end - start);
      start = end + 1;
      ++line_no;
      if ((line_no & 0xffff) == 0 && cancel->cancelled()) {
        cancelled = true;
        return false;
      }
      std::string_view subject = line;
      if (!subject.empty() && subject.back() == '\r') subject.remove_suffix(1);
      const bool hit = RE2::PartialMatch(subject, *regex);
      if (!hit) {
        if (mode == Mode::kContent && context > 0) {
          if (after_left > 0) {
            --after_left;
            last_printed = line_no;
            if (!Emit(absl::StrCat(shown, "-", line_no, "- ", Cut(line)))) return false;
          } else {
            before.emplace_back(line_no, line);
            if (before.size() > context) before.pop_front();
          }
        }
        continue;
      }
      ++count;
      if (mode == Mode::kFilesWithMatches) return Emit(shown);
      if (mode == Mode::kCount) continue;
      if (context > 0) {
        size_t first = before.empty() ? line_no : before.front().first;
        if (any_group && (last_printed == 0 || first > last_printed + 1)) {
          if (!Emit("--")) return false;
        }
        for (const auto& [number, context_line] : before) {
          if (!Emit(absl::StrCat(shown, "-", number, "- ", Cut(context_line)))) return false;
        }
        before.clear();
        after_left = context;
        any_group = true;
      }
      last_printed = line_no;
      if (!Emit(absl::StrCat(shown, ":", line_no, ": ", Cut(line)))) return false;
    }
    if (mode == Mode::kCount && count > 0) return Emit(absl::StrCat(shown, ":", count));
    return true;
  }
};

// Reads a whole file; false when it cannot be read.
ToolOutput Grep(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(
          args, {"pattern", "path", "glob", "case_insensitive", "output_mode", "context"});
      !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> pattern = RequiredString(args, "pattern");
  if (!pattern.ok()) return ToolOutput::Error(std::string(pattern.status().message()));
  absl::StatusOr<std::optional<std::string>> path_arg = OptionalString(args, "path");
  if (!path_arg.ok()) return ToolOutput::Error(std::string(path_arg.status().message()));
  absl::StatusOr<std::optional<std::string>> glob_arg = OptionalString(args, "glob");
  if (!glob_arg.ok()) return ToolOutput::Error(std::string(glob_arg.status().message()));
  absl::StatusOr<bool> case_insensitive = OptionalBool(args, "case_insensitive", false);
  if (!case_insensitive.ok()) {
    return ToolOutput::Error(std::string(case_insensitive.status().message()));
  }
  absl::StatusOr<std::optional<std::string>> mode_arg = OptionalString(args, "output_mode");
  if (!mode_arg.ok()) return ToolOutput::Error(std::string(mode_arg.status().message()));
  absl::StatusOr<std::optional<int64_t>> context = OptionalInteger(args, "context", 0);
  if (!context.ok()) return ToolOutput::Error(std::string(context.status().message()));
  if (context->value_or(0) > kMaxContext) {
    return ToolOutput::Error(absl::StrCat("argument \"context\" must be at most ", kMaxContext,
                                          ", got ", **context));
  }

  Search search;
  const std::string mode = mode_arg->value_or("content");
  if (mode == "content") {
    search.mode = Mode::kContent;
  } else if (mode == "files_with_matches") {
    search.mode = Mode::kFilesWithMatches;
  } else if (mode == "count") {
    search.mode = Mode::kCount;
  } else {
    return ToolOutput::Error(absl::StrCat("argument \"output_mode\" must be \"content\", "
                                          "\"files_with_matches\" or \"count\", got \"",
                                          mode, "\""));
  }
  if (pattern->empty()) return ToolOutput::Error("argument \"pattern\" is empty");
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(!*case_insensitive);
  auto regex = std::make_unique<RE2>(*pattern, options);
  if (!regex->ok()) {
    return ToolOutput::Error(absl::StrCat("invalid regular expression \"", *pattern,
                                          "\": ", regex->error(),
                                          " (the syntax is RE2's: no backreferences or "
                                          "lookaround)"));
  }
  std::optional<PathGlob> filter;
  bool filter_on_path = false;
  if (glob_arg->has_value() && !(*glob_arg)->empty()) {
    absl::StatusOr<PathGlob> compiled = PathGlob::Compile(**glob_arg);
    if (!compiled.ok()) {
      return ToolOutput::Error(absl::StrCat("invalid glob: ", compiled.status().message()));
    }
    filter = std::move(*compiled);
    filter_on_path = (*glob_arg)->find('/') != std::string::npos;
  }

  absl::StatusOr<std::string> root = ResolvePath(ctx.cwd, path_arg->value_or(ctx.cwd));
  if (!root.ok()) return ToolOutput::Error(std::string(root.status().message()));
  const std::string shown_root = DisplayPath(ctx.cwd, *root);
  // What is searched is opened at the path the rules judged, refusing any
  // symlink on the way (checked_open.h); results still show the path as
  // written.
  absl::StatusOr<std::string> judged = TargetPath(ctx.cwd, *root, ctx.judged_path);
  if (!judged.ok()) return ToolOutput::Error(std::string(judged.status().message()));
  struct stat st;
  if (stat(judged->c_str(), &st) != 0) {
    return ToolOutput::Error(absl::StrCat("path not found: ", shown_root));
  }

  const int64_t configured = ctx.settings.files.max_results;
  search.regex = regex.get();
  search.context = search.mode == Mode::kContent ? static_cast<size_t>(context->value_or(0)) : 0;
  search.cap = static_cast<size_t>(configured > 0 ? configured : 500);
  search.cancel = &ctx.cancel;

  int64_t skipped_large = 0;
  WalkSummary summary;
  std::string text;
  if (S_ISREG(st.st_mode)) {
    absl::StatusOr<OpenedFile> file =
        OpenRegularFile(*judged, "grep searches regular files and directories");
    if (!file.ok()) return ToolOutput::Error(std::string(file.status().message()));
    // A file with several names may have become another name of a protected
    // file since the call was judged (policy/protected_links.h).
    if (std::optional<std::string> link = ProtectedLink(ctx, *judged, file->info)) {
      return ToolOutput::Error(absl::StrCat(shown_root, " is denied when grep runs: ", *link));
    }
    if (file->info.st_size > kMaxFileBytes) {
      return ToolOutput::Error(absl::StrCat(shown_root, " is too large to search (",
                                            file->info.st_size, " bytes; the limit is ",
                                            kMaxFileBytes, ")"));
    }
    if (!ReadToEnd(file->handle.get(), kMaxFileBytes, text)) {
      return ToolOutput::Error(absl::StrCat("cannot read ", shown_root));
    }
    if (LooksBinary(text)) {
      return ToolOutput::Error(absl::StrCat(shown_root, " looks like a binary file (it contains "
                                            "NUL bytes); grep searches text files"));
    }
    search.File(shown_root, text);
  } else if (S_ISDIR(st.st_mode)) {
    absl::StatusOr<OpenedFile> dir = OpenDirectoryToWalk(*judged);
    if (!dir.ok() && !absl::IsUnknown(dir.status())) {
      return ToolOutput::Error(std::string(dir.status().message()));
    }
    FileHandle root_dir = dir.ok() ? std::move(dir->handle) : FileHandle();
    const std::string shown_prefix = *root == "/" ? "/" : *root + "/";
    WalkOptions walk;
    walk.withheld = ctx.withheld;
    auto visit = [&](const WalkEntry& entry) {
      if (entry.type != WalkEntry::Type::kFile) return WalkStep::kContinue;
      if (filter && !filter->Matches(filter_on_path ? std::string_view(entry.rel)
                                                    : BaseName(entry.rel))) {
        return WalkStep::kContinue;
      }
      if (entry.st.st_size > kMaxFileBytes) {
        ++skipped_large;
        return WalkStep::kContinue;
      }
      if (!ReadWholeRegularFileAt(entry.dir_fd, entry.name(), kMaxFileBytes, text) ||
          LooksBinary(text)) {
        return WalkStep::kContinue;
      }
      return search.File(DisplayPath(ctx.cwd, shown_prefix + entry.rel), text) ? WalkStep::kContinue
                                                                               : WalkStep::kStop;
    };
    summary = WalkTree(std::move(root_dir), *judged, walk, ctx.cancel, visit);
    if (summary.cancelled) search.cancelled = true;
  } else {
    return ToolOutput::Error(absl::StrCat(shown_root, " is not a regular file or directory"));
  }
  if (search.cancelled) return ToolOutput::Cancelled("grep was cancelled");

  std::string out = std::move(search.out);
  if (search.lines_out == 0) {
    out = absl::StrCat("No matches for /", *pattern, "/ in ", shown_root);
    if (filter) absl::StrAppend(&out, " (files matching \"", filter->text(), "\")");
    out += "\n";
  }
  if (search.capped) {
    absl::StrAppend(&out, "[output cut at ", search.cap, " lines (tools.files.max_results); "
                    "there are more results: narrow the search with path, glob or a more "
                    "specific pattern]\n");
  }
  if (skipped_large > 0) {
    absl::StrAppend(&out, "[", skipped_large, " file", skipped_large == 1 ? "" : "s",
                    " larger than ", kMaxFileBytes / (1024 * 1024), " MiB not searched]\n");
  }
  if (summary.hit_entry_limit) {
    absl::StrAppend(&out, "[the search stopped after visiting ", summary.visited,
                    " entries, so results may be missing; narrow the path]\n");
  }
  absl::StrAppend(&out, WithheldNote(summary));
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return ToolOutput::Ok(std::move(out));
}

}  // namespace

ToolSpec MakeGrepTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/grep";
  spec.model_name = "grep";
  spec.description =
      "Search file contents with a regular expression (RE2 syntax, as in Go or ripgrep: no "
      "backreferences or lookaround), line by line, in one file or recursively in a directory. "
      "Skips .git, files excluded by .gitignore, binary files and symlinks. Output modes: "
      "\"content\" (default) prints matching lines as `path:line: text` (with `context` lines "
      "around them as `path-line- text`, groups separated by `--`); \"files_with_matches\" "
      "prints the paths of files with a match; \"count\" prints `path:count`. Paths are "
      "relative to the working directory when inside it. Output is capped at the configured "
      "number of lines and long lines are cut; narrow with path or glob when it is.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"pattern",
         {{"type", "string"},
          {"description", "RE2 regular expression matched against each line, e.g. "
                          "\"func\\\\s+\\\\w+\" or \"TODO|FIXME\"."}}},
        {"path",
         {{"type", "string"},
          {"description", "File or directory to search: absolute, or relative to the working "
                          "directory. Default: the working directory."}}},
        {"glob",
         {{"type", "string"},
          {"description", "Only search files whose name matches this glob, e.g. \"*.py\" or "
                          "\"*.{ts,tsx}\"; a glob containing '/' is matched against the path "
                          "relative to `path`, e.g. \"src/**/*.cc\"."}}},
        {"case_insensitive",
         {{"type", "boolean"}, {"description", "Ignore case. Default: false."}}},
        {"output_mode",
         {{"type", "string"},
          {"enum", {"content", "files_with_matches", "count"}},
          {"description", "What to print. Default: \"content\"."}}},
        {"context",
         {{"type", "integer"},
          {"minimum", 0},
          {"maximum", kMaxContext},
          {"description", "Lines of context before and after each match (content mode "
                          "only). Default: 0."}}}}},
      {"required", {"pattern"}},
      {"additionalProperties", false}};
  spec.read_only = true;
  spec.rule_subject = RuleSubject::kPath;
  spec.rule_argument = "path";
  spec.handler = Grep;
  return spec;
}

}  // namespace raw::tools::builtin
