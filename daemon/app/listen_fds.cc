#include "daemon/app/listen_fds.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace raw::app {
namespace {

std::optional<std::string> Take(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  std::string copy = value;
  unsetenv(name);
  return copy;
}

}  // namespace

absl::StatusOr<std::optional<int>> TakeListenSocket() {
  // Read all three first: each is removed whatever the others say.
  std::optional<std::string> pid_text = Take("LISTEN_PID");
  std::optional<std::string> count_text = Take("LISTEN_FDS");
  std::optional<std::string> names = Take("LISTEN_FDNAMES");
  if (!pid_text.has_value()) return std::nullopt;
  int64_t pid = 0;
  if (!absl::SimpleAtoi(*pid_text, &pid) || pid <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("LISTEN_PID is not a process id: \"",
                                                   *pid_text, "\""));
  }
  // Meant for another process (an inherited environment): not ours.
  if (pid != getpid()) return std::nullopt;
  int count = 0;
  if (!count_text.has_value() || !absl::SimpleAtoi(*count_text, &count) || count < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LISTEN_FDS is not a count of sockets: \"", count_text.value_or(""), "\""));
  }
  if (count == 0) return std::nullopt;
  for (int fd = kListenFdsStart; fd < kListenFdsStart + count; ++fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("LISTEN_FDS says descriptor ", fd, " is passed, but it is not open"));
    }
    fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
  if (count > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "systemd passed ", count, " sockets (", names.value_or("unnamed"),
        "); rawd listens on exactly one: give its socket unit a single ListenStream="));
  }
  return kListenFdsStart;
}

}  // namespace raw::app
