#include "clients/dashboard/resuming_stream.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/time/time.h"

namespace raw::dashboard {

class ResumingStream::Handler : public client::EventHandler {
 public:
  explicit Handler(ResumingStream& owner) : owner_(owner) {}

  Next OnOpen() override {
    if (owner_.disconnected_) {
      owner_.disconnected_ = false;
      owner_.callbacks_.reconnected();
    }
    return Next::kContinue;
  }

  Next OnEvent(const v1::Event& event) override {
    if (owner_.callbacks_.event(event) == Next::kStop) {
      owner_.stopped_ = true;
      return Next::kStop;
    }
    if (event.seq() > 0) owner_.next_after_ = event.seq();
    if (event.has_resync()) {
      // Missed events: subscribe again from the last one delivered.
      owner_.next_after_ = event.resync().last_delivered_seq();
      owner_.resync_ = true;
      return Next::kStop;
    }
    return Next::kContinue;
  }

 private:
  ResumingStream& owner_;
};

ResumingStream::ResumingStream(std::shared_ptr<client::RawClient> client, std::string session_id,
                               uint64_t after_seq, Callbacks callbacks)
    : client_(std::move(client)),
      session_id_(std::move(session_id)),
      callbacks_(std::move(callbacks)),
      next_after_(after_seq),
      thread_([this] { Run(); }) {}

ResumingStream::~ResumingStream() { Stop(); }

void ResumingStream::Cancel() {
  {
    absl::MutexLock lock(&mu_);
    cancelled_ = true;
  }
  canceller_.Cancel();
}

void ResumingStream::Stop() {
  Cancel();
  if (thread_.joinable()) thread_.join();
}

void ResumingStream::Run() {
  auto delay = std::chrono::milliseconds(100);
  while (!canceller_.cancelled()) {
    absl::Status ended;
    if (disconnected_) {
      // While broken, rawd must answer before a stream counts as reopened.
      ended = client_->GetDaemonInfo({}).status();
    }
    if (ended.ok()) {
      Handler handler(*this);
      ended = client_->Subscribe(session_id_, next_after_, handler, canceller_);
    }
    // Only Cancel ends the stream: a CANCELLED from rawd (one that is
    // shutting down cancels its calls) is a break like any other.
    if (stopped_ || canceller_.cancelled()) return;
    if (ended.code() == absl::StatusCode::kNotFound) {
      callbacks_.not_found(std::string(ended.message()));
      return;
    }
    if (ended.ok() && resync_) {
      resync_ = false;
      delay = std::chrono::milliseconds(100);
      continue;
    }
    if (!ended.ok() && !disconnected_) {
      disconnected_ = true;
      callbacks_.disconnected(std::string(ended.message()));
    }
    if (!ended.ok() && callbacks_.attempt_failed) callbacks_.attempt_failed();
    // Back off while the daemon is away; Cancel ends the wait.
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&cancelled_), absl::FromChrono(delay));
    delay = std::min(delay * 2, std::chrono::milliseconds(2000));
  }
}

}  // namespace raw::dashboard
