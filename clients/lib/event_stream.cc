#include "clients/lib/event_stream.h"

#include <thread>
#include <utility>
#include <vector>

namespace raw::client {
namespace {

class Forwarder : public EventHandler {
 public:
  Forwarder(EventStream::Executor deliver, std::shared_ptr<EventStream::Shared> shared,
            EventStream::OnEvent on_event)
      : deliver_(std::move(deliver)), shared_(std::move(shared)), on_event_(std::move(on_event)) {}

  // The events of one message go to the executor as one task: during a
  // burst that is one hand-over (and one wakeup of its thread) for many
  // events rather than one for each. Once the EventStream is gone nothing
  // more is delivered: the thread may outlive its owner (destroyed by a
  // callback on this thread).
  Next OnEvent(const v1::Event& event) override {
    if (!shared_->alive) return Next::kStop;
    pending_.push_back(event);
    return Next::kContinue;
  }

  void OnBatchEnd() override {
    if (!shared_->alive) pending_.clear();
    if (pending_.empty()) return;
    std::vector<v1::Event> events = std::move(pending_);
    pending_.clear();
    // May run at once, on this thread (see `deliver` in the header).
    deliver_([shared = shared_, fn = on_event_, events = std::move(events)] {
      for (const v1::Event& event : events) {
        if (!shared->alive) return;
        fn(event);
      }
    });
  }

 private:
  std::vector<v1::Event> pending_;
  EventStream::Executor deliver_;
  std::shared_ptr<EventStream::Shared> shared_;
  EventStream::OnEvent on_event_;
};

}  // namespace

EventStream::EventStream(std::shared_ptr<RawClient> client, Executor post, std::string session_id,
                         uint64_t after_seq, OnEvent on_event, OnEnd on_end, Executor deliver)
    : shared_(std::make_shared<Shared>()) {
  if (!deliver) deliver = post;
  // The thread touches nothing of `this`: a callback it runs may destroy
  // the EventStream.
  thread_ =
      std::thread([client = std::move(client), post = std::move(post), deliver = std::move(deliver),
                   session_id = std::move(session_id), after_seq, on_event = std::move(on_event),
                   on_end = std::move(on_end), shared = shared_] {
        absl::Status status;
        {
          Forwarder forwarder(deliver, shared, on_event);
          status = client->Subscribe(session_id, after_seq, forwarder, shared->canceller);
        }
        // A stream destroyed by its own callback ends here, detached,
        // without touching its owner's executors again.
        if (!shared->alive) return;
        post([shared, on_end, status] {
          if (shared->alive) on_end(status);
        });
      });
}

EventStream::~EventStream() {
  shared_->alive = false;
  shared_->canceller.Cancel();
  if (thread_.get_id() == std::this_thread::get_id()) {
    // A callback on the stream's own thread: it cannot join itself. It
    // delivers and posts nothing more (see the thread's body) and ends
    // once the cancelled stream returns.
    thread_.detach();
  } else {
    thread_.join();
  }
}

}  // namespace raw::client
