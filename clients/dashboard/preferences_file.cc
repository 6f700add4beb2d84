#include "clients/dashboard/preferences_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/paths.h"

namespace raw::dashboard {
namespace {

constexpr std::array<const char*, 3> kThemes = {"system", "light", "dark"};
constexpr int64_t kMinFontSize = 10;
constexpr int64_t kMaxFontSize = 28;

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

absl::Status ValidateTheme(const Json& theme) {
  if (theme.is_string()) {
    for (const char* name : kThemes) {
      if (theme.get<std::string>() == name) return absl::OkStatus();
    }
  }
  return Invalid(absl::StrCat(
      "preference \"theme\" must be \"system\", \"light\" or \"dark\", not ", DumpJson(theme)));
}

absl::Status ValidateFontSize(const Json& size) {
  // A parsed non-negative integer is unsigned to nlohmann; one built in
  // code may be signed. Fractions, strings and the rest are refused.
  bool in_range = false;
  if (size.is_number_unsigned()) {
    const uint64_t v = size.get<uint64_t>();
    in_range = v >= static_cast<uint64_t>(kMinFontSize) && v <= static_cast<uint64_t>(kMaxFontSize);
  } else if (size.is_number_integer()) {
    const int64_t v = size.get<int64_t>();
    in_range = v >= kMinFontSize && v <= kMaxFontSize;
  }
  if (in_range) return absl::OkStatus();
  return Invalid(absl::StrCat("preference \"fontSize\" must be an integer from ", kMinFontSize,
                              " to ", kMaxFontSize, ", not ", DumpJson(size)));
}

absl::Status ValidateCollapsed(const Json& collapsed) {
  if (!collapsed.is_object()) {
    return Invalid(
        absl::StrCat("preference \"collapsed\" must be an object, not ", DumpJson(collapsed)));
  }
  for (const auto& [panel, value] : collapsed.items()) {
    if (panel != "details") {
      return Invalid(absl::StrCat("unknown panel \"", panel,
                                  "\" in preference \"collapsed\" (the only one is \"details\")"));
    }
    if (!value.is_boolean()) {
      return Invalid(absl::StrCat("preference \"collapsed.details\" must be true or false, not ",
                                  DumpJson(value)));
    }
  }
  return absl::OkStatus();
}

std::string ErrnoText(const std::string& what, const std::string& path) {
  return absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(errno));
}

}  // namespace

std::string PreferencesPath(const std::string& state_dir) {
  return absl::StrCat(state_dir, "/dashboard-preferences.json");
}

absl::Status ValidatePreferences(const Json& value) {
  if (!value.is_object()) {
    return Invalid(absl::StrCat("the preferences must be a JSON object, not ", value.type_name()));
  }
  for (const auto& [key, member] : value.items()) {
    absl::Status s;
    if (key == "theme") {
      s = ValidateTheme(member);
    } else if (key == "fontSize") {
      s = ValidateFontSize(member);
    } else if (key == "collapsed") {
      s = ValidateCollapsed(member);
    } else {
      s = Invalid(absl::StrCat("unknown preference \"", key,
                               "\" (known: \"theme\", \"fontSize\", \"collapsed\")"));
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<Json> ReadPreferences(const std::string& path) {
  // O_NONBLOCK: a FIFO put in its place must not hang the read.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return Json::object();
    return absl::InternalError(ErrnoText("open", path));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::DataLossError(absl::StrCat(path, " is not a regular file"));
  }
  std::vector<char> buffer(kMaxPreferencesBytes + 1);
  size_t size = 0;
  while (size < buffer.size()) {
    const ssize_t n = read(fd, buffer.data() + size, buffer.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const absl::Status error = absl::InternalError(ErrnoText("read", path));
      close(fd);
      return error;
    }
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  close(fd);
  if (size > kMaxPreferencesBytes) {
    return absl::DataLossError(
        absl::StrCat(path, " is larger than ", kMaxPreferencesBytes, " bytes"));
  }
  absl::StatusOr<Json> value = ParseJson(std::string_view(buffer.data(), size));
  if (!value.ok()) {
    return absl::DataLossError(absl::StrCat(path, " is not JSON: ", value.status().message()));
  }
  if (absl::Status s = ValidatePreferences(*value); !s.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", s.message()));
  }
  return *std::move(value);
}

absl::Status WritePreferences(const std::string& path, const Json& value) {
  if (absl::Status s = ValidatePreferences(value); !s.ok()) return s;
  if (absl::Status s = EnsureDir(Dirname(path)); !s.ok()) return s;
  const std::string text = DumpJson(value) + "\n";
  std::string temp = absl::StrCat(path, ".XXXXXX");
  const int fd = mkostemp(temp.data(), O_CLOEXEC);  // mode 0600
  if (fd < 0) return absl::InternalError(ErrnoText("create a file beside", path));
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  const bool complete = written == text.size() && fsync(fd) == 0;
  if (close(fd) != 0 || !complete) {
    const absl::Status error = absl::InternalError(ErrnoText("write", temp));
    unlink(temp.c_str());
    return error;
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const absl::Status error = absl::InternalError(ErrnoText("replace", path));
    unlink(temp.c_str());
    return error;
  }
  return absl::OkStatus();
}

}  // namespace raw::dashboard
