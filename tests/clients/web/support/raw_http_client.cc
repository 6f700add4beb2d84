#include "tests/clients/web/support/raw_http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace raw::web::testing {

RawHttpClient::RawHttpClient(uint16_t port, bool v6) {
  fd_ = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sockaddr_in6 addr6{};
  addr6.sin6_family = AF_INET6;
  addr6.sin6_port = htons(port);
  addr6.sin6_addr = in6addr_loopback;
  const int rc = v6 ? connect(fd_, reinterpret_cast<sockaddr*>(&addr6), sizeof(addr6))
                    : connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  if (rc != 0) {
    close(fd_);
    fd_ = -1;
  }
}

RawHttpClient::~RawHttpClient() {
  if (fd_ >= 0) close(fd_);
}

bool RawHttpClient::Write(const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

bool RawHttpClient::Fill() {
  char chunk[4096];
  for (;;) {
    ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
}

std::optional<RawResponse> RawHttpClient::ReadResponse() {
  size_t end;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!Fill()) return std::nullopt;
  }
  RawResponse response;
  std::vector<std::string> lines = absl::StrSplit(buffer_.substr(0, end), "\r\n");
  std::vector<std::string> status_line = absl::StrSplit(lines[0], ' ');
  if (status_line.size() < 2 || !absl::SimpleAtoi(status_line[1], &response.status)) return std::nullopt;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
    if (name == "set-cookie") response.set_cookies.push_back(value);
    response.headers[name] = std::move(value);
  }
  size_t length = 0;
  if (auto it = response.headers.find("content-length"); it != response.headers.end()) {
    if (!absl::SimpleAtoi(it->second, &length)) return std::nullopt;
  }
  buffer_.erase(0, end + 4);
  while (buffer_.size() < length) {
    if (!Fill()) return std::nullopt;
  }
  response.body = buffer_.substr(0, length);
  buffer_.erase(0, length);
  return response;
}

bool RawHttpClient::WaitForClose() {
  buffer_.clear();
  char chunk[256];
  for (;;) {
    ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;
    return false;  // the server sent something
  }
}

std::optional<RawResponse> Exchange(uint16_t port, const std::string& request, bool v6) {
  RawHttpClient client(port, v6);
  if (!client.connected() || !client.Write(request)) return std::nullopt;
  return client.ReadResponse();
}

}  // namespace raw::web::testing
