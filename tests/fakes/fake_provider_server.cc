#include "tests/fakes/fake_provider_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace raw::testing {
namespace {

constexpr size_t kMaxHeadBytes = 1 << 20;
constexpr size_t kMaxBodyBytes = 64 << 20;

absl::Status ErrnoStatus(const char* what) {
  return absl::InternalError(absl::StrCat("fake provider server: ", what, ": ", strerror(errno)));
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

// Buffered reads from one socket.
class SocketReader {
 public:
  explicit SocketReader(int fd) : fd_(fd) {}

  // Everything before `delimiter` (which is consumed too).
  bool ReadUntil(std::string_view delimiter, size_t limit, std::string* out) {
    size_t searched = 0;
    for (;;) {
      size_t at = buffer_.find(delimiter, searched);
      if (at != std::string::npos) {
        out->assign(buffer_, 0, at);
        buffer_.erase(0, at + delimiter.size());
        return true;
      }
      if (buffer_.size() > limit) return false;
      searched = buffer_.size() >= delimiter.size() ? buffer_.size() - delimiter.size() + 1 : 0;
      if (!Fill()) return false;
    }
  }

  bool ReadExactly(size_t count, std::string* out) {
    while (buffer_.size() < count) {
      if (!Fill()) return false;
    }
    out->append(buffer_, 0, count);
    buffer_.erase(0, count);
    return true;
  }

 private:
  bool Fill() {
    char chunk[16384];
    ssize_t n;
    do {
      n = recv(fd_, chunk, sizeof(chunk), 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  std::string buffer_;
};

namespace {

enum class ReadResult { kOk, kClosed, kMalformed };

ReadResult ReadChunkedBody(SocketReader& reader, std::string* body) {
  for (;;) {
    std::string size_line;
    if (!reader.ReadUntil("\r\n", 1024, &size_line)) return ReadResult::kClosed;
    std::string hex(absl::StripAsciiWhitespace(size_line.substr(0, size_line.find(';'))));
    uint64_t size = 0;
    if (!absl::SimpleHexAtoi(hex, &size) || size > kMaxBodyBytes) return ReadResult::kMalformed;
    if (size == 0) break;
    std::string crlf;
    if (!reader.ReadExactly(size, body) || !reader.ReadUntil("\r\n", 2, &crlf)) {
      return ReadResult::kClosed;
    }
    if (!crlf.empty() || body->size() > kMaxBodyBytes) return ReadResult::kMalformed;
  }
  for (;;) {  // trailers up to the empty line
    std::string line;
    if (!reader.ReadUntil("\r\n", kMaxHeadBytes, &line)) return ReadResult::kClosed;
    if (line.empty()) return ReadResult::kOk;
  }
}

ReadResult ReadRequest(int fd, SocketReader& reader, RecordedRequest* request) {
  std::string head;
  if (!reader.ReadUntil("\r\n\r\n", kMaxHeadBytes, &head)) return ReadResult::kClosed;
  std::vector<std::string> lines = absl::StrSplit(head, "\r\n");
  std::vector<std::string> request_line = absl::StrSplit(lines[0], ' ');
  if (request_line.size() != 3 || !absl::StartsWith(request_line[2], "HTTP/1.")) {
    return ReadResult::kMalformed;
  }
  request->method = request_line[0];
  request->path = request_line[1];
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == std::string::npos) return ReadResult::kMalformed;
    request->headers.emplace_back(
        std::string(absl::StripAsciiWhitespace(lines[i].substr(0, colon))),
        std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1))));
  }
  if (absl::EqualsIgnoreCase(request->Header("Expect"), "100-continue") &&
      !SendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n")) {
    return ReadResult::kClosed;
  }
  if (absl::StrContains(absl::AsciiStrToLower(request->Header("Transfer-Encoding")), "chunked")) {
    return ReadChunkedBody(reader, &request->body);
  }
  std::string length_text = request->Header("Content-Length");
  if (length_text.empty()) return ReadResult::kOk;
  uint64_t length = 0;
  if (!absl::SimpleAtoi(length_text, &length) || length > kMaxBodyBytes) {
    return ReadResult::kMalformed;
  }
  return reader.ReadExactly(length, &request->body) ? ReadResult::kOk : ReadResult::kClosed;
}

const char* ReasonPhrase(int status) {
  struct Phrase {
    int status;
    const char* text;
  };
  static constexpr Phrase kPhrases[] = {{200, "OK"},
                                        {400, "Bad Request"},
                                        {401, "Unauthorized"},
                                        {403, "Forbidden"},
                                        {404, "Not Found"},
                                        {408, "Request Timeout"},
                                        {409, "Conflict"},
                                        {422, "Unprocessable Entity"},
                                        {429, "Too Many Requests"},
                                        {500, "Internal Server Error"},
                                        {502, "Bad Gateway"},
                                        {503, "Service Unavailable"},
                                        {504, "Gateway Timeout"},
                                        {529, "Overloaded"}};
  for (const Phrase& phrase : kPhrases) {
    if (phrase.status == status) return phrase.text;
  }
  return "Status";
}

std::string ErrorBody(std::string_view message, std::string_view code) {
  Json body = {
      {"error",
       {{"message", message}, {"type", "server_error"}, {"param", nullptr}, {"code", code}}}};
  return DumpJson(body);
}

// The status line and headers of a chunked response.
std::string ResponseHead(const ScriptedResponse& response) {
  std::string head =
      absl::StrCat("HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status), "\r\n");
  bool has_content_type = false;
  for (const auto& [name, value] : response.headers) {
    has_content_type = has_content_type || absl::EqualsIgnoreCase(name, "Content-Type");
    absl::StrAppend(&head, name, ": ", value, "\r\n");
  }
  if (!has_content_type) {
    absl::StrAppend(&head, "Content-Type: ",
                    response.status == 200 ? "text/event-stream" : "application/json", "\r\n");
  }
  absl::StrAppend(&head, "Transfer-Encoding: chunked\r\n",
                  response.end == ScriptedResponse::End::kKeepOpen ? "" : "Connection: close\r\n",
                  "\r\n");
  return head;
}

// Waits `pause` on the socket, not by sleeping: false as soon as the client
// closes (or resets) the connection.
bool PauseUnlessClosed(int fd, std::chrono::microseconds pause) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(pause);
  for (;;) {
    const int64_t left_ms =
        absl::ToInt64Milliseconds(absl::Ceil(deadline - absl::Now(), absl::Milliseconds(1)));
    if (left_ms <= 0) return true;
    pollfd pfd{fd, POLLRDHUP, 0};
    int n = poll(&pfd, 1, static_cast<int>(left_ms));
    if (n < 0 && errno == EINTR) continue;
    if (n > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) return false;
    if (n == 0) return true;
  }
}

}  // namespace

