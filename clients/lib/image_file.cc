#include "clients/lib/image_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/image_sniff.h"
#include "common/utf8.h"

namespace raw::client {
namespace {

// rawd refuses larger images (daemon/events/image_part.h).
constexpr size_t kMaxImageBytes = 5 * 1024 * 1024;

absl::Status Errno(const std::string& path, const char* what) {
  const int error = errno;
  std::string message = absl::StrCat("image ", path, ": cannot ", what, ": ", strerror(error));
  return error == ENOENT ? absl::NotFoundError(message) : absl::PermissionDeniedError(message);
}

}  // namespace

absl::StatusOr<v1::Image> ReadImageFile(const std::string& path) {
  // Non-blocking, so that a FIFO cannot hold the command up.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Errno(path, "open it");
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    absl::Status s = Errno(path, "read it");
    close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat("image ", path, " is not a regular file"));
  }
  if (static_cast<size_t>(st.st_size) > kMaxImageBytes) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(
        "image ", path, " has ", st.st_size, " bytes; an image may have at most ", kMaxImageBytes));
  }
  std::string bytes;
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      absl::Status s = Errno(path, "read it");
      close(fd);
      return s;
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
    if (bytes.size() > kMaxImageBytes) break;  // it grew while being read
  }
  close(fd);
  if (bytes.size() > kMaxImageBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("image ", path, " has more than ", kMaxImageBytes, " bytes"));
  }
  std::optional<ImageFacts> facts = SniffImage(bytes);
  if (!facts) {
    return absl::InvalidArgumentError(absl::StrCat(
        "image ", path, " is not an image Raw can send (", std::string(kImageMimeTypes), ")"));
  }
  v1::Image image;
  image.set_mime_type(std::string(facts->mime_type));
  image.set_width(facts->width);
  image.set_height(facts->height);
  image.set_data(std::move(bytes));
  // The name descriptions of the image give in place of its data (a
  // compaction summary's transcript); left out when rawd would refuse it.
  if (AcceptableImageName(path)) image.set_name(path);
  return image;
}

bool AcceptableImageName(std::string_view name) {
  return name.size() <= 1024 && ValidUtf8Prefix(name) == name.size() &&
         std::none_of(name.begin(), name.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

}  // namespace raw::client
