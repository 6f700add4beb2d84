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
  // events rather than one for each.
  Next OnEvent(const v1::Event& event) override {
    pending_.push_back(event);
    return Next::kContinue;
  }

  void OnBatchEnd() override {
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

// Joins a stream's thread that its EventStream, destroyed on that thread,
// could not join; detaches it when destroyed on the thread itself (the
// task that holds it was dropped there).
struct Reaper {
  std::thread thread;
  ~Reaper() {
    if (!thread.joinable()) return;
    if (thread.get_id() == std::this_thread::get_id()) {
      thread.detach();
    } else {
      thread.join();
    }
  }
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
        auto reaper = std::make_shared<Reaper>();
        reaper->thread = std::move(shared->self);
        post([shared, on_end, status, reaper] {
          if (shared->alive) on_end(status);
        });
      });
}

EventStream::~EventStream() {
  shared_->alive = false;
  shared_->canceller.Cancel();
  if (thread_.get_id() == std::this_thread::get_id()) {
    shared_->self = std::move(thread_);
  } else {
    thread_.join();
  }
}

}  // namespace raw::client
