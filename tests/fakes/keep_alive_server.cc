#include "tests/fakes/keep_alive_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::testing {

KeepAliveServer::KeepAliveServer(bool close_after_answer)
    : close_after_answer_(close_after_answer) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      listen(listen_fd_, 8) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      pipe2(stop_, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "cannot listen on 127.0.0.1";
    return;
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

KeepAliveServer::~KeepAliveServer() {
  if (thread_.joinable()) {
    (void)!write(stop_[1], "x", 1);
    thread_.join();
  }
  for (int fd : {listen_fd_, stop_[0], stop_[1]}) {
    if (fd >= 0) close(fd);
  }
}

std::string KeepAliveServer::url(const std::string& path) const {
  return absl::StrCat("http://127.0.0.1:", port_, path);
}

void KeepAliveServer::Serve() {
  std::map<int, std::string> pending;  // connection fd -> bytes not yet answered
  for (;;) {
    std::vector<pollfd> fds = {{stop_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const auto& [fd, bytes] : pending) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) continue;
    if (fds[0].revents != 0) break;
    if (fds[1].revents & POLLIN) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        pending[fd];
        ++connections_;
      }
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n <= 0) {
        close(fds[i].fd);
        pending.erase(fds[i].fd);
        continue;
      }
      std::string& bytes = pending[fds[i].fd];
      bytes.append(buffer, static_cast<size_t>(n));
      if (AnswerWhole(fds[i].fd, bytes) && close_after_answer_) {
        close(fds[i].fd);
        pending.erase(fds[i].fd);
      }
    }
  }
  for (const auto& [fd, bytes] : pending) close(fd);
}

bool KeepAliveServer::AnswerWhole(int fd, std::string& bytes) {
  bool answered = false;
  for (;;) {
    size_t head_end = bytes.find("\r\n\r\n");
    if (head_end == std::string::npos) return answered;
    size_t body = 0;
    size_t at = bytes.find("Content-Length: ");
    if (at != std::string::npos && at < head_end) {
      size_t end = bytes.find("\r\n", at);
      if (!absl::SimpleAtoi(bytes.substr(at + 16, end - at - 16), &body)) body = 0;
    }
    if (bytes.size() < head_end + 4 + body) return answered;
    const bool big = bytes.find(" /big ") < head_end;
    bytes.erase(0, head_end + 4 + body);
    ++requests_;
    answered = true;
    const std::string text = big ? std::string(1 << 20, 'o') : std::string("ok");
    const std::string answer =
        absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ", text.size(),
                     "\r\n\r\n", text);
    // A client that stopped reading may have closed: no SIGPIPE for that.
    for (size_t sent = 0; sent < answer.size();) {
      ssize_t n = send(fd, answer.data() + sent, answer.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
  }
}

}  // namespace raw::testing
