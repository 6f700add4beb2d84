#include "daemon/skills/skill_set.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/pattern.h"
#include "common/status_macros.h"
#include "daemon/skills/front_matter.h"

namespace raw::skills {
namespace {

constexpr char kSkillFile[] = "SKILL.md";
constexpr size_t kMaxSkillFileBytes = 1 << 20;
constexpr size_t kMaxNameLength = 64;

bool IsValidName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (i > 0 && (c == '_' || c == '-'));
    if (!ok) return false;
  }
  return true;
}

std::optional<std::string> RealPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::nullopt;
  std::string out(resolved);
  free(resolved);
  return out;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path) {
  // O_NONBLOCK: a FIFO put where a file was seen must not hang the open.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    std::string message = absl::StrCat("cannot read ", path, ": ", strerror(errno));
    return errno == ENOENT ? absl::NotFoundError(message) : absl::InternalError(message);
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  std::string data;
  char buf[64 * 1024];
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return absl::InternalError(absl::StrCat("cannot read ", path, ": ", strerror(err)));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > kMaxSkillFileBytes) {
      close(fd);
      return absl::InvalidArgumentError(
          absl::StrCat(path, " is larger than ", kMaxSkillFileBytes, " bytes"));
    }
  }
  close(fd);
  return data;
}

// Reads the skill in `dir` into `out`, or sets the folder aside in `broken`.
void ReadInto(const std::string& dir, std::vector<Skill>& out, std::vector<BrokenSkill>& broken) {
  absl::StatusOr<Skill> skill = ReadSkill(dir);
  if (skill.ok()) {
    out.push_back(*std::move(skill));
  } else {
    broken.push_back({dir, skill.status()});
  }
}

// The skills in one configured directory: the directory itself when it holds
// a SKILL.md, otherwise each immediate subdirectory that holds one; a
// folder whose SKILL.md cannot be used goes to `broken`.
absl::Status ScanDirectory(const std::string& entry, const std::string& base_dir,
                           std::vector<Skill>& out, std::vector<BrokenSkill>& broken) {
  std::string path = entry;
  if (!path.empty() && path[0] != '/' && !base_dir.empty()) path = absl::StrCat(base_dir, "/", path);
  std::optional<std::string> real = RealPath(path);
  struct stat st;
  if (!real.has_value() || stat(real->c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("skill directory \"", entry, "\" (", path,
                                            ") does not exist"));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("skill directory \"", entry, "\" (", *real, ") is not a directory"));
  }
  if (FileExists(absl::StrCat(*real, "/", kSkillFile))) {
    ReadInto(*real, out, broken);
    return absl::OkStatus();
  }
  std::error_code ec;
  std::vector<std::string> subdirs;
  // increment(ec), not a range-for: the iterator's operator++ throws.
  std::filesystem::directory_iterator it(*real, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::string sub = it->path().string();
    if (FileExists(absl::StrCat(sub, "/", kSkillFile))) subdirs.push_back(sub);
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot list skill directory ", *real, ": ", ec.message()));
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string& sub : subdirs) {
    std::optional<std::string> sub_real = RealPath(sub);
    if (!sub_real.has_value()) continue;
    ReadInto(*sub_real, out, broken);
  }
  return absl::OkStatus();
}

std::string Names(const std::vector<Skill>& skills) {
  if (skills.empty()) return "none";
  return absl::StrJoin(skills, ", ",
                       [](std::string* out, const Skill& s) { out->append(s.name); });
}

// Whitespace runs (newlines included) as single spaces: one list line each.
std::string OneLine(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

absl::StatusOr<Skill> ReadSkill(const std::string& dir) {
  const std::string file = absl::StrCat(dir, "/", kSkillFile);
  ASSIGN_OR_RETURN(std::string content, ReadSmallFile(file));
  ASSIGN_OR_RETURN(FrontMatter fm, ParseFrontMatter(content, file));
  Skill skill;
  skill.dir = dir;
  auto name = fm.fields.find("name");
  if (name == fm.fields.end() || name->second.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": the front matter has no \"name\" (e.g. \"name: code-review\")"));
  }
  if (!IsValidName(name->second)) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": skill name \"", name->second,
                     "\" is not valid: use 1 to 64 characters of a-z, 0-9, '_' and '-', "
                     "starting with a letter or digit"));
  }
  skill.name = name->second;
  auto description = fm.fields.find("description");
  if (description == fm.fields.end() || description->second.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file,
                     ": the front matter has no \"description\" (one line saying when to use the "
                     "skill)"));
  }
  skill.description = description->second;
  skill.text = std::move(fm.body);
  skill.text_hash = SkillTextHash(skill.text);
  return skill;
}

