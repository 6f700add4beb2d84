#include "daemon/http/curl_http_client.h"

#include <curl/curl.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstdio>  // SEEK_SET
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>  // std::call_once
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "common/status_macros.h"
#include "common/time.h"
#include "common/version.h"
#include "daemon/http/curl_request.h"
#include "daemon/http/ip_address.h"

namespace raw::http {
namespace {

using SteadyClock = std::chrono::steady_clock;

absl::Status GlobalInit() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) {
    return absl::InternalError(
        absl::StrCat("libcurl initialisation failed: ", curl_easy_strerror(result)));
  }
  return absl::OkStatus();
}

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct MultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
using EasyPtr = std::unique_ptr<CURL, EasyDeleter>;
using MultiPtr = std::unique_ptr<CURLM, MultiDeleter>;

// Per-transfer state shared with the libcurl callbacks (all of which run on
// the thread inside Send()).
struct Transfer {
  HttpResponseHandler* handler = nullptr;
  CURL* easy = nullptr;
  Headers headers;
  bool status_reported = false;
  bool handler_stopped = false;
  // The handler is Done(): the rest of the body is dropped (trailing_bytes
  // counts it) until the response ends or done_at + the grace passes.
  bool handler_done = false;
  int64_t trailing_bytes = 0;
  SteadyClock::time_point done_at;
  bool connected = false;
  // public_addresses_only: the addresses refused, "127.0.0.1 (a loopback
  // address (127.0.0.0/8))", in the order they were tried.
  bool public_only = false;
  std::vector<std::string> refused;
  int64_t body_bytes = 0;
  curl_off_t uploaded = 0;
  // The request whose body libcurl reads through OnReadBody (when it has
  // more_body), and how many of its bytes were read.
  const HttpRequest* request = nullptr;
  size_t body_read = 0;
  SteadyClock::time_point last_activity = SteadyClock::now();

  void Touch() { last_activity = SteadyClock::now(); }

  void ReportStatus() {
    long code = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
    status_reported = true;
    handler->OnStatus(static_cast<int>(code), headers);
  }
};

size_t OnHeaderLine(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t n = size * count;
  transfer->Touch();
  if (transfer->status_reported) return n;  // trailers
  absl::string_view line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.empty()) {
    // End of one header block. Interim (1xx) blocks are dropped; the final
    // block is reported before any body byte, even when there is no body.
    long code = 0;
    curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 200) {
      transfer->ReportStatus();
    } else {
      transfer->headers.clear();
    }
    return n;
  }
  if (absl::StartsWith(line, "HTTP/")) {
    transfer->headers.clear();
    return n;
  }
  if ((line.front() == ' ' || line.front() == '\t') && !transfer->headers.empty()) {
    // Obsolete line folding: continue the previous value.
    absl::StrAppend(&transfer->headers.back().second, " ", absl::StripAsciiWhitespace(line));
    return n;
  }
  size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return n;
  transfer->headers.emplace_back(std::string(absl::StripAsciiWhitespace(line.substr(0, colon))),
                                 std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  return n;
}

size_t OnBodyBytes(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t n = size * count;
  transfer->Touch();
  if (!transfer->status_reported) transfer->ReportStatus();
  transfer->body_bytes += static_cast<int64_t>(n);
  if (transfer->handler_done) {
    transfer->trailing_bytes += static_cast<int64_t>(n);
    if (transfer->trailing_bytes <= HttpResponseHandler::kMaxTrailingBytes) return n;
  } else if (transfer->handler->OnBody(std::string_view(data, n))) {
    if (transfer->handler->Done()) {
      transfer->handler_done = true;
      transfer->done_at = SteadyClock::now();
    }
    return n;
  }
  transfer->handler_stopped = true;
  return 0;  // makes libcurl fail the transfer with CURLE_WRITE_ERROR
}

// Gives libcurl the next bytes of a body in pieces (HttpRequest::more_body),
// copying from the pieces themselves.
size_t OnReadBody(char* buffer, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const HttpRequest& request = *transfer->request;
  const size_t room = size * count;
  size_t written = 0;
  size_t start = 0;  // where the piece at hand begins in the whole body
  auto take = [&](const std::string& piece) {
    const size_t end = start + piece.size();
    if (transfer->body_read < end && written < room) {
      const size_t from = transfer->body_read - start;
      const size_t n = std::min(piece.size() - from, room - written);
      std::memcpy(buffer + written, piece.data() + from, n);
      written += n;
      transfer->body_read += n;
    }
    start = end;
  };
  take(request.body);
  for (const auto& piece : request.more_body) take(*piece);
  return written;
}

