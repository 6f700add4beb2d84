// Test support: raw-dashboard run as a real process against a test rawd,
// with the URL it prints read from its stdout, and plain HTTP requests to
// it (tests/clients/web/support/raw_http_client.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tests/clients/web/support/raw_http_client.h"

namespace raw::e2e {

class DashboardProcess {
 public:
  // Starts build/bin/raw-dashboard --socket `socket_path` `extra_args`
  // (in `env`, "NAME=value" entries, when given; else in the test's own)
  // and reads its "Raw dashboard: URL" line.
  absl::Status Start(const std::string& socket_path,
                     const std::vector<std::string>& extra_args = {},
                     std::optional<std::vector<std::string>> env = std::nullopt);
  ~DashboardProcess() { Stop(); }
  // Where the next Start sends the gateway's stderr (appended); empty, the
  // default: the test's own stderr.
  void set_stderr_path(std::string path) { stderr_path_ = std::move(path); }
  // SIGTERM, then waits for the exit; returns its wait status (-1 when not
  // running). Idempotent.
  int Stop();

  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }
  const std::string& token() const { return token_; }
  const std::string& line() const { return line_; }
  std::string host() const;  // "127.0.0.1:PORT"

  struct Call {
    std::string method = "GET";
    std::string target;
    std::string body;
    // Extra header lines, "Name: value".
    std::vector<std::string> headers;
    bool with_token = true;  // Authorization: Bearer TOKEN
    std::string host;        // empty: host()
    // Nonzero: this Content-Length is declared and no body is sent (an
    // oversized request the server must refuse from its header).
    size_t declared_length = 0;
  };
  // One request on a new connection; a response with status 0 when the
  // server closed the connection without one.
  web::testing::RawResponse Send(const Call& call) const;
  // GET/DELETE/POST/PUT with the token.
  web::testing::RawResponse Get(const std::string& target) const;

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string token_;
  std::string line_;
  std::string stderr_path_;
};

}  // namespace raw::e2e
