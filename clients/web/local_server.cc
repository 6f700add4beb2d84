// Beast lives in this file only (it is slow to compile): local_server.h is
// the plain interface.
#include "clients/web/local_server.h"

// Boost 1.74's asio/awaitable.hpp uses std::exchange without <utility>.
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "clients/web/access_token.h"
#include "clients/web/admission.h"
#include "clients/web/io_handoff.h"
#include "clients/web/loopback_listeners.h"
#include "clients/web/peer_owner.h"
#include "clients/web/rate_limit.h"
#include "clients/web/route_match.h"
#include "clients/web/server_options_check.h"
#include "clients/web/ws_outbox.h"
#include "common/serial_queue.h"
#include "common/worker_pool.h"

namespace raw::web {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// asio::as_tuple arrived in Boost 1.78; errors come back through this.
auto Await(beast::error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

std::string ToString(beast::string_view s) { return std::string(s.data(), s.size()); }

// The socket side of one WebSocket. I/O thread only; owned by its session
// coroutine and its pending operations, so it never outlives the io_context.
// Its frames wait in a WsOutbox (ws_outbox.h), one write at a time.
class WsIo : public std::enable_shared_from_this<WsIo> {
 public:
  // `max_queued_bytes` 0: no limit.
  WsIo(beast::tcp_stream&& stream, size_t max_queued_bytes)
      : ws(std::move(stream)), outbox_(max_queued_bytes) {}

  // Queues a frame. An extendable one extends the last queued frame
  // unless that is the one being written.
  // Past max_queued_bytes the peer is taken to have stopped reading: the
  // socket is dropped (no close frame could reach it) and the session ends.
  void Enqueue(OutgoingFrame frame) {
    if (ended_ || close_requested_) return;
    if (!outbox_.Push(std::move(frame))) {
      End();
      return;
    }
    if (!outbox_.writing()) WriteNext();
  }

  // Sends what is queued, then the close frame.
  void RequestClose(uint16_t code, std::string reason) {
    if (ended_ || close_requested_) return;
    close_requested_ = true;
    if (reason.size() > 123) reason.resize(123);  // a close frame's limit
    close_ = websocket::close_reason(static_cast<websocket::close_code>(code), reason);
    if (!outbox_.writing()) StartClose();
  }

  // The session is over: drop the queue and the socket. A frame being
  // written stays until its write completes (with an error, the socket
  // being closed): the write still refers to its bytes (WsOutbox::Drop).
  void End() {
    ended_ = true;
    outbox_.Drop();
    beast::error_code ec;
    beast::get_lowest_layer(ws).socket().close(ec);
  }

  websocket::stream<beast::tcp_stream> ws;

 private:
  void WriteNext() {
    // More frames wait behind this one (a burst): the kernel holds the
    // bytes back (TCP_CORK) until the queue is empty, so the burst leaves
    // in a few full segments instead of one segment, and one wakeup of the
    // reader, per frame. Each frame is still one write, in order.
    if (outbox_.frames() > 1) Cork(true);
    const std::string* text = outbox_.BeginWrite();
    if (text == nullptr) return;
    ws.text(true);
    ws.async_write(asio::buffer(*text), [self = shared_from_this()](beast::error_code ec, size_t) {
      self->OnWritten(ec);
    });
  }
  void OnWritten(beast::error_code ec) {
    outbox_.WriteDone();
    if (ec || ended_) {
      outbox_.Drop();
      return;
    }
    if (outbox_.frames() > 0) {
      WriteNext();
      return;
    }
    Cork(false);  // sends what the kernel holds
    if (close_requested_) StartClose();
  }
  void Cork(bool on) {
    if (corked_ == on) return;
    corked_ = on;
    beast::error_code ignored;
    beast::get_lowest_layer(ws).socket().set_option(
        asio::detail::socket_option::boolean<IPPROTO_TCP, TCP_CORK>(on), ignored);
  }
  void StartClose() {
    ws.async_close(close_, [self = shared_from_this()](beast::error_code) {});
  }

  WsOutbox outbox_;
  bool corked_ = false;
  bool close_requested_ = false;
  bool ended_ = false;
  websocket::close_reason close_;
};

// What a WebSocketHandler holds: thread-safe, usable after the server is
// gone (then it only refuses).
//
// Frames sent while a hand-over to the I/O thread is already posted join
// it: a burst of frames costs the I/O thread one wakeup, not one per frame.
// The close request is posted after every earlier hand-over, so it still
// follows the frames sent before it.
class WsHandle final : public WebSocketConnection, public std::enable_shared_from_this<WsHandle> {
 public:
  WsHandle(std::shared_ptr<IoGate> gate, std::weak_ptr<WsIo> io)
      : gate_(std::move(gate)), io_(std::move(io)) {}

  bool Send(std::string text) override {
    return Queue(OutgoingFrame{std::move(text), {}, nullptr});
  }
  bool SendExtendable(ExtendableFrame frame) override {
    return Queue(OutgoingFrame::Of(std::move(frame)));
  }
  void Close(uint16_t code, std::string reason) override {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    gate_->Post([self = shared_from_this(), code, reason = std::move(reason)]() mutable {
      self->Flush();
      if (auto s = self->io_.lock()) s->RequestClose(code, std::move(reason));
    });
  }
  void MarkClosed() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }

 private:
  // Frames wait here until the I/O thread takes them; an extendable one
  // extends the last waiting frame when it can.
  bool Queue(OutgoingFrame frame) {
    absl::MutexLock lock(&mu_);
    if (closed_) return false;
    if (!pending_.empty() && pending_.back().Absorb(frame)) return true;
    pending_.push_back(std::move(frame));
    if (flush_posted_) return true;
    flush_posted_ = gate_->Post([self = shared_from_this()] { self->Flush(); });
    if (!flush_posted_) pending_.clear();
    return flush_posted_;
  }

  // I/O thread: queues the pending frames on the socket, in order.
  void Flush() {
    std::vector<OutgoingFrame> frames;
    {
      absl::MutexLock lock(&mu_);
      frames.swap(pending_);
      flush_posted_ = false;
    }
    std::shared_ptr<WsIo> io = io_.lock();
    if (io == nullptr) return;
    for (OutgoingFrame& frame : frames) io->Enqueue(std::move(frame));
  }

  const std::shared_ptr<IoGate> gate_;
  const std::weak_ptr<WsIo> io_;
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<OutgoingFrame> pending_ ABSL_GUARDED_BY(mu_);
  bool flush_posted_ ABSL_GUARDED_BY(mu_) = false;
};

// One handler call's answer, filled from any thread.
struct Reply {
  absl::Mutex mu;
  std::optional<Response> response ABSL_GUARDED_BY(mu);
};

Request ToRequest(const http::request_header<>& header) {
  Request r;
  r.method = ToString(header.method_string());
  r.target = ToString(header.target());
  ParseTarget(r.target, &r);
  for (const auto& field : header) {
    r.headers.emplace_back(absl::AsciiStrToLower(ToString(field.name_string())),
                           ToString(field.value()));
  }
  return r;
}

}  // namespace

