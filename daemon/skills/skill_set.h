// SkillSet: the skills an agent selected, read from the configured skill
// folders. A skill is a folder with a SKILL.md whose front matter (between
// "---" lines at the top, `key: value` lines) has `name` and `description`;
// the rest of the file is the skill's text.
//
// Load scans each configured directory: a directory with SKILL.md is one
// skill; otherwise each immediate subdirectory with a SKILL.md is one.
// Errors are specific and name the file: a missing directory, two skills
// with one name, a selection pattern matching no skill. A skill folder
// whose SKILL.md cannot be read or checked (no front matter, name or
// description, a name outside [a-z0-9][a-z0-9_-]{0,63}, too large) is set
// aside (broken()): it fails the load only when the selection could mean
// it (a pattern matches its folder's name) or matches nothing else, so one
// broken folder no agent selects does not stop every agent's skills.
// Thread-safety: immutable after Load, so any thread may read it; Reload
// reads the disk and changes nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::skills {

struct Skill {
  std::string name;
  std::string description;
  std::string dir;       // absolute, symlinks resolved
  std::string text;      // SKILL.md without its front matter
  std::string text_hash; // 16 hex digits of a 64-bit FNV-1a hash of `text`
};

// 16 lowercase hex digits of the 64-bit FNV-1a hash of `text`.
std::string SkillTextHash(std::string_view text);

// Reads and checks `dir`/SKILL.md as SkillSet::Load does (its front matter
// must give a valid name and a description); errors name the file.
// Skill::dir is `dir` as given (Load passes it absolute, symlinks resolved).
absl::StatusOr<Skill> ReadSkill(const std::string& dir);

// A skill folder Load set aside, and why.
struct BrokenSkill {
  std::string dir;     // absolute, symlinks resolved
  absl::Status error;  // names the file
};

class SkillSet {
 public:
  SkillSet() = default;

  // `dirs` relative entries are taken relative to `base_dir`; `selection`
  // holds exact names or kText globs; empty selection = no skills.
  static absl::StatusOr<SkillSet> Load(const std::vector<std::string>& dirs,
                                       const std::string& base_dir,
                                       const std::vector<std::string>& selection);
  // Every skill folder of `dirs` that Load would set aside (for
  // `raw config check`); an error for a missing or unlistable directory.
  static absl::StatusOr<std::vector<BrokenSkill>> Unreadable(const std::vector<std::string>& dirs,
                                                             const std::string& base_dir);

  const std::vector<Skill>& skills() const { return skills_; }  // by name
  // The folders set aside that the selection did not need, in scan order.
  const std::vector<BrokenSkill>& broken() const { return broken_; }
  const Skill* Find(const std::string& name) const;

  // The system-prompt section listing each skill's name and description and
  // how to load it; "" when there are none. Same bytes for the same skills.
  std::string PromptSection() const;

  // Re-reads the skill's SKILL.md and returns the current text and its hash
  // (NotFound when the skill is unknown or its file is gone).
  absl::StatusOr<Skill> Reload(const std::string& name) const;

 private:
  std::vector<Skill> skills_;
  std::vector<BrokenSkill> broken_;
};

}  // namespace raw::skills