// libcurl rewinds a body to send it again (on a reused connection that turned
// out closed, say); only a move to the start or within the body is asked.
int OnSeekBody(void* user, curl_off_t offset, int origin) {
  auto* transfer = static_cast<Transfer*>(user);
  if (origin != SEEK_SET || offset < 0 ||
      static_cast<size_t>(offset) > transfer->request->body_size()) {
    return CURL_SEEKFUNC_CANTSEEK;
  }
  transfer->body_read = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

int OnProgress(void* user, curl_off_t /*dltotal*/, curl_off_t /*dlnow*/, curl_off_t /*ultotal*/,
               curl_off_t ulnow) {
  auto* transfer = static_cast<Transfer*>(user);
  if (ulnow != transfer->uploaded) {
    transfer->uploaded = ulnow;
    transfer->Touch();
  }
  return 0;
}

// Called once the connection (TLS included) is up, just before the request
// is sent: from here on the idle timeout applies.
int OnConnected(void* user, char* /*remote_ip*/, char* /*local_ip*/, int /*remote_port*/,
                int /*local_port*/) {
  auto* transfer = static_cast<Transfer*>(user);
  transfer->connected = true;
  transfer->Touch();
  return CURL_PREREQFUNC_OK;
}

// Opens the socket for each connection attempt, after name resolution: the
// one place that sees the very address connected to, so a name that
// resolves (or re-resolves) to a non-public address cannot slip through.
curl_socket_t OnOpenSocket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* transfer = static_cast<Transfer*>(user);
  if (transfer->public_only) {
    const sockaddr* target = &address->addr;
    std::optional<std::string> reason = NonPublicAddressReason(target, address->addrlen);
    if (purpose != CURLSOCKTYPE_IPCXN) reason = "not a direct connection";
    if (reason) {
      transfer->refused.push_back(
          absl::StrCat(AddressText(target, address->addrlen), " (", *reason, ")"));
      return CURL_SOCKET_BAD;
    }
  }
  int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  return fd < 0 ? CURL_SOCKET_BAD : fd;
}

// Collects the first curl_easy_setopt failure instead of checking each call.
class OptionSetter {
 public:
  explicit OptionSetter(CURL* easy) : easy_(easy) {}
  template <typename T>
  void operator()(CURLoption option, T value) {
    if (result_ != CURLE_OK) return;
    result_ = curl_easy_setopt(easy_, option, value);
  }
  absl::Status status() const {
    if (result_ == CURLE_OK) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("cannot configure the HTTP request: ", curl_easy_strerror(result_)));
  }

 private:
  CURL* easy_;
  CURLcode result_ = CURLE_OK;
};

absl::Status Configure(CURL* easy, const HttpRequest& request, const RequestTarget& target,
                       curl_slist* header_list, const CurlHttpClient::Options& options, CURLSH* share,
                       Transfer* transfer, char* error_buffer) {
  OptionSetter set(easy);
  set(CURLOPT_URL, request.url.c_str());
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_TCP_KEEPALIVE, 1L);
  set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
  set(CURLOPT_ERRORBUFFER, error_buffer);
  set(CURLOPT_USERAGENT, options.user_agent.c_str());
  if (!options.ca_file.empty()) set(CURLOPT_CAINFO, options.ca_file.c_str());
  set(CURLOPT_HTTPHEADER, header_list);
  // Never send loopback traffic to a proxy; nor a request whose connected
  // address is checked (behind a proxy it would be the proxy's).
  if (target.loopback || request.public_addresses_only) set(CURLOPT_PROXY, "");
  if (share != nullptr) set(CURLOPT_SHARE, share);
  if (request.connect_timeout_ms > 0) {
    set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_ms));
  }
  if (request.total_timeout_ms > 0) {
    set(CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout_ms));
  }
  if (request.method == "GET") {
    set(CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    set(CURLOPT_NOBODY, 1L);
  } else {
    if (request.method != "POST") set(CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (SendsBody(request)) {
      set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body_size()));
      if (request.more_body.empty()) {
        set(CURLOPT_POSTFIELDS, request.body.data());
      } else {
        set(CURLOPT_POST, 1L);
        set(CURLOPT_READFUNCTION, &OnReadBody);
        set(CURLOPT_READDATA, transfer);
        set(CURLOPT_SEEKFUNCTION, &OnSeekBody);
        set(CURLOPT_SEEKDATA, transfer);
      }
    }
  }
  set(CURLOPT_HEADERFUNCTION, &OnHeaderLine);
  set(CURLOPT_HEADERDATA, transfer);
  set(CURLOPT_WRITEFUNCTION, &OnBodyBytes);
  set(CURLOPT_WRITEDATA, transfer);
  set(CURLOPT_NOPROGRESS, 0L);
  set(CURLOPT_XFERINFOFUNCTION, &OnProgress);
  set(CURLOPT_XFERINFODATA, transfer);
  set(CURLOPT_PREREQFUNCTION, &OnConnected);
  set(CURLOPT_PREREQDATA, transfer);
  set(CURLOPT_OPENSOCKETFUNCTION, &OnOpenSocket);
  set(CURLOPT_OPENSOCKETDATA, transfer);
  return set.status();
}