struct LocalServer::Impl {
  LocalServerOptions options;
  Routes routes;
  AdmissionPolicy policy;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  // The other loopback address on the same port, when held
  // (loopback_listeners.h); served exactly like `acceptor`.
  tcp::acceptor other_acceptor{io};
  std::string notice;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::shared_ptr<IoGate> gate = std::make_shared<IoGate>(io);
  WorkerPool pool{"raw-web"};
  std::thread io_thread;
  uint16_t port = 0;
  uint32_t peer_uid = 0;  // the only user whose connections are served

  absl::Mutex stop_mu;
  bool stopped ABSL_GUARDED_BY(stop_mu) = false;

  // I/O thread only.
  bool stopping = false;
  uint64_t next_id = 0;
  // The connections that count against max_connections, and those of them
  // that have not yet sent a request with a valid token (oldest first: ids
  // grow with each accept).
  std::set<uint64_t> counted;
  std::set<uint64_t> unadmitted;
  std::map<uint64_t, std::function<void()>> closers;  // each live connection's hard close

  http::response<http::string_body> ToBeast(const Response& r, unsigned version,
                                            bool keep_alive) const;
  asio::awaitable<void> AcceptLoop(tcp::acceptor& listener);
  asio::awaitable<void> Session(tcp::socket socket, uint64_t id);
  asio::awaitable<void> WebSocketSession(uint64_t id, beast::tcp_stream stream, Request upgrade,
                                         const WebSocketRoute* route,
                                         http::request<http::string_body> req);
};

