// EventStream: a session's event stream, read on its own thread and
// delivered to its owner's thread.
//
// The constructor subscribes after `after_seq`; every event and finally the
// end of the stream (with its status) are handed to `post` as calls of the
// given callbacks, which `post` must run later on the owner's thread.
// Destroying the EventStream (on the owner's thread) cancels the stream,
// joins the thread, and guarantees that no callback of it runs afterwards,
// even one already posted.
//
// `deliver`, when given, takes the events instead of `post`, and may run
// them at once on the stream's thread while the owner's thread is idle
// (acp::EventLoop::RunOrPost), one at a time with the owner's own tasks.
// A callback run so may destroy the EventStream: the stream is cancelled
// and its thread, which cannot join itself, is detached; from then on it
// calls neither `post` nor `deliver` (nor any callback) and ends once the
// cancelled stream returns, touching only what it holds itself (the
// client, shared).
//
// Create and destroy on the owner's thread (or in a callback); the
// callbacks run there.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "clients/lib/raw_client.h"

namespace raw::client {

class EventStream {
 public:
  using Executor = std::function<void(std::function<void()>)>;
  using OnEvent = std::function<void(const v1::Event&)>;
  using OnEnd = std::function<void(const absl::Status&)>;

  EventStream(std::shared_ptr<RawClient> client, Executor post, std::string session_id,
              uint64_t after_seq, OnEvent on_event, OnEnd on_end, Executor deliver = nullptr);
  ~EventStream();
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // What the stream's thread shares with the EventStream.
  struct Shared {
    std::atomic<bool> alive{true};
    StreamCanceller canceller;
  };

 private:
  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace raw::client
