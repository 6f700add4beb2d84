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
//
// Subscribe writes one event per message; SubscribeBatched writes every
// event that is ready when a write starts (see Packer below), which is what
// lets a client that fell behind catch up in a few messages.
#include <grpcpp/alarm.h>

#include <memory>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/api/convert/event_to_proto.h"
#include "daemon/api/convert/status_to_grpc.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {
namespace {

// Fills the message of the next write from the subscription. Fill returns
// true when the message holds something to write, false when nothing is
// ready, or the subscription's error when it failed with nothing to write.
// Only the busy_ owner calls it.
class SinglePacker {
 public:
  using Message = raw::v1::Event;

  absl::StatusOr<bool> Fill(loop::Subscription& subscription, Message& message) {
    absl::StatusOr<std::optional<events::SessionEvent>> next = subscription.TryNext();
    if (!next.ok()) return next.status();
    if (!next->has_value()) return false;
    message = convert::ToProto(**next);
    return true;
  }
};

// Takes events while they are ready, up to kMaxEvents and kMaxBytes. An
// event that would push a non-empty batch over kMaxBytes waits (carry_) for
// the next one, so only a single event larger than the cap makes a larger
// message, as it would on Subscribe. A subscription error after some events
// is kept until they are written.
class BatchPacker {
 public:
  using Message = raw::v1::EventBatch;
  static constexpr int kMaxEvents = 512;
  static constexpr size_t kMaxBytes = size_t{1} << 20;

  absl::StatusOr<bool> Fill(loop::Subscription& subscription, Message& batch) {
    batch.Clear();
    if (!failure_.ok()) return std::exchange(failure_, absl::OkStatus());
    size_t bytes = 0;
    if (carry_.has_value()) {
      bytes = carry_->ByteSizeLong();
      *batch.add_events() = std::move(*carry_);
      carry_.reset();
    }
    while (batch.events_size() < kMaxEvents) {
      absl::StatusOr<std::optional<events::SessionEvent>> next = subscription.TryNext();
      if (!next.ok()) {
        if (batch.events_size() == 0) return next.status();
        failure_ = next.status();
        break;
      }
      if (!next->has_value()) break;
      raw::v1::Event event = convert::ToProto(**next);
      const size_t size = event.ByteSizeLong();
      if (batch.events_size() > 0 && bytes + size > kMaxBytes) {
        carry_ = std::move(event);
        break;
      }
      bytes += size;
      *batch.add_events() = std::move(event);
    }
    return batch.events_size() > 0;
  }

 private:
  std::optional<raw::v1::Event> carry_;
  absl::Status failure_;
};

template <typename Packer>
class SubscribeReactor final : public grpc::ServerWriteReactor<typename Packer::Message>,
                               public DrainableStream {
 public:
  // The stream starts once its subscription is open (Open). Until then the
  // opening owns the stream's progress (busy_ is set): a cancel only marks
  // cancelled_, and gRPC cannot end the call (OnDone) before Open finishes
  // it, so whoever opens the subscription may still call Open.
  explicit SubscribeReactor(ActiveStreams& streams) : streams_(streams) {
    absl::MutexLock lock(&mu_);
    busy_ = true;
  }

  // Starts the stream over `subscription`, or ends the call with its error.
  // Called once, on any thread.
  void Open(absl::StatusOr<std::unique_ptr<loop::Subscription>> subscription) {
    if (!subscription.ok()) {
      BeginFinishAndFinish(subscription.status());
      return;
    }
    subscription_ = *std::move(subscription);
    Start();
  }

  // REQUIRES: the subscription is open; called by Open.
  void Start() {
    {
      // Held from here on by the first pull, so that a drain or a wakeup
      // arriving while the stream starts only marks wake_pending_.
      absl::MutexLock lock(&mu_);
      busy_ = true;
    }
    if (absl::Status added = streams_.Add(this); !added.ok()) {
      BeginFinishAndFinish(added);
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
    this->Finish(convert::ToGrpcStatus(absl::CancelledError("cancelled by the client")));
  }

  void OnDone() override {
    {
      absl::MutexLock lock(&gate_->mu);
      gate_->target = nullptr;
    }
    if (subscription_ != nullptr) subscription_->Close();
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
      absl::StatusOr<bool> filled = packer_.Fill(*subscription_, message_);
      if (!filled.ok()) {
        BeginFinishAndFinish(filled.status());
        return;
      }
      if (*filled) {
        this->StartWrite(&message_);
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
    this->Finish(convert::ToGrpcStatus(status));
  }

  std::unique_ptr<loop::Subscription> subscription_;
  ActiveStreams& streams_;
  bool registered_ = false;  // set in Start, read in OnDone
  std::shared_ptr<WakeGate> gate_ = std::make_shared<WakeGate>();
  // The message of the write in flight and what fills it; only the busy_
  // owner touches them.
  Packer packer_;
  typename Packer::Message message_;

  absl::Mutex mu_;
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool wake_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

template <typename Message>
class FailedStreamReactor final : public grpc::ServerWriteReactor<Message> {
 public:
  explicit FailedStreamReactor(const absl::Status& status) {
    this->Finish(convert::ToGrpcStatus(status));
  }
  void OnDone() override { delete this; }
};

template <typename Packer>
grpc::ServerWriteReactor<typename Packer::Message>* Open(
    std::unique_ptr<loop::Subscription> subscription, ActiveStreams& streams) {
  auto* reactor = new SubscribeReactor<Packer>(streams);
  reactor->Open(std::move(subscription));
  return reactor;
}

template <typename Packer>
grpc::ServerWriteReactor<typename Packer::Message>* OpenFor(
    loop::SessionManager& sessions, ActiveStreams& streams,
    const raw::v1::SubscribeRequest& request) {
  using Failed = FailedStreamReactor<typename Packer::Message>;
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) return new Failed(s);
  // Opened on the spot for a loaded session, otherwise by the worker that
  // loads it; the reactor outlives the wait (see SubscribeReactor).
  auto* reactor = new SubscribeReactor<Packer>(streams);
  sessions.Subscribe(request.session_id(), request.after_seq(),
                     [reactor](absl::StatusOr<std::unique_ptr<loop::Subscription>> subscription) {
                       reactor->Open(std::move(subscription));
                     });
  return reactor;
}

}  // namespace

EventStream* FailedStream(const absl::Status& status) {
  return new FailedStreamReactor<raw::v1::Event>(status);
}

EventStream* StreamSubscription(std::unique_ptr<loop::Subscription> subscription,
                                ActiveStreams& streams) {
  return Open<SinglePacker>(std::move(subscription), streams);
}

BatchStream* StreamSubscriptionBatched(std::unique_ptr<loop::Subscription> subscription,
                                       ActiveStreams& streams) {
  return Open<BatchPacker>(std::move(subscription), streams);
}

EventStream* Subscribe(grpc::CallbackServerContext* /*ctx*/, loop::SessionManager& sessions,
                       ActiveStreams& streams, const raw::v1::SubscribeRequest& request) {
  return OpenFor<SinglePacker>(sessions, streams, request);
}

BatchStream* SubscribeBatched(grpc::CallbackServerContext* /*ctx*/,
                              loop::SessionManager& sessions, ActiveStreams& streams,
                              const raw::v1::SubscribeRequest& request) {
  return OpenFor<BatchPacker>(sessions, streams, request);
}

}  // namespace raw::api::rpc