http::response<http::string_body> LocalServer::Impl::ToBeast(const Response& r, unsigned version,
                                                             bool keep_alive) const {
  http::response<http::string_body> res{static_cast<http::status>(r.status), version};
  // An answer without a body (204) names no type rather than an empty one.
  if (!r.content_type.empty()) res.set(http::field::content_type, r.content_type);
  res.set("Content-Security-Policy", options.content_security_policy);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  res.set("X-Frame-Options", "DENY");
  if (r.no_store) res.set(http::field::cache_control, "no-store");
  for (const auto& [name, value] : r.headers) res.insert(name, value);
  res.body() = r.body;
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

asio::awaitable<void> LocalServer::Impl::AcceptLoop(tcp::acceptor& listener) {
  for (;;) {
    beast::error_code ec;
    tcp::socket socket = co_await listener.async_accept(Await(ec));
    if (stopping || !listener.is_open()) co_return;
    if (ec) {
      // Out of descriptors and the like: back off instead of spinning.
      asio::steady_timer pause(io, std::chrono::milliseconds(100));
      co_await pause.async_wait(Await(ec));
      continue;
    }
    // Another user's connection is reset before it takes a slot: the check
    // fails closed, and a peer whose owner cannot be found is one that is
    // gone already (a live loopback peer is always in the kernel's table).
    if (absl::StatusOr<uint32_t> owner = PeerOwner(socket.native_handle());
        !owner.ok() || *owner != peer_uid) {
      socket.set_option(asio::socket_base::linger(true, 0), ec);  // a reset: no TIME_WAIT here
      socket.close(ec);
      continue;
    }
    if (unadmitted.size() >= options.max_unadmitted_connections ||
        (counted.size() >= options.max_connections && !unadmitted.empty())) {
      // The oldest connection without a valid token makes room, whichever
      // limit is reached, so sockets that never authenticate cannot keep
      // out one that does; its slot is free from now on. Only a server full
      // of admitted connections refuses the new one.
      const uint64_t oldest = *unadmitted.begin();
      unadmitted.erase(oldest);
      counted.erase(oldest);
      if (auto it = closers.find(oldest); it != closers.end()) it->second();
    }
    if (counted.size() >= options.max_connections) {
      socket.close(ec);
      continue;
    }
    const uint64_t id = next_id++;
    counted.insert(id);
    unadmitted.insert(id);
    asio::co_spawn(io, Session(std::move(socket), id), asio::detached);
  }
}

asio::awaitable<void> LocalServer::Impl::Session(tcp::socket socket, uint64_t id) {
  struct Slot {
    Impl* impl;
    uint64_t id;
    ~Slot() {
      impl->closers.erase(id);
      impl->counted.erase(id);
      impl->unadmitted.erase(id);
    }
  } slot{this, id};
  if (!counted.contains(id)) co_return;  // made room for a newer one before it began
  // Frames and answers go out as soon as they are written: Nagle's
  // algorithm would hold a small frame back until the peer's delayed ACK.
  beast::error_code nodelay_ec;
  socket.set_option(tcp::no_delay(true), nodelay_ec);
  beast::tcp_stream stream(std::move(socket));
  closers[id] = [&stream] {
    beast::error_code ignored;
    stream.socket().close(ignored);
  };
  beast::flat_buffer buffer;
  RateLimit rate(options.max_requests_per_window, options.rate_window);
  beast::error_code ec;
  bool rejected = false;
  // Answers and ends the connection.
  auto reject = [&](int status, std::string text, unsigned version) -> asio::awaitable<void> {
    rejected = true;
    Response r = TextResponse(status, std::move(text));
    if (status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer");
    auto res = ToBeast(r, version, false);
    beast::error_code write_ec;
    co_await http::async_write(stream, res, Await(write_ec));
  };

  while (!stopping) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<uint32_t>(options.max_header_bytes));
    parser.body_limit(options.max_body_bytes);
    // Until a request with a valid token, a connection waits a shorter time.
    stream.expires_after(unadmitted.contains(id)
                             ? std::min(options.unadmitted_request_timeout, options.request_timeout)
                             : options.request_timeout);
    co_await http::async_read_header(stream, buffer, parser, Await(ec));
    if (ec == http::error::header_limit) {
      // From a browser, this is almost always the cookies that other local
      // servers set on this host, which the browser sends to every port.
      co_await reject(
          431,
          absl::StrCat("request header too large (over ", options.max_header_bytes,
                       " bytes). From a browser this is usually cookies that other "
                       "local servers set: clear the browser's cookies for ",
                       CookieHosts(options.address, policy.own_hosts), ", then reload."),
          11);
      break;
    }
    if (ec == http::error::body_limit) {
      co_await reject(413, "request body too large", 11);
      break;
    }
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
        ec == asio::error::eof) {
      break;
    }
    if (ec) {
      co_await reject(400, "malformed request", 11);
      break;
    }
    const unsigned version = parser.get().version();
    if (!rate.Allow()) {
      Response r = TextResponse(429, "too many requests");
      r.headers.emplace_back(
          "Retry-After",
          absl::StrCat(std::chrono::ceil<std::chrono::seconds>(options.rate_window).count()));
      auto res = ToBeast(r, version, false);
      rejected = true;
      co_await http::async_write(stream, res, Await(ec));
      break;
    }
    Request request = ToRequest(parser.get());
    request.local_port = port;
    const bool upgrade = websocket::is_upgrade(parser.get());
    std::optional<Rejection> rejection = CheckHost(request, policy);
    if (!rejection) rejection = CheckOrigin(request, policy, upgrade);
    const HttpRoute* http_route = upgrade ? nullptr : FindHttpRoute(routes, request);
    const WebSocketRoute* ws_route = upgrade ? FindWebSocketRoute(routes, request) : nullptr;
    bool is_public =
        (http_route && http_route->public_route) || (ws_route && ws_route->public_route);
    if (!rejection) {
      // A valid token or cookie admits the connection on any route; only
      // the others need one to be served.
      std::optional<Rejection> unauthenticated = CheckToken(request, policy);
      if (!unauthenticated) {
        unadmitted.erase(id);
      } else if (!is_public) {
        rejection = std::move(unauthenticated);
      }
    }
    if (!rejection && http_route == nullptr && ws_route == nullptr)
      rejection = Rejection{404, "not found"};
    if (!rejection && upgrade && !parser.is_done())
      rejection = Rejection{400, "an upgrade request has no body"};
    if (rejection) {
      co_await reject(rejection->status, rejection->reason, version);
      break;
    }
    if (ws_route != nullptr) {
      co_await WebSocketSession(id, std::move(stream), std::move(request), ws_route,
                                parser.release());
      co_return;
    }
    if (!parser.is_done()) {
      co_await http::async_read(stream, buffer, parser, Await(ec));
      if (ec == http::error::body_limit) {
        co_await reject(413, "request body too large", version);
        break;
      }
      if (ec) break;
    }
    request.body = std::move(parser.get().body());
    const bool keep_alive = parser.get().keep_alive();
    stream.expires_never();

    auto reply = std::make_shared<Reply>();
    auto wakeup = std::make_shared<Wakeup>(io);
    auto task_request = std::make_shared<Request>(std::move(request));
    Respond respond = [reply, notify = wakeup->Notifier(gate)](Response response) {
      {
        absl::MutexLock lock(&reply->mu);
        if (reply->response) return;  // answered already
        reply->response = std::move(response);
      }
      notify();
    };
    const HttpHandler& handler = http_route->handler;
    if (!pool.Schedule([&handler, task_request, respond] { handler(*task_request, respond); }))
      break;
    bool answered = co_await wakeup->Wait(options.handler_timeout);
    Response response;
    {
      absl::MutexLock lock(&reply->mu);
      if (answered && reply->response) {
        response = std::move(*reply->response);
      } else {
        reply->response =
            TextResponse(504, "the handler did not answer in time");  // later answers are dropped
        response = *reply->response;
      }
    }
    auto res = ToBeast(response, version, keep_alive);
    stream.expires_after(options.request_timeout);
    co_await http::async_write(stream, res, Await(ec));
    if (ec || !keep_alive) break;
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  if (rejected) {
    // Lingering close: read (and drop) what the client is still sending, for
    // a bounded time, so that closing with unread data does not reset the
    // connection before the client has read the rejection.
    stream.expires_after(options.request_timeout);
    char sink[4096];
    size_t drained = 0;
    while (drained < options.max_header_bytes + options.max_body_bytes) {
      size_t n = co_await stream.async_read_some(asio::buffer(sink), Await(ec));
      if (ec) break;
      drained += n;
    }
  }
  stream.socket().close(ignored);
}

