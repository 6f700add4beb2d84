// CurlHttpClient: the HttpClient of the daemon, built on libcurl.
//
// Each Send() runs its own curl multi handle on the calling thread and waits
// in curl_multi_poll() with the CancelToken's fd as an extra descriptor, so a
// cancel wakes the transfer at once and nothing ever sleeps. The client keeps
// a share handle (DNS cache and TLS sessions) across calls, and a few idle
// multi handles with the connections their transfers left open, so that the
// next request to the same server (the next step of a turn) skips the TCP
// and TLS handshakes. A request with public_addresses_only never takes a
// kept connection (reusing one opens no socket, so its address check would
// not run) and leaves none behind.
//
// Behaviour beyond the HttpClient contract:
// - Redirects are never followed: a 3xx reaches OnStatus like any status,
//   with its Location header, and the caller decides about the next hop.
// - Only http and https URLs are accepted. Proxies come from libcurl's usual
//   environment variables, except for loopback hosts, which are always
//   reached directly.
// - The idle timeout starts once the connection is established (before that
//   the connect timeout applies); any byte sent or received resets it.
// - Error messages name the host and port, never the full URL (query strings
//   may carry credentials).
//
// Thread-safety: Send() may be called from any number of threads at once.
// The client must outlive every Send() in progress.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "daemon/http/http_client.h"

namespace raw::http {

// $SSL_CERT_FILE ("" when unset): the CA bundle to trust instead of the
// system's, the variable OpenSSL's own tools and many programs honour.
std::string TrustedCaFileFromEnvironment();

class CurlHttpClient : public HttpClient {
 public:
  struct Options {
    // Sent as User-Agent unless the request carries its own.
    std::string user_agent;
    // The CA certificates HTTPS servers are checked against, as a PEM file;
    // "" = libcurl's default bundle (the system's). Peer and host name are
    // always verified.
    std::string ca_file{};
  };

  CurlHttpClient();
  explicit CurlHttpClient(Options options);
  ~CurlHttpClient() override;
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  absl::Status Send(const HttpRequest& request, HttpResponseHandler& handler,
                    const CancelToken& cancel) override;
  // libcurl's global initialization and the shared handle, which rawd's
  // first call also loads libcurl for (daemon/curl_on_demand.cc).
  void Prepare() override;

 private:
  class Share;
  class MultiPool;

  Options options_;
  // Made by the first request, with libcurl's global initialization: a
  // daemon that has sent nothing yet has not initialized OpenSSL (about
  // 3 MB of resident memory).
  std::once_flag share_once_;
  std::unique_ptr<Share> share_;
  // After share_: its kept connections go first.
  std::unique_ptr<MultiPool> pool_;
};

}  // namespace raw::http
