#include "clients/dashboard/static_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <utility>


namespace raw::dashboard {
namespace {

constexpr size_t kMaxFileBytes = 8 * 1024 * 1024;

web::Response NotFound() {
  web::Response response;
  response.status = 404;
  response.content_type = "text/plain; charset=utf-8";
  response.body = "not found\n";
  return response;
}

// The whole regular file, or nullopt (missing, not a regular file, a
// symlink, too large, unreadable).
std::optional<std::string> ReadRegularFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::optional<std::string> out;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<size_t>(st.st_size) <= kMaxFileBytes) {
    std::string data(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = read(fd, data.data() + done, data.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    if (done == data.size()) out = std::move(data);
  }
  close(fd);
  return out;
}

}  // namespace

std::string ContentTypeFor(std::string_view file_name) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
      {".map", "application/json"},
  };
  for (const auto& [ext, type] : kTypes) {
    if (file_name.ends_with(ext)) return std::string(type);
  }
  return "application/octet-stream";
}

bool IsPlainAssetName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name[0] == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

web::Response StaticFiles::Serve(const std::string& path) const {
  std::string relative;
  std::string cache_control;
  if (path == "/" || path == "/index.html") {
    relative = "index.html";
    cache_control = "no-cache";
  } else if (path.starts_with("/assets/") && IsPlainAssetName(path.substr(8))) {
    relative = "assets/" + path.substr(8);
    cache_control = "max-age=3600";
  } else {
    return NotFound();
  }
  std::optional<std::string> data = ReadRegularFile(root_ + "/" + relative);
  if (!data) return NotFound();
  web::Response response;
  response.content_type = ContentTypeFor(relative);
  response.body = *std::move(data);
  response.no_store = false;
  response.headers.emplace_back("Cache-Control", cache_control);
  return response;
}

}  // namespace raw::dashboard