// Drives the transfer until libcurl is done with it, the token is cancelled,
// the idle timeout fires or the grace after the handler's Done() runs out
// (then OK with handler_stopped set); waits only in curl_multi_poll.
absl::Status RunTransfer(CURLM* multi, Transfer& transfer, const HttpRequest& request,
                         const RequestTarget& target, const CancelToken& cancel) {
  curl_waitfd cancel_wait{};
  cancel_wait.fd = cancel.fd();
  cancel_wait.events = CURL_WAIT_POLLIN;
  const auto idle_limit = std::chrono::milliseconds(request.idle_timeout_ms);
  for (;;) {
    if (cancel.cancelled()) return absl::CancelledError(cancel.reason());
    int running = 0;
    if (CURLMcode rc = curl_multi_perform(multi, &running); rc != CURLM_OK) {
      return absl::InternalError(absl::StrCat("HTTP transfer failed: ", curl_multi_strerror(rc)));
    }
    if (running == 0) return absl::OkStatus();
    // libcurl wakes earlier on its own timers (connect and total timeouts).
    int wait_ms = INT_MAX;
    if (transfer.handler_done) {
      // The handler has what it needs; the response gets a short grace to
      // end on its own (and keep its connection), then it is cut short.
      const auto grace = std::chrono::milliseconds(HttpResponseHandler::kTrailingGraceMs);
      const auto since = SteadyClock::now() - transfer.done_at;
      if (since >= grace) {
        transfer.handler_stopped = true;
        return absl::OkStatus();
      }
      wait_ms =
          static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(grace - since).count());
    }
    if (request.idle_timeout_ms > 0 && transfer.connected) {
      auto idle = SteadyClock::now() - transfer.last_activity;
      if (idle >= idle_limit) {
        return absl::DeadlineExceededError(absl::StrCat("no data from ", target.host_port, " for ",
                                                        request.idle_timeout_ms,
                                                        " ms (idle timeout)"));
      }
      auto left = std::chrono::ceil<std::chrono::milliseconds>(idle_limit - idle);
      wait_ms = static_cast<int>(std::min<int64_t>({left.count(), wait_ms, INT_MAX}));
    }
    cancel_wait.revents = 0;
    if (CURLMcode rc = curl_multi_poll(multi, &cancel_wait, 1, wait_ms, nullptr); rc != CURLM_OK) {
      return absl::InternalError(
          absl::StrCat("waiting for the HTTP transfer failed: ", curl_multi_strerror(rc)));
    }
  }
}

absl::Status TransferError(CURLcode result, const char* error_buffer, const Transfer& transfer,
                           const HttpRequest& request, const RequestTarget& target) {
  std::string reason = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(result);
  if (result == CURLE_OPERATION_TIMEDOUT) {
    if (!transfer.connected) {
      return absl::DeadlineExceededError(absl::StrCat("connecting to ", target.host_port,
                                                      " timed out after ",
                                                      request.connect_timeout_ms, " ms: ", reason));
    }
    return absl::DeadlineExceededError(absl::StrCat("request to ", target.host_port,
                                                    " exceeded its total timeout of ",
                                                    request.total_timeout_ms, " ms"));
  }
  if (result == CURLE_URL_MALFORMAT || result == CURLE_UNSUPPORTED_PROTOCOL) {
    return absl::InvalidArgumentError(absl::StrCat("invalid request URL: ", reason));
  }
  if (!transfer.connected && !transfer.refused.empty()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "refused to connect to ", target.host_port, " at ", absl::StrJoin(transfer.refused, ", "),
        ": only public addresses may be reached by this request"));
  }
  // Neither a refused certificate nor an unreadable CA file changes on a
  // retry: kFailedPrecondition tells callers not to try again.
  if (result == CURLE_PEER_FAILED_VERIFICATION || result == CURLE_SSL_ISSUER_ERROR) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the TLS certificate of ", target.host_port, " was refused: ", reason,
        " (SSL_CERT_FILE names the CA certificates to trust instead of the system's)"));
  }
  if (result == CURLE_SSL_CACERT_BADFILE) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the CA certificates to trust (SSL_CERT_FILE) could not be read: ", reason));
  }
  if (result == CURLE_SSL_CONNECT_ERROR) {
    return absl::UnavailableError(
        absl::StrCat("the TLS handshake with ", target.host_port, " failed: ", reason));
  }
  if (!transfer.connected) {
    // libcurl's own words for a refused connection ("Couldn't connect to
    // server") do not say why; the system's do.
    long os_errno = 0;
    curl_easy_getinfo(transfer.easy, CURLINFO_OS_ERRNO, &os_errno);
    std::string why = os_errno != 0 ? strerror(static_cast<int>(os_errno)) : "";
    if (!why.empty() && !absl::StrContains(reason, why)) why = absl::StrCat(why, " (", reason, ")");
    return absl::UnavailableError(absl::StrCat("cannot connect to ", target.host_port, ": ",
                                               why.empty() ? reason : why));
  }
  return absl::UnavailableError(absl::StrCat("connection to ", target.host_port, " broke after ",
                                             transfer.body_bytes,
                                             " response body bytes: ", reason));
}

}  // namespace

