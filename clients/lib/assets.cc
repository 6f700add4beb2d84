#include "clients/lib/assets.h"

#include <filesystem>

namespace raw::client {

std::string FindAsset(const std::string& self_exe, const std::string& name) {
  if (self_exe.empty()) return "";
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::canonical(self_exe, ec);
  if (ec) return "";
  std::filesystem::path asset = exe.parent_path().parent_path() / "share" / "raw" / name;
  if (!std::filesystem::is_regular_file(asset, ec)) return "";
  return asset.string();
}

}  // namespace raw::client