asio::awaitable<void> LocalServer::Impl::WebSocketSession(uint64_t id, beast::tcp_stream stream,
                                                          Request upgrade,
                                                          const WebSocketRoute* route,
                                                          http::request<http::string_body> req) {
  auto wsio = std::make_shared<WsIo>(std::move(stream), options.max_websocket_queued_bytes);
  closers[id] = [weak = std::weak_ptr<WsIo>(wsio)] {
    if (auto s = weak.lock()) s->End();
  };  // replaced once the inbox below exists
  beast::get_lowest_layer(wsio->ws).expires_never();
  websocket::stream_base::timeout timeouts;
  timeouts.handshake_timeout = options.request_timeout;
  timeouts.idle_timeout = options.websocket_idle_timeout;
  timeouts.keep_alive_pings = true;
  wsio->ws.set_option(timeouts);
  wsio->ws.read_message_max(options.max_websocket_message_bytes);
  beast::error_code ec;
  co_await wsio->ws.async_accept(req, Await(ec));
  if (ec) {
    wsio->End();
    co_return;
  }

  auto handle = std::make_shared<WsHandle>(gate, wsio);
  auto queue = SerialQueue::Create(pool);
  auto handler = std::make_shared<std::unique_ptr<WebSocketHandler>>();
  auto request = std::make_shared<Request>(std::move(upgrade));
  queue->Post([route, handler, handle, request] {
    *handler = route->factory(*request);
    if (*handler) {
      (*handler)->OnOpen(handle);
    } else {
      handle->Close(static_cast<uint16_t>(websocket::close_code::internal_error), "no handler");
    }
  });
  auto inbox = std::make_shared<FrameInbox>(io, gate, queue, handler);
  closers[id] = [weak = std::weak_ptr<WsIo>(wsio), weak_inbox = std::weak_ptr<FrameInbox>(inbox)] {
    if (auto s = weak.lock()) s->End();
    if (auto i = weak_inbox.lock()) i->Close();
  };
  // A connection always has a bound, and a slow handler (a command waiting
  // minutes on rawd) alone never costs a live peer its socket (the limits of
  // local_server.h). Each message is read in two steps: its first byte, a
  // read that sits through any number of control frames (so pongs keep the
  // idle timeout satisfied however long the handler takes), then the rest.
  // At most one frame is read ahead of the handler's call; a peer that
  // begins another while one waits is read no further until that frame goes
  // to the handler, with the idle timer paused (the silence is the
  // server's) and the wait bounded by handler_timeout instead.
  websocket::stream_base::timeout paused = timeouts;
  paused.idle_timeout = websocket::stream_base::none();
  while (!stopping) {
    char first = 0;
    size_t n = co_await wsio->ws.async_read_some(asio::buffer(&first, 1), Await(ec));
    if (ec) break;
    const bool text = wsio->ws.got_text();  // binary frames are ignored
    if (text && inbox->full()) {
      wsio->ws.set_option(paused);
      bool room = co_await inbox->WaitForRoom(options.handler_timeout);
      wsio->ws.set_option(timeouts);
      if (!room) break;
    }
    std::string message(&first, n);
    if (!wsio->ws.is_message_done()) {
      beast::flat_buffer rest;
      co_await wsio->ws.async_read(rest, Await(ec));
      if (ec) break;
      if (text) message += beast::buffers_to_string(rest.data());
    }
    if (text && !inbox->Deliver(std::move(message))) break;
  }
  handle->MarkClosed();
  wsio->End();
  inbox->Close();
  queue->Post([handler] {
    if (*handler) (*handler)->OnClose();
    handler->reset();
  });
}

