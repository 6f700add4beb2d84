// KeepAliveServer: an HTTP/1.1 server on 127.0.0.1 that answers every
// request with 200 "ok" (a request for /big: 1 MiB of "o") and keeps each
// connection open until the client
// closes it (FakeProviderServer closes every connection), counting
// connections and requests; for tests and benchmarks of connection reuse.
//
// Plain sockets and one poll loop on its own thread; the destructor stops
// and joins it. connections() and requests() are thread-safe.
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace raw::testing {

class KeepAliveServer {
 public:
  // `close_after_answer`: close each connection right after its first
  // answer, as a server whose idle timeout has passed does (without saying
  // so in the response).
  explicit KeepAliveServer(bool close_after_answer = false);
  ~KeepAliveServer();
  KeepAliveServer(const KeepAliveServer&) = delete;
  KeepAliveServer& operator=(const KeepAliveServer&) = delete;

  // A URL on this server.
  std::string url(const std::string& path = "/v1/chat") const;
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }

 private:
  void Serve();
  // Answers each whole request at the start of `bytes` and removes it;
  // true when it answered one.
  bool AnswerWhole(int fd, std::string& bytes);

  const bool close_after_answer_;
  int listen_fd_ = -1;
  int stop_[2] = {-1, -1};
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace raw::testing
