// Subscription: a session's event stream, read on its own thread and
// delivered to the UI thread.
//
// Start() subscribes after `after_seq`; every event and finally the end of
// the stream (with its status) are posted to the UiQueue as calls of the
// given callbacks. Destroying the Subscription (on the UI thread) cancels
// the stream, joins the thread, and guarantees that no callback of it runs
// afterwards, even one already queued.
//
// Create and destroy on the UI thread; the callbacks run there.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "clients/lib/raw_client.h"
#include "clients/tui/ui_queue.h"

namespace raw::tui {

class Subscription {
 public:
  using OnEvent = std::function<void(const v1::Event&)>;
  using OnEnd = std::function<void(const absl::Status&)>;

  Subscription(std::shared_ptr<client::RawClient> client, UiQueue& ui, std::string session_id,
               uint64_t after_seq, OnEvent on_event, OnEnd on_end);
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

 private:
  std::shared_ptr<std::atomic<bool>> alive_;
  client::StreamCanceller canceller_;
  std::thread thread_;
};

}  // namespace raw::tui