LocalServer::LocalServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LocalServer::~LocalServer() { Stop(); }

uint16_t LocalServer::port() const { return impl_->port; }
const std::string& LocalServer::token() const { return impl_->policy.token; }
const std::string& LocalServer::session_cookie() const { return impl_->policy.session_cookie; }
const std::string& LocalServer::notice() const { return impl_->notice; }
std::string LocalServer::origin() const {
  return impl_->options.address == "::1" ? absl::StrCat("http://[::1]:", impl_->port)
                                         : absl::StrCat("http://127.0.0.1:", impl_->port);
}

absl::StatusOr<std::unique_ptr<LocalServer>> LocalServer::Start(LocalServerOptions options,
                                                                Routes routes) {
  absl::StatusOr<std::string> token = CheckServerOptions(options, routes);
  if (!token.ok()) return token.status();

  absl::StatusOr<LoopbackListeners> listeners =
      BindLoopbackListeners(options.address, options.port, options.before_other_bind);
  if (!listeners.ok()) return listeners.status();
  // Whose connections are served: the lookup must work here, for each
  // address, or no connection could be told from another user's.
  std::optional<uint32_t> owner;
  for (int fd : {listeners->primary.get(), listeners->other.get()}) {
    if (fd < 0) continue;
    absl::StatusOr<uint32_t> found = ListenerOwner(fd);
    if (!found.ok() || (owner && *owner != *found)) {
      return absl::FailedPreconditionError(
          absl::StrCat("local server: cannot find out which user owns a connection (",
                       found.ok() ? "the listeners' owners differ" : found.status().message(),
                       "), so other users' connections could not be refused; not serving"));
    }
    owner = *found;
  }
  auto impl = std::make_unique<Impl>();
  beast::error_code ec;
  const bool v6 = options.address == "::1";
  impl->acceptor.assign(v6 ? tcp::v6() : tcp::v4(), listeners->primary.get(), ec);
  if (!ec) listeners->primary.Release();
  if (!ec && listeners->other.get() >= 0) {
    impl->other_acceptor.assign(v6 ? tcp::v4() : tcp::v6(), listeners->other.get(), ec);
    if (!ec) listeners->other.Release();
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("local server: cannot serve the listening socket: ", ec.message()));
  }
  impl->peer_uid = options.peer_uid.value_or(*owner);
  impl->port = listeners->port;
  impl->notice = std::move(listeners->notice);
  impl->policy.port = impl->port;
  impl->policy.own_hosts = std::move(listeners->own_hosts);
  impl->policy.token = *std::move(token);
  impl->policy.query_token = options.query_token;
  if (!options.session_cookie.empty()) {
    impl->policy.session_cookie = SessionCookieName(options.session_cookie, impl->port);
    impl->policy.session_secret = options.session_secret;
  }
  impl->policy.allowed_origins = options.allowed_origins;
  impl->options = std::move(options);
  impl->routes = std::move(routes);
  impl->work.emplace(impl->io.get_executor());
  asio::co_spawn(impl->io, impl->AcceptLoop(impl->acceptor), asio::detached);
  if (impl->other_acceptor.is_open()) {
    asio::co_spawn(impl->io, impl->AcceptLoop(impl->other_acceptor), asio::detached);
  }
  Impl* raw = impl.get();
  impl->io_thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<LocalServer>(new LocalServer(std::move(impl)));
}

void LocalServer::Stop() {
  {
    absl::MutexLock lock(&impl_->stop_mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  Impl* impl = impl_.get();
  asio::post(impl->io, [impl] {
    impl->stopping = true;
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    impl->other_acceptor.close(ignored);
    // A closer may erase its own entry later, never during this loop.
    for (auto& [id, close] : impl->closers) close();
  });
  impl->work.reset();
  if (impl->io_thread.joinable()) impl->io_thread.join();
  impl->gate->Shut();
  impl->pool.Shutdown();
}

}  // namespace raw::web
