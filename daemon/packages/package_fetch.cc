#include "daemon/packages/package_fetch.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/cancel_token.h"
#include "common/status_macros.h"
#include "daemon/packages/package_archive.h"

namespace raw::packages {
namespace {

absl::string_view WithoutQuery(absl::string_view url) {
  return url.substr(0, url.find_first_of("?#"));
}

// Writes the body to a file, stopping past the size limit.
class FileSink : public http::HttpResponseHandler {
 public:
  FileSink(int fd, int64_t max_bytes) : fd_(fd), max_bytes_(max_bytes) {}
  void OnStatus(int status, const http::Headers&) override { status_ = status; }
  bool OnBody(std::string_view bytes) override {
    if (status_ != 200) return true;  // an error page; the status is reported
    received_ += static_cast<int64_t>(bytes.size());
    if (received_ > max_bytes_) {
      too_large_ = true;
      return false;
    }
    while (!bytes.empty()) {
      ssize_t n = write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        write_error_ = errno;
        return false;
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  int status() const { return status_; }
  bool too_large() const { return too_large_; }
  int write_error() const { return write_error_; }

 private:
  int fd_;
  int64_t max_bytes_;
  int status_ = 0;
  int64_t received_ = 0;
  bool too_large_ = false;
  int write_error_ = 0;
};

}  // namespace

bool IsUrl(absl::string_view text) { return absl::StrContains(text.substr(0, 16), "://"); }

absl::Status CheckPackageUrl(absl::string_view url) {
  if (!absl::StartsWith(url, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", url, "\": packages are fetched over https:// only"));
  }
  absl::string_view authority = url.substr(8);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (absl::StrContains(authority, "@")) {
    return absl::InvalidArgumentError(
        "the package URL holds credentials (user@host); packages are fetched without any");
  }
  if (!IsArchiveName(WithoutQuery(url))) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", url, "\" does not name a .tar.gz, .tgz or .tar.zst archive"));
  }
  return absl::OkStatus();
}

std::string ArchiveSuffixOf(absl::string_view url) {
  absl::string_view path = WithoutQuery(url);
  for (const char* suffix : {".tar.gz", ".tgz", ".tar.zst"}) {
    if (absl::EndsWith(path, suffix)) return suffix;
  }
  return "";
}

absl::Status FetchPackage(http::HttpClient& client, const std::string& url,
                          const std::string& dest, const FetchLimits& limits) {
  RETURN_IF_ERROR(CheckPackageUrl(url));
  int fd = open(dest.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", dest));
  http::HttpRequest request;
  request.method = "GET";
  request.url = url;
  request.connect_timeout_ms = limits.connect_timeout_ms;
  request.total_timeout_ms = limits.total_timeout_ms;
  FileSink sink(fd, limits.max_bytes);
  CancelToken never;
  absl::Status sent = client.Send(request, sink, never);
  close(fd);
  if (sink.too_large()) {
    return absl::ResourceExhaustedError(
        absl::StrCat(url, " is larger than ", limits.max_bytes, " bytes"));
  }
  if (sink.write_error() != 0) {
    return absl::ErrnoToStatus(sink.write_error(), absl::StrCat("cannot write ", dest));
  }
  if (!sent.ok()) return absl::UnavailableError(absl::StrCat("cannot fetch ", url, ": ", sent.message()));
  if (sink.status() != 200) {
    return absl::UnavailableError(absl::StrCat("cannot fetch ", url, ": HTTP status ", sink.status()));
  }
  return absl::OkStatus();
}

}  // namespace raw::packages
