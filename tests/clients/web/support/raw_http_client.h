// Test support: a blocking TCP client on 127.0.0.1 (or ::1) that writes bytes exactly
// as given (malformed and hostile requests included) and reads HTTP
// responses. No timeouts of its own: every read waits for the server's
// answer or its close (CTest's timeout bounds a hang).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace raw::web::testing {

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names; the last of each
  std::vector<std::string> set_cookies;        // every Set-Cookie value, in order
  std::string body;
};

class RawHttpClient {
 public:
  // `v6`: connects to [::1]:port instead of 127.0.0.1:port.
  explicit RawHttpClient(uint16_t port, bool v6 = false);
  ~RawHttpClient();
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool Write(const std::string& bytes);
  // One response (header and Content-Length body); nullopt when the server
  // closed the connection first.
  std::optional<RawResponse> ReadResponse();
  // True when the server closes the connection (EOF or reset) before
  // sending anything more.
  bool WaitForClose();

 private:
  bool Fill();  // reads more into buffer_; false on EOF or error
  int fd_ = -1;
  std::string buffer_;
};

// Writes `request` on a new connection and reads the response.
std::optional<RawResponse> Exchange(uint16_t port, const std::string& request, bool v6 = false);

}  // namespace raw::web::testing