// DNS cache and TLS sessions shared by all transfers of one client.
class CurlHttpClient::Share {
 public:
  Share() : handle_(curl_share_init()) {
    if (handle_ == nullptr) return;
    curl_share_setopt(handle_, CURLSHOPT_LOCKFUNC, &Share::Lock);
    curl_share_setopt(handle_, CURLSHOPT_UNLOCKFUNC, &Share::Unlock);
    curl_share_setopt(handle_, CURLSHOPT_USERDATA, this);
    curl_share_setopt(handle_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(handle_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
  ~Share() {
    if (handle_ != nullptr) curl_share_cleanup(handle_);
  }
  Share(const Share&) = delete;
  Share& operator=(const Share&) = delete;

  CURLSH* handle() const { return handle_; }

 private:
  // libcurl takes a lock in one callback and releases it in the other, a
  // pairing the lock analysis cannot follow; libcurl keeps the pairs.
  static void Lock(CURL* /*easy*/, curl_lock_data data, curl_lock_access /*access*/, void* user)
      ABSL_NO_THREAD_SAFETY_ANALYSIS {
    static_cast<Share*>(user)->mutexes_[static_cast<size_t>(data)].Lock();
  }
  static void Unlock(CURL* /*easy*/, curl_lock_data data, void* user)
      ABSL_NO_THREAD_SAFETY_ANALYSIS {
    static_cast<Share*>(user)->mutexes_[static_cast<size_t>(data)].Unlock();
  }

  CURLSH* handle_;
  // One lock per kind of shared data, as libcurl asks for.
  std::array<absl::Mutex, CURL_LOCK_DATA_LAST> mutexes_;
};

// Idle multi handles, each with the connections its last transfers left
// open. A multi handle serves one Send at a time, so a connection is never
// used by two threads at once (libcurl does not support sharing a connection
// cache between concurrent threads). Thread-safe.
class CurlHttpClient::MultiPool {
 public:
  // An idle multi handle, or a new one (null when none can be made).
  MultiPtr Take() {
    {
      absl::MutexLock lock(&mu_);
      if (!idle_.empty()) {
        MultiPtr multi = std::move(idle_.back());
        idle_.pop_back();
        return multi;
      }
    }
    MultiPtr multi(curl_multi_init());
    if (multi != nullptr) curl_multi_setopt(multi.get(), CURLMOPT_MAXCONNECTS, kConnectionsEach);
    return multi;
  }
  // Keeps `multi` for a later Take, unless enough are idle already.
  void Give(MultiPtr multi) {
    absl::MutexLock lock(&mu_);
    if (idle_.size() < kMaxIdle) idle_.push_back(std::move(multi));
  }

 private:
  // As many idle handles as requests usually run at once (a turn each, a
  // compaction, a fetch), and a few connections each.
  static constexpr size_t kMaxIdle = 4;
  static constexpr long kConnectionsEach = 2;

  absl::Mutex mu_;
  std::vector<MultiPtr> idle_ ABSL_GUARDED_BY(mu_);
};

CurlHttpClient::CurlHttpClient() : CurlHttpClient(Options{}) {}

std::string TrustedCaFileFromEnvironment() {
  const char* file = std::getenv("SSL_CERT_FILE");
  return file != nullptr ? std::string(file) : std::string();
}

CurlHttpClient::CurlHttpClient(Options options)
    : options_(std::move(options)), pool_(std::make_unique<MultiPool>()) {
  if (options_.user_agent.empty()) options_.user_agent = absl::StrCat("raw/", kVersion);
}

CurlHttpClient::~CurlHttpClient() = default;

namespace {

// curl's own clock of the transfer (microseconds from its start).
void RecordTimes(CURL* easy, int64_t started_ns, HttpRequest::Times& times) {
  curl_off_t pretransfer = 0;
  curl_off_t connect = 0;
  curl_off_t appconnect = 0;
  curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer);
  curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect);
  curl_easy_getinfo(easy, CURLINFO_APPCONNECT_TIME_T, &appconnect);
  if (pretransfer > 0) times.first_byte_sent_ns = started_ns + pretransfer * 1000;
  times.network_setup_ns = std::max(connect, appconnect) * 1000;
}

}  // namespace

void CurlHttpClient::Prepare() {
  // A failure is reported by the Send that needs what failed.
  if (!GlobalInit().ok()) return;
  std::call_once(share_once_, [this] { share_ = std::make_unique<Share>(); });
}

absl::Status CurlHttpClient::Send(const HttpRequest& request, HttpResponseHandler& handler,
                                  const CancelToken& cancel) {
  RETURN_IF_ERROR(GlobalInit());
  std::call_once(share_once_, [this] { share_ = std::make_unique<Share>(); });
  ASSIGN_OR_RETURN(RequestTarget target, ParseRequestTarget(request.url));
  RETURN_IF_ERROR(ValidateMethod(request));
  if (cancel.fd() < 0) {
    return absl::ResourceExhaustedError(
        "cancel token has no wait descriptor (out of file descriptors?)");
  }
  if (cancel.cancelled()) return absl::CancelledError(cancel.reason());

  ASSIGN_OR_RETURN(CurlHeaderList header_list, BuildCurlHeaderList(request));

  EasyPtr easy(curl_easy_init());
  // A request that may reach only public addresses gets a multi handle of
  // its own, without kept connections, and leaves none behind.
  const bool reuse = !request.public_addresses_only;
  MultiPtr multi = reuse ? pool_->Take() : MultiPtr(curl_multi_init());
  if (easy == nullptr || multi == nullptr) {
    return absl::ResourceExhaustedError("cannot allocate libcurl handles");
  }
  // Gives the multi handle back once the easy handle has left it (Detach,
  // below, runs first): a connection the transfer finished cleanly stays
  // open in it; one cut short is closed by libcurl as the handle leaves.
  struct GiveBack {
    MultiPool* pool;
    MultiPtr* multi;
    ~GiveBack() {
      if (pool != nullptr) pool->Give(std::move(*multi));
    }
  } give_back{reuse ? pool_.get() : nullptr, &multi};
  Transfer transfer;
  transfer.handler = &handler;
  transfer.easy = easy.get();
  transfer.public_only = request.public_addresses_only;
  transfer.request = &request;
  char error_buffer[CURL_ERROR_SIZE] = {0};

  RETURN_IF_ERROR(Configure(easy.get(), request, target, header_list.get(), options_,
                            share_ != nullptr ? share_->handle() : nullptr, &transfer,
                            error_buffer));

  if (CURLMcode rc = curl_multi_add_handle(multi.get(), easy.get()); rc != CURLM_OK) {
    return absl::InternalError(
        absl::StrCat("cannot start the HTTP transfer: ", curl_multi_strerror(rc)));
  }
  // Detaches the easy handle before either handle is freed, on every path.
  struct Detach {
    CURLM* multi;
    CURL* easy;
    ~Detach() { curl_multi_remove_handle(multi, easy); }
  } detach{multi.get(), easy.get()};

  const int64_t started_ns = SteadyNowNs();
  absl::Status ran = RunTransfer(multi.get(), transfer, request, target, cancel);
  if (request.times != nullptr) RecordTimes(easy.get(), started_ns, *request.times);
  RETURN_IF_ERROR(ran);

  CURLcode result = CURLE_OK;
  int pending = 0;
  while (CURLMsg* message = curl_multi_info_read(multi.get(), &pending)) {
    if (message->msg == CURLMSG_DONE) result = message->data.result;
  }
  if (transfer.handler_stopped) {
    return absl::AbortedError(
        absl::StrCat("the response handler stopped the transfer from ", target.host_port));
  }
  if (result != CURLE_OK) return TransferError(result, error_buffer, transfer, request, target);
  if (!transfer.status_reported) transfer.ReportStatus();
  return absl::OkStatus();
}

}  // namespace raw::http
