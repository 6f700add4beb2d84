// Helpers shared by the tool tests: a private temporary directory and a
// ToolContext whose settings and cancel token the test controls.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/tools/tool.h"
#include "gtest/gtest.h"

namespace raw::tools::testing {

// A fresh directory under the system temp dir, removed with its content.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "raw-tools-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) {
      // The canonical path, so it compares equal to what getcwd() reports.
      path_ = std::filesystem::canonical(tmpl).string();
    }
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

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `spec`'s handler with `arguments` in `cwd`; `http` is what
// ToolContext::http gets (null: no client).
inline ToolOutput Call(const ToolSpec& spec, const Json& arguments, const std::string& cwd,
                       const config::ToolSettings& settings, const CancelToken& cancel,
                       http::HttpClient* http = nullptr) {
  ToolContext ctx{cwd, settings, cancel, http};
  return spec.handler(arguments, ctx);
}

inline ToolOutput Call(const ToolSpec& spec, const Json& arguments, const std::string& cwd,
                       const config::ToolSettings& settings = {}) {
  CancelToken cancel;
  return Call(spec, arguments, cwd, settings, cancel);
}

}  // namespace raw::tools::testing