std::string RecordedRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, absl::string_view(name.data(), name.size()))) return value;
  }
  return "";
}

absl::StatusOr<Json> RecordedRequest::BodyJson() const { return ParseJson(body); }

FakeProviderServer::FakeProviderServer() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) {
    status_ = ErrnoStatus("socket");
    return;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    status_ = ErrnoStatus("bind 127.0.0.1:0");
    return;
  }
  if (listen(listen_fd_, 64) != 0) {
    status_ = ErrnoStatus("listen");
    return;
  }
  if (getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    status_ = ErrnoStatus("getsockname");
    return;
  }
  port_ = ntohs(address.sin_port);
  if (pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    status_ = ErrnoStatus("pipe2");
    return;
  }
  accept_thread_ = std::thread(&FakeProviderServer::AcceptLoop, this);
}

FakeProviderServer::~FakeProviderServer() { Stop(); }

std::string FakeProviderServer::base_url() const {
  return absl::StrCat("http://127.0.0.1:", port_, "/v1");
}

void FakeProviderServer::Enqueue(ScriptedResponse response) {
  absl::MutexLock lock(&mu_);
  script_.push_back(std::move(response));
}

void FakeProviderServer::EnqueueFor(std::string target_part, ScriptedResponse response) {
  absl::MutexLock lock(&mu_);
  routed_.emplace_back(std::move(target_part), std::move(response));
}

size_t FakeProviderServer::pending_responses() const {
  absl::MutexLock lock(&mu_);
  return script_.size();
}

std::vector<RecordedRequest> FakeProviderServer::requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}

RecordedRequest FakeProviderServer::single_request() const {
  absl::MutexLock lock(&mu_);
  if (requests_.size() != 1) {
    ADD_FAILURE() << "expected exactly one request to the fake provider server, got "
                  << requests_.size();
    return requests_.empty() ? RecordedRequest{} : requests_.front();
  }
  return requests_.front();
}

size_t FakeProviderServer::unscripted_requests() const {
  absl::MutexLock lock(&mu_);
  return unscripted_;
}

size_t FakeProviderServer::connections() const {
  absl::MutexLock lock(&mu_);
  return connections_;
}

bool FakeProviderServer::WaitForRequestCount(size_t count, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto enough = [this, count]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return requests_.size() >= count; };
  return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
}

bool FakeProviderServer::WaitForGate(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto parked = [this]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return next_ticket_ > released_tickets_; };
  return mu_.AwaitWithTimeout(absl::Condition(&parked), timeout);
}

void FakeProviderServer::ReleaseGate() {
  absl::MutexLock lock(&mu_);
  if (next_ticket_ > released_tickets_) {
    ++released_tickets_;
  } else {
    ++release_credits_;
  }
}

bool FakeProviderServer::ParkAtGate(int fd) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  if (release_credits_ > 0) {
    --release_credits_;
    return true;
  }
  const size_t ticket = next_ticket_++;
  parked_fds_[ticket] = fd;
  auto released = [this, ticket]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || released_tickets_ > ticket;
  };
  mu_.Await(absl::Condition(&released));
  parked_fds_.erase(ticket);
  return !stopping_;
}

