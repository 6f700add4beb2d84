#include "clients/lib/event_stream.h"

#include <vector>

namespace raw::client {
namespace {

class Forwarder : public EventHandler {
 public:
  Forwarder(EventStream::Executor post, std::shared_ptr<std::atomic<bool>> alive,
            EventStream::OnEvent on_event)
      : post_(std::move(post)), alive_(std::move(alive)), on_event_(std::move(on_event)) {}

  // The events of one message go to the executor as one task: during a
  // burst that is one hand-over (and one wakeup of its thread) for many
  // events rather than one for each.
  Next OnEvent(const v1::Event& event) override {
    pending_.push_back(event);
    return Next::kContinue;
  }

  void OnBatchEnd() override {
    if (pending_.empty()) return;
    post_([alive = alive_, fn = on_event_, events = std::move(pending_)] {
      for (const v1::Event& event : events) {
        if (!*alive) return;
        fn(event);
      }
    });
    pending_.clear();
  }

 private:
  std::vector<v1::Event> pending_;
  EventStream::Executor post_;
  std::shared_ptr<std::atomic<bool>> alive_;
  EventStream::OnEvent on_event_;
};

}  // namespace

EventStream::EventStream(std::shared_ptr<RawClient> client, Executor post, std::string session_id,
                         uint64_t after_seq, OnEvent on_event, OnEnd on_end)
    : alive_(std::make_shared<std::atomic<bool>>(true)) {
  thread_ = std::thread([this, client = std::move(client), post = std::move(post),
                         session_id = std::move(session_id), after_seq,
                         on_event = std::move(on_event), on_end = std::move(on_end),
                         alive = alive_] {
    Forwarder forwarder(post, alive, on_event);
    absl::Status status = client->Subscribe(session_id, after_seq, forwarder, canceller_);
    post([alive, on_end, status] {
      if (*alive) on_end(status);
    });
  });
}

EventStream::~EventStream() {
  *alive_ = false;
  canceller_.Cancel();
  thread_.join();
}

}  // namespace raw::client
