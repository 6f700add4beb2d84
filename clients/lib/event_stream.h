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
// Create and destroy on the owner's thread; the callbacks run there.
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
              uint64_t after_seq, OnEvent on_event, OnEnd on_end);
  ~EventStream();
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

 private:
  std::shared_ptr<std::atomic<bool>> alive_;
  StreamCanceller canceller_;
  std::thread thread_;
};

}  // namespace raw::client