std::string SkillTextHash(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return absl::StrFormat("%016x", hash);
}

absl::StatusOr<SkillSet> SkillSet::Load(const std::vector<std::string>& dirs,
                                        const std::string& base_dir,
                                        const std::vector<std::string>& selection) {
  SkillSet set;
  if (selection.empty()) return set;
  std::vector<Skill> found;
  std::vector<BrokenSkill> broken;
  for (const std::string& dir : dirs) RETURN_IF_ERROR(ScanDirectory(dir, base_dir, found, broken));

  std::map<std::string, const Skill*> by_name;
  std::vector<Skill> unique;
  for (const Skill& skill : found) {
    auto [it, inserted] = by_name.emplace(skill.name, &skill);
    if (inserted) continue;
    if (it->second->dir == skill.dir) continue;  // one folder reached twice
    return absl::InvalidArgumentError(absl::StrCat(
        "two skills are named \"", skill.name, "\": ", it->second->dir, "/", kSkillFile, " and ",
        skill.dir, "/", kSkillFile));
  }
  for (const auto& [name, skill] : by_name) unique.push_back(*skill);  // sorted by name

  std::vector<bool> selected(unique.size(), false);
  for (const std::string& entry : selection) {
    absl::StatusOr<Pattern> pattern = Pattern::Compile(entry, Pattern::Style::kText);
    if (!pattern.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("skill selection \"", entry, "\": ", pattern.status().message()));
    }
    // A folder set aside that the entry may mean (by its folder's name):
    // its error is the answer, not a skill list without it.
    for (const BrokenSkill& b : broken) {
      if (pattern->Matches(std::filesystem::path(b.dir).filename().string())) {
        return absl::Status(b.error.code(),
                            absl::StrCat("skill selection \"", entry, "\": ", b.error.message()));
      }
    }
    bool any = false;
    for (size_t i = 0; i < unique.size(); ++i) {
      if (pattern->Matches(unique[i].name)) selected[i] = any = true;
    }
    if (!any) {
      std::string unread;
      for (const BrokenSkill& b : broken) {
        absl::StrAppend(&unread, unread.empty() ? "; set aside: " : "; ", b.error.message());
      }
      return absl::NotFoundError(
          absl::StrCat("skill selection \"", entry, "\" matches no skill (found in ",
                       dirs.empty() ? "no skill_dirs" : absl::StrJoin(dirs, ", "), ": ",
                       Names(unique), unread, ")"));
    }
  }
  set.broken_ = std::move(broken);
  for (size_t i = 0; i < unique.size(); ++i) {
    if (selected[i]) set.skills_.push_back(std::move(unique[i]));
  }
  return set;
}

absl::StatusOr<std::vector<BrokenSkill>> SkillSet::Unreadable(const std::vector<std::string>& dirs,
                                                              const std::string& base_dir) {
  std::vector<Skill> found;
  std::vector<BrokenSkill> broken;
  for (const std::string& dir : dirs) RETURN_IF_ERROR(ScanDirectory(dir, base_dir, found, broken));
  return broken;
}

const Skill* SkillSet::Find(const std::string& name) const {
  for (const Skill& skill : skills_) {
    if (skill.name == name) return &skill;
  }
  return nullptr;
}

std::string SkillSet::PromptSection() const {
  if (skills_.empty()) return "";
  std::string out =
      "# Skills\n\n"
      "Skills are folders of instructions for particular kinds of work. When a task matches a "
      "skill's description, call the load_skill tool with the skill's name before you start, and "
      "follow the instructions it returns. Files that the instructions mention are read with "
      "load_skill's \"file\" argument, relative to the skill's folder.\n\n"
      "Available skills:\n";
  for (const Skill& skill : skills_) {
    absl::StrAppend(&out, "- ", skill.name, ": ", OneLine(skill.description), "\n");
  }
  return out;
}

absl::StatusOr<Skill> SkillSet::Reload(const std::string& name) const {
  const Skill* skill = Find(name);
  if (skill == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("unknown skill \"", name, "\" (available: ", Names(skills_), ")"));
  }
  absl::StatusOr<Skill> current = ReadSkill(skill->dir);
  if (!current.ok()) return current.status();
  if (current->name != skill->name) {
    return absl::FailedPreconditionError(absl::StrCat(
        skill->dir, "/", kSkillFile, " now names the skill \"", current->name, "\" instead of \"",
        skill->name, "\"; reload the configuration to pick up the new name"));
  }
  return current;
}

}  // namespace raw::skills
