// Hand-offs between LocalServer's one I/O thread and the threads that run
// its handlers: posting to the I/O thread while the server runs (IoGate),
// resuming a coroutine of the I/O thread from another thread (Wakeup), and
// a WebSocket's text frames on their way to its handler (FrameInbox).
//
// Included by local_server.cc only, the one translation unit that compiles
// asio and Beast (they are slow to compile; see clients/CMakeLists.txt for
// the flags that file needs).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "clients/web/local_server.h"
#include "common/serial_queue.h"

namespace raw::web {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// Lets other threads post to the I/O thread while the server runs, and
// refuses once it stopped (so a late Respond or Send never touches a
// destroyed io_context).
class IoGate {
 public:
  explicit IoGate(asio::io_context& io) : io_(&io) {}
  bool Post(std::function<void()> fn) {
    absl::MutexLock lock(&mu_);
    if (io_ == nullptr) return false;
    asio::post(*io_, std::move(fn));
    return true;
  }
  void Shut() {
    absl::MutexLock lock(&mu_);
    io_ = nullptr;
  }

 private:
  absl::Mutex mu_;
  asio::io_context* io_ ABSL_GUARDED_BY(mu_);
};

// Resumes a coroutine of the I/O thread when another thread calls the
// notifier. There is one I/O thread, so the notifier's post runs only after
// the coroutine is suspended in Wait().
class Wakeup : public std::enable_shared_from_this<Wakeup> {
 public:
  explicit Wakeup(asio::io_context& io) : timer_(io) {}

  std::function<void()> Notifier(std::shared_ptr<IoGate> gate) {
    return [gate = std::move(gate), weak = weak_from_this()] {
      gate->Post([weak] {
        if (auto self = weak.lock()) {
          self->notified_ = true;
          self->timer_.cancel();
        }
      });
    };
  }

  // True when notified, false when `limit` passed first.
  asio::awaitable<bool> Wait(Clock::duration limit) {
    if (notified_) co_return true;
    timer_.expires_after(limit);
    boost::system::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return notified_;
  }

 private:
  asio::steady_timer timer_;
  bool notified_ = false;
};

// The text frames of one WebSocket on their way to its handler. I/O thread
// only. One frame at a time is with the handler (a call on the connection's
// serial queue); at most one more, read ahead, waits here, and goes to the
// handler as soon as that call returns.
class FrameInbox : public std::enable_shared_from_this<FrameInbox> {
 public:
  using HandlerSlot = std::shared_ptr<std::unique_ptr<WebSocketHandler>>;

  FrameInbox(asio::io_context& io, std::shared_ptr<IoGate> gate, std::shared_ptr<SerialQueue> queue,
             HandlerSlot handler)
      : gate_(std::move(gate)), queue_(std::move(queue)), handler_(std::move(handler)), room_(io) {}

  // Hands `text` to the handler now, or keeps it until the call before
  // returns; call it only while !full(). False once closed.
  bool Deliver(std::string text) {
    if (closed_) return false;
    if (!busy_) return HandOver(std::move(text));
    held_ = std::move(text);
    return true;
  }

  // A frame waits for the call before it to return.
  bool full() const { return held_.has_value(); }

  // Waits until the frame that waits goes to the handler (true), or until
  // `limit` passes or Close() (false).
  asio::awaitable<bool> WaitForRoom(Clock::duration limit) {
    if (full() && !closed_) {
      room_.expires_after(limit);
      boost::system::error_code ec;
      co_await room_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    co_return !full() && !closed_;
  }

  // The session is over: a frame still waiting is dropped, nothing more
  // goes to the handler, and a WaitForRoom returns.
  void Close() {
    closed_ = true;
    held_.reset();
    room_.cancel();
  }

 private:
  bool HandOver(std::string text) {
    busy_ = true;
    bool posted = queue_->Post([handler = handler_, text = std::move(text), gate = gate_,
                                weak = weak_from_this()]() mutable {
      if (*handler) (*handler)->OnText(std::move(text));
      gate->Post([weak] {
        if (auto self = weak.lock()) self->Returned();
      });
    });
    if (!posted) Close();  // the pool is shutting down
    return posted;
  }

  // The call of the last frame handed over has returned.
  void Returned() {
    busy_ = false;
    if (closed_ || !held_) return;
    std::string text = std::move(*held_);
    held_.reset();
    HandOver(std::move(text));
    room_.cancel();
  }

  const std::shared_ptr<IoGate> gate_;
  const std::shared_ptr<SerialQueue> queue_;
  const HandlerSlot handler_;
  asio::steady_timer room_;
  bool busy_ = false;  // a frame handed over has not returned yet
  bool closed_ = false;
  std::optional<std::string> held_;
};

}  // namespace raw::web
