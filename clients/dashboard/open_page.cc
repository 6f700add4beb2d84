#include "clients/dashboard/open_page.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace raw::dashboard {
namespace {

// `url` is ours (http://127.0.0.1:PORT/#token=HEX), but it goes into an
// attribute, so the characters that matter there are escaped anyway.
std::string AttributeText(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string OpenPageDir(const EnvLookup& env) { return ResolveRuntimeDir(env); }

OpenPage::~OpenPage() { Remove(); }

void OpenPage::Set(std::string path) {
  absl::MutexLock lock(&mu_);
  path_ = std::move(path);
}

void OpenPage::Remove() {
  absl::MutexLock lock(&mu_);
  if (path_.empty()) return;
  unlink(path_.c_str());
  path_.clear();
}

absl::StatusOr<std::string> WriteOpenPage(const std::string& dir, uint16_t port,
                                          const std::string& url) {
  if (absl::Status s = EnsurePrivateDir(dir); !s.ok()) return s;
  const std::string path = absl::StrCat(dir, "/dashboard-", port, ".html");
  const std::string href = AttributeText(url);
  const std::string page = absl::StrCat(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"referrer\" content=\"no-referrer\">\n"
      "<meta http-equiv=\"refresh\" content=\"0;url=",
      href,
      "\">\n<title>Raw dashboard</title>\n"
      "</head>\n<body>\n<p><a href=\"",
      href, "\">Open the Raw dashboard</a></p>\n</body>\n</html>\n");
  // A file left by an earlier run on the same port is replaced; the
  // directory is private, so nobody else can have put it there.
  unlink(path.c_str());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  size_t written = 0;
  while (written < page.size()) {
    const ssize_t n = write(fd, page.data() + written, page.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      unlink(path.c_str());
      return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    unlink(path.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  return path;
}

}  // namespace raw::dashboard
