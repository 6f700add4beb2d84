// builtin/load_skill: SKILL.md (re-read from disk) or a file inside the
// skill's folder. The folder is a boundary: absolute paths, ".." that leaves
// it and symlinks that resolve outside it are refused.

#include "daemon/tools/builtin/load_skill.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/skills/skill_set.h"
#include "daemon/tools/builtin/tool_args.h"
#include "common/utf8.h"

namespace raw::tools::builtin {
namespace {

std::string AvailableSkills(const skills::SkillSet& set) {
  if (set.skills().empty()) return "none";
  return absl::StrJoin(set.skills(), ", ", [](std::string* out, const skills::Skill& s) {
    absl::StrAppend(out, "\"", s.name, "\"");
  });
}

// Reads at most `cap` + 1 bytes of the open file `fd`.
absl::StatusOr<std::string> ReadHead(int fd, size_t cap, const std::string& shown) {
  std::string data;
  char buf[64 * 1024];
  while (data.size() <= cap) {
    ssize_t n = read(fd, buf, std::min(sizeof buf, cap + 1 - data.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat("cannot read ", shown, ": ", strerror(errno)));
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

ToolOutput ReadSkillFile(const skills::Skill& skill, const std::string& file,
                         const ToolContext& ctx) {
  if (file.empty()) return ToolOutput::Error("argument \"file\" is empty");
  if (file.find('\0') != std::string::npos) {
    return ToolOutput::Error("argument \"file\" contains a NUL byte");
  }
  if (file[0] == '/') {
    return ToolOutput::Error(absl::StrCat("argument \"file\" must be a path relative to the folder "
                                          "of skill \"", skill.name, "\" (", skill.dir,
                                          "), not an absolute path: ", file));
  }
  const std::string normal = std::filesystem::path(file).lexically_normal().string();
  if (normal == ".." || normal.rfind("../", 0) == 0) {
    return ToolOutput::Error(absl::StrCat("file \"", file, "\" is outside the folder of skill \"",
                                          skill.name, "\"; only files inside ", skill.dir,
                                          " can be loaded"));
  }
  const std::string joined = absl::StrCat(skill.dir, "/", normal);
  char* resolved = realpath(joined.c_str(), nullptr);
  if (resolved == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return ToolOutput::Error(absl::StrCat("skill \"", skill.name, "\" has no file \"", file,
                                            "\" (looked in ", skill.dir, ")"));
    }
    return ToolOutput::Error(absl::StrCat("cannot resolve ", joined, ": ", strerror(errno)));
  }
  const std::string real(resolved);
  free(resolved);
  if (real.rfind(skill.dir + "/", 0) != 0) {
    return ToolOutput::Error(absl::StrCat(
        "file \"", file, "\" resolves to ", real, " (following symbolic links), outside the folder "
        "of skill \"", skill.name, "\"; only files inside ", skill.dir, " can be loaded"));
  }
  // O_NOFOLLOW: the path was just resolved, so a symlink here means it was
  // swapped in since. O_NONBLOCK: opening a FIFO would wait for a writer,
  // past any cancellation; it is refused below instead.
  int fd = open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return ToolOutput::Error(absl::StrCat("cannot open ", real, ": ", strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return ToolOutput::Error(
        absl::StrCat("\"", file, "\" in skill \"", skill.name, "\" is not a regular file"));
  }
  const size_t cap = FileReadCap(ctx.settings.files.max_read_bytes);
  absl::StatusOr<std::string> data = ReadHead(fd, cap, real);
  close(fd);
  if (!data.ok()) return ToolOutput::Error(std::string(data.status().message()));
  if (LooksBinary(*data)) {
    return ToolOutput::Error(absl::StrCat("\"", file, "\" in skill \"", skill.name,
                                          "\" looks like a binary file (it contains NUL bytes); "
                                          "load_skill reads UTF-8 text"));
  }
  std::string note;
  if (data->size() > cap) {
    data->resize(Utf8Floor(*data, cap));
    note = absl::StrCat("\n[truncated at ", data->size(), " of ", st.st_size,
                        " bytes: the read limit is tools.files.max_read_bytes = ", cap, "]");
  }
  if (ValidUtf8Prefix(*data) != data->size()) {
    return ToolOutput::Error(absl::StrCat("\"", file, "\" in skill \"", skill.name,
                                          "\" is not UTF-8 text; load_skill reads UTF-8 text"));
  }
  return ToolOutput::Ok(absl::StrCat("File \"", normal, "\" of skill \"", skill.name, "\" (",
                                     real, "):\n\n", *data, note));
}

ToolOutput LoadSkill(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"name", "file"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> name = RequiredString(args, "name");
  if (!name.ok()) return ToolOutput::Error(std::string(name.status().message()));
  std::optional<std::string> file;
  if (auto it = args.find("file"); it != args.end() && !it->is_null()) {
    absl::StatusOr<std::string> value = RequiredString(args, "file");
    if (!value.ok()) return ToolOutput::Error(std::string(value.status().message()));
    file = *value;
  }
  if (ctx.skills == nullptr || ctx.skills->skills().empty()) {
    return ToolOutput::Error("no skills are available to this agent");
  }
  const skills::Skill* skill = ctx.skills->Find(*name);
  if (skill == nullptr) {
    return ToolOutput::Error(absl::StrCat("unknown skill \"", *name,
                                          "\"; available skills: ", AvailableSkills(*ctx.skills)));
  }
  if (file.has_value()) return ReadSkillFile(*skill, *file, ctx);
  absl::StatusOr<skills::Skill> current = ctx.skills->Reload(*name);
  if (!current.ok()) {
    return ToolOutput::Error(absl::StrCat("cannot load skill \"", *name,
                                          "\": ", current.status().message()));
  }
  if (ctx.on_skill_loaded) ctx.on_skill_loaded(current->name, current->text_hash);
  return ToolOutput::Ok(absl::StrCat("Skill \"", current->name, "\" (folder ", current->dir,
                                     "):\n\n", current->text));
}

}  // namespace

ToolSpec MakeLoadSkillTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/load_skill";
  spec.model_name = "load_skill";
  spec.description =
      "Load the instructions of a skill listed in the Skills section of the system prompt. "
      "With only \"name\", returns the skill's SKILL.md as it is now. With \"file\", returns "
      "another text file from the skill's folder (a path relative to that folder, such as "
      "\"reference/forms.md\"); paths outside the folder are refused.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"name", {{"type", "string"}, {"description", "The skill's name, as listed."}}},
        {"file",
         {{"type", "string"},
          {"description",
           "Optional: a file inside the skill's folder, relative to it. Omit to load "
           "SKILL.md."}}}}},
      {"required", {"name"}},
      {"additionalProperties", false}};
  spec.read_only = true;
  spec.rule_subject = RuleSubject::kNone;
  spec.handler = LoadSkill;
  return spec;
}

}  // namespace raw::tools::builtin
