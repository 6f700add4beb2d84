#include "clients/dashboard/remembered_port.h"

#include <cstdio>
#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/paths.h"

namespace raw::dashboard {

std::string RememberedPortPath(const std::string& state_dir) {
  return absl::StrCat(state_dir, "/dashboard-port");
}

std::optional<uint16_t> ReadRememberedPort(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::string_view digits = absl::StripAsciiWhitespace(text);
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  uint32_t port = 0;
  if (!absl::SimpleAtoi(digits, &port) || port == 0 || port > 65535) return std::nullopt;
  return static_cast<uint16_t>(port);
}

absl::Status RememberPort(const std::string& path, uint16_t port) {
  if (absl::Status s = EnsureDir(Dirname(path)); !s.ok()) return s;
  const std::string temp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(temp, std::ios::trunc);
    out << port << "\n";
    if (!out.flush()) return absl::InternalError(absl::StrCat("cannot write ", temp));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::InternalError(absl::StrCat("cannot replace ", path));
  }
  return absl::OkStatus();
}

}  // namespace raw::dashboard
