// Helpers shared by the variable tests: a temp directory, fake environments
// and variable definitions.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/paths.h"
#include "daemon/config/config.h"
#include "gtest/gtest.h"

namespace raw::vars::testing {

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "raw-vars-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
    EXPECT_FALSE(path_.empty());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

 private:
  std::string path_;
};

// An environment holding exactly `vars` (empty values read as unset, as
// ProcessEnv does).
inline EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

inline config::VariableConfig EnvVar(const std::string& name, const std::string& env,
                                     bool secret = true) {
  config::VariableConfig v;
  v.name = name;
  v.source = config::VariableSource::kEnv;
  v.env = env;
  v.secret = secret;
  return v;
}

inline config::VariableConfig FileVar(const std::string& name, const std::string& file) {
  config::VariableConfig v;
  v.name = name;
  v.source = config::VariableSource::kFile;
  v.file = file;
  return v;
}

inline config::VariableConfig CommandVar(const std::string& name, std::vector<std::string> argv,
                                         int64_t timeout_ms = 10000) {
  config::VariableConfig v;
  v.name = name;
  v.source = config::VariableSource::kCommand;
  v.command = std::move(argv);
  v.timeout_ms = timeout_ms;
  return v;
}

// A command variable running `script` with sh.
inline config::VariableConfig ShellVar(const std::string& name, const std::string& script,
                                       int64_t timeout_ms = 10000) {
  return CommandVar(name, {"sh", "-c", script}, timeout_ms);
}

}  // namespace raw::vars::testing
