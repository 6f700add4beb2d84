// Test support for the skill tests: a private temporary directory and a
// helper that writes SKILL.md files. Single-threaded use.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace raw::skills::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "raw-skills-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = std::filesystem::canonical(tmpl).string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void WriteText(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

// Writes `dir`/SKILL.md with the given name, description and body.
inline void WriteSkill(const std::string& dir, const std::string& name,
                       const std::string& description, const std::string& body) {
  WriteText(dir + "/SKILL.md",
            "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body);
}

}  // namespace raw::skills::testing
