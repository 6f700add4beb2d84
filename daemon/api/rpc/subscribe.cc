// Subscribe: a server stream over one loop::Subscription.
//
// Exactly one StartWrite is in flight at a time. Whoever holds `busy_` owns
// the stream's progress: it pulls with TryNext() and either starts a write
// (busy_ stays set until OnWriteDone, which pulls again) or, when nothing is
// ready, clears busy_ and relies on the subscription's wakeup. The wakeup
// runs on the publishing (turn) thread, so it never pulls itself: a pull may
// read the store and convert events, and a turn must not wait for its
// watchers. It only schedules a pull on a worker of ActiveStreams (or, once
// that pool has shut down, on a gRPC thread through an immediate
// grpc::Alarm, which takes hundreds of microseconds to fire). A wakeup that
// arrives while busy_ is set is remembered (wake_pending_) and the owner
// pulls again before letting go.
//
// Lifetime: gRPC calls OnDone once Finish completed and every reaction
// returned; OnDone frees the reactor. A pull in flight always holds busy_,
// and Finish is only ever called by the busy_ owner or while nobody holds
// it, so no scheduled pull can outlive the reactor. The wakeup reaches the
// reactor through a shared gate that OnDone closes first. gRPC calls
// (StartWrite, Finish) are always the last thing a path does and are never
// made under mu_.
#include <grpcpp/alarm.h>

#include <memory>
#include <optional>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "daemon/api/convert/event_to_proto.h"
#include "daemon/api/convert/status_to_grpc.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {
namespace {

class SubscribeReactor final : public EventStream, public DrainableStream {
 public:
  SubscribeReactor(std::unique_ptr<loop::Subscription> subscription, ActiveStreams& streams)
      : subscription_(std::move(subscription)), streams_(streams) {}

  void Start() {
    {
      // Held from here on by the first pull, so that a drain or a wakeup
      // arriving while the stream starts only marks wake_pending_.
      absl::MutexLock lock(&mu_);
      busy_ = true;
    }
    if (!streams_.Add(this)) {
      BeginFinishAndFinish(absl::UnavailableError("rawd is shutting down"));
      return;
    }
    registered_ = true;
    {
      absl::MutexLock lock(&gate_->mu);
      gate_->target = this;
    }
    subscription_->SetWakeup([gate = gate_] {
      absl::MutexLock lock(&gate->mu);
      if (gate->target != nullptr) gate->target->RequestPull();
    });
    Pull();
  }

  void OnWriteDone(bool ok) override {
    if (ok) {
      Pull();
      return;
    }
    // The stream broke (client gone, or the server is stopping).
    BeginFinishAndFinish(absl::CancelledError("the stream was closed"));
  }

  void OnCancel() override {
    bool finish_now = false;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      // With busy_ set, its owner sees cancelled_ and finishes soon; the
      // subscription is then closed in OnDone, so Close never races a pull.
      if (!busy_ && !finished_) finish_now = finished_ = true;
    }
    if (!finish_now) return;
    subscription_->Close();
    Finish(convert::ToGrpcStatus(absl::CancelledError("cancelled by the client")));
  }

  void OnDone() override {
    {
      absl::MutexLock lock(&gate_->mu);
      gate_->target = nullptr;
    }
    subscription_->Close();
    if (registered_) streams_.Remove(this);
    delete this;
  }

  // Called by ActiveStreams with its lock held.
  void Drain() override {
    {
      absl::MutexLock lock(&mu_);
      draining_ = true;
    }
    RequestPull();
  }

 private:
  struct WakeGate {
    absl::Mutex mu;
    SubscribeReactor* target ABSL_GUARDED_BY(mu) = nullptr;
  };

  // Any thread; never pulls itself.
  void RequestPull() {
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      if (busy_) {
        wake_pending_ = true;
        return;
      }
      busy_ = true;
    }
    if (streams_.RunSoon([this] { Pull(); })) return;
    // Fire-and-forget: the alarm is deleted by its own callback (gRPC keeps
    // its state alive until the callback returns).
    auto* alarm = new grpc::Alarm();
    alarm->Set(gpr_now(GPR_CLOCK_MONOTONIC), [this, alarm](bool /*fired*/) {
      delete alarm;
      Pull();
    });
  }

  // REQUIRES: the caller holds busy_.
  void Pull() {
    for (;;) {
      {
        absl::MutexLock lock(&mu_);
        if (cancelled_) break;
      }
      absl::StatusOr<std::optional<events::SessionEvent>> next = subscription_->TryNext();
      if (!next.ok()) {
        BeginFinishAndFinish(next.status());
        return;
      }
      if (next->has_value()) {
        event_ = convert::ToProto(**next);
        StartWrite(&event_);
        return;
      }
      absl::MutexLock lock(&mu_);
      if (wake_pending_) {
        wake_pending_ = false;
        continue;
      }
      if (cancelled_ || draining_) break;
      busy_ = false;
      return;
    }
    bool cancelled;
    {
      absl::MutexLock lock(&mu_);
      cancelled = cancelled_;
    }
    BeginFinishAndFinish(cancelled ? absl::CancelledError("cancelled by the client")
                                   : absl::UnavailableError("rawd is shutting down"));
  }

  // Finishes the call unless that already happened. busy_ stays set after
  // finishing so that no further pull starts.
  void BeginFinishAndFinish(const absl::Status& status) {
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      finished_ = true;
      busy_ = true;
    }
    Finish(convert::ToGrpcStatus(status));
  }

  std::unique_ptr<loop::Subscription> subscription_;
  ActiveStreams& streams_;
  bool registered_ = false;  // set in Start, read in OnDone
  std::shared_ptr<WakeGate> gate_ = std::make_shared<WakeGate>();
  raw::v1::Event event_;  // the message of the write in flight; only the busy_ owner touches it

  absl::Mutex mu_;
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool wake_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

class FailedStreamReactor final : public EventStream {
 public:
  explicit FailedStreamReactor(const absl::Status& status) {
    Finish(convert::ToGrpcStatus(status));
  }
  void OnDone() override { delete this; }
};

}  // namespace

EventStream* FailedStream(const absl::Status& status) { return new FailedStreamReactor(status); }

EventStream* StreamSubscription(std::unique_ptr<loop::Subscription> subscription,
                                ActiveStreams& streams) {
  auto* reactor = new SubscribeReactor(std::move(subscription), streams);
  reactor->Start();
  return reactor;
}

EventStream* Subscribe(grpc::CallbackServerContext* /*ctx*/, loop::SessionManager& sessions,
                       ActiveStreams& streams, const raw::v1::SubscribeRequest& request) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) return FailedStream(s);
  absl::StatusOr<std::unique_ptr<loop::Subscription>> subscription =
      sessions.Subscribe(request.session_id(), request.after_seq());
  if (!subscription.ok()) return FailedStream(subscription.status());
  return StreamSubscription(std::move(*subscription), streams);
}

}  // namespace raw::api::rpc