bool FakeProviderServer::WaitForClientCloseAtGate(absl::Duration timeout) {
  int watched = -1;
  {
    absl::MutexLock lock(&mu_);
    auto parked = parked_fds_.lower_bound(released_tickets_);
    if (stopping_ || parked == parked_fds_.end()) return false;
    // A duplicate keeps the socket open (and the descriptor number unused)
    // even if the connection thread closes its descriptor meanwhile.
    watched = fcntl(parked->second, F_DUPFD_CLOEXEC, 0);
  }
  if (watched < 0) return false;
  const absl::Time deadline = absl::Now() + timeout;
  bool closed = false;
  for (;;) {
    pollfd pfd{watched, POLLRDHUP, 0};
    int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    int n = poll(&pfd, 1, static_cast<int>(std::max<int64_t>(left_ms, 0)));
    if (n < 0 && errno == EINTR) continue;
    closed = n > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    break;
  }
  close(watched);
  return closed;
}

void FakeProviderServer::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    // Wakes connection threads blocked in recv() or send().
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
  }
  if (wake_pipe_[1] >= 0) {
    char byte = 'x';
    [[maybe_unused]] ssize_t n = write(wake_pipe_[1], &byte, 1);
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    threads.swap(connection_threads_);
  }
  for (std::thread& thread : threads) thread.join();
  for (int* fd : {&listen_fd_, &wake_pipe_[0], &wake_pipe_[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void FakeProviderServer::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      close(fd);
      return;
    }
    open_fds_.push_back(fd);
    ++connections_;
    connection_threads_.emplace_back(&FakeProviderServer::Serve, this, fd);
  }
}

void FakeProviderServer::SetResponder(Responder responder) {
  absl::MutexLock lock(&mu_);
  responder_ = std::make_shared<const Responder>(std::move(responder));
}

ScriptedResponse FakeProviderServer::NextResponse(const RecordedRequest& request) {
  std::shared_ptr<const Responder> responder;
  {
    absl::MutexLock lock(&mu_);
    requests_.push_back(request);
    for (auto it = routed_.begin(); it != routed_.end(); ++it) {
      if (request.path.find(it->first) == std::string::npos) continue;
      ScriptedResponse next = std::move(it->second);
      routed_.erase(it);
      return next;
    }
    if (!script_.empty()) {
      ScriptedResponse next = std::move(script_.front());
      script_.pop_front();
      return next;
    }
    responder = responder_;
  }
  if (responder != nullptr && *responder) {
    if (std::optional<ScriptedResponse> answer = (*responder)(request)) return *std::move(answer);
  }
  absl::MutexLock lock(&mu_);
  ++unscripted_;
  ScriptedResponse exhausted;
  exhausted.status = 500;
  exhausted.chunks.push_back(
      ErrorBody(absl::StrCat("fake provider server: the script ran out (no response left for ",
                             request.method, " ", request.path, ")"),
                "script_exhausted"));
  return exhausted;
}

void FakeProviderServer::CloseConnection(int fd) {
  absl::MutexLock lock(&mu_);
  open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  close(fd);
}

void FakeProviderServer::Serve(int fd) {
  SocketReader reader(fd);
  while (ServeRequest(fd, reader)) {
  }
  CloseConnection(fd);
}

// One request and its response; true when the connection stays open for
// the next request.
bool FakeProviderServer::ServeRequest(int fd, SocketReader& reader) {
  RecordedRequest request;
  switch (ReadRequest(fd, reader, &request)) {
    case ReadResult::kOk:
      break;
    case ReadResult::kMalformed: {
      std::string body = ErrorBody("fake provider server: malformed HTTP request", "bad_request");
      SendAll(fd, absl::StrCat("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                               "Content-Length: ",
                               body.size(), "\r\nConnection: close\r\n\r\n", body));
      return false;
    }
    case ReadResult::kClosed:
      return false;
  }

  request.received = std::chrono::steady_clock::now();
  const ScriptedResponse response = NextResponse(request);
  const bool raw = response.framing == ScriptedResponse::Framing::kRaw;
  bool alive = raw || SendAll(fd, ResponseHead(response));
  for (size_t i = 0; alive && i <= response.chunks.size(); ++i) {
    if (response.gate_before_chunk == i) alive = ParkAtGate(fd);
    if (!alive || i == response.chunks.size()) break;
    const std::string& chunk = response.chunks[i];
    if (chunk.empty()) continue;  // an empty chunk would end the body
    if (i > 0 && response.chunk_interval.count() > 0) {
      alive = PauseUnlessClosed(fd, response.chunk_interval);
      if (!alive) break;
    }
    const std::string framed =
        raw ? chunk : absl::StrCat(absl::Hex(chunk.size()), "\r\n", chunk, "\r\n");
    const size_t times =
        i == response.repeat_chunk ? std::max<size_t>(response.repeat_times, 1) : 1;
    for (size_t n = 0; alive && n < times; ++n) alive = SendAll(fd, framed);
  }
  if (alive && response.end == ScriptedResponse::End::kReset) {
    // A zero linger time makes close() send RST instead of FIN.
    linger reset{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    return false;
  }
  const bool keep = response.end == ScriptedResponse::End::kKeepOpen;
  if (alive && !raw && (keep || response.end == ScriptedResponse::End::kComplete)) {
    alive = SendAll(fd, "0\r\n\r\n");
  }
  return alive && !raw && keep;
}

}  // namespace raw::testing
