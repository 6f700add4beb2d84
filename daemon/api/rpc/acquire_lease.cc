// AcquireLease: a server stream that holds a session's write lease for as
// long as it stays open.
//
// The first message grants the lease (with the id writes carry). The lease
// ends when the client closes the stream or disconnects (OnCancel), when
// the daemon drains its streams at shutdown, or when another client takes
// it over: the loop calls on_lost on the taking client's thread, which only
// records the taker and, when no write is in flight, starts the LeaseLost
// write; the stream then finishes OK. One write is in flight at a time;
// Finish is called once, by whoever ends the stream, never under mu_.
#include <grpcpp/alarm.h>

#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "daemon/api/convert/status_to_grpc.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {
namespace {

class LeaseReactor final : public LeaseStream, public DrainableStream {
 public:
  LeaseReactor(loop::SessionManager& sessions, ActiveStreams& streams, std::string session_id)
      : sessions_(sessions), streams_(streams), session_id_(std::move(session_id)) {}

  void Start(const std::string& client_name, bool take_over) {
    if (!streams_.Add(this)) {
      FinishOnce(absl::UnavailableError("rawd is shutting down"));
      return;
    }
    registered_ = true;
    std::weak_ptr<Gate> gate = gate_;
    absl::StatusOr<std::string> lease = sessions_.AcquireLease(
        session_id_, client_name, take_over, [gate](const std::string& taken_by) {
          if (auto g = gate.lock()) {
            absl::MutexLock lock(&g->mu);
            if (g->target != nullptr) g->target->OnLost(taken_by);
          }
        });
    if (!lease.ok()) {
      FinishOnce(lease.status());
      return;
    }
    {
      absl::MutexLock lock(&mu_);
      lease_id_ = *lease;
      writing_ = true;
    }
    {
      absl::MutexLock lock(&gate_->mu);
      gate_->target = this;
    }
    message_.mutable_granted()->set_lease_id(*lease);
    StartWrite(&message_);
  }

  void OnWriteDone(bool ok) override {
    bool send_lost = false;
    bool finish = false;
    absl::Status status = absl::OkStatus();
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      if (!ok) {
        finish = true;
        status = absl::CancelledError("the stream was closed");
      } else if (lost_sent_ || draining_) {
        finish = true;
        if (draining_ && !lost_sent_) status = absl::UnavailableError("rawd is shutting down");
      } else if (lost_) {
        send_lost = true;
        lost_sent_ = true;
        writing_ = true;
      }
    }
    if (send_lost) {
      message_.Clear();
      message_.mutable_handover_requested()->mutable_requester()->set_client_name(taken_by_);
      StartWrite(&message_);
      return;
    }
    if (finish) {
      Release();
      FinishOnce(status);
    }
  }

  void OnCancel() override {
    Release();
    bool finish;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      finish = !writing_;
    }
    if (finish) FinishOnce(absl::CancelledError("cancelled by the client"));
  }

  void OnDone() override {
    {
      absl::MutexLock lock(&gate_->mu);
      gate_->target = nullptr;
    }
    Release();
    if (registered_) streams_.Remove(this);
    delete this;
  }

  // Called by ActiveStreams with its lock held: quick, no callbacks into it.
  void Drain() override {
    bool finish;
    {
      absl::MutexLock lock(&mu_);
      draining_ = true;
      finish = !writing_;
    }
    if (!finish) return;
    // Not inline: finishing may end in OnDone, which takes the registry's
    // lock that the caller holds.
    auto* alarm = new grpc::Alarm();
    alarm->Set(gpr_now(GPR_CLOCK_MONOTONIC), [this, alarm](bool /*fired*/) {
      delete alarm;
      Release();
      FinishOnce(absl::UnavailableError("rawd is shutting down"));
    });
  }

 private:
  struct Gate {
    absl::Mutex mu;
    LeaseReactor* target ABSL_GUARDED_BY(mu) = nullptr;
  };

  // On the thread of the client that took the lease over.
  void OnLost(const std::string& taken_by) {
    bool write_now;
    {
      absl::MutexLock lock(&mu_);
      if (lost_ || finished_) return;
      lost_ = true;
      taken_by_ = taken_by;
      lease_id_.clear();  // the lease is already someone else's
      write_now = !writing_ && !cancelled_ && !draining_;
      if (write_now) {
        writing_ = true;
        lost_sent_ = true;
      }
    }
    if (!write_now) return;
    message_.Clear();
    message_.mutable_handover_requested()->mutable_requester()->set_client_name(taken_by);
    StartWrite(&message_);
  }

  void Release() {
    std::string id;
    {
      absl::MutexLock lock(&mu_);
      id.swap(lease_id_);
    }
    if (!id.empty()) sessions_.ReleaseLease(session_id_, id);
  }

  void FinishOnce(const absl::Status& status) {
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      finished_ = true;
    }
    Finish(convert::ToGrpcStatus(status));
  }

  loop::SessionManager& sessions_;
  ActiveStreams& streams_;
  const std::string session_id_;
  bool registered_ = false;
  std::shared_ptr<Gate> gate_ = std::make_shared<Gate>();
  raw::v1::LeaseEvent message_;  // of the write in flight

  absl::Mutex mu_;
  std::string lease_id_ ABSL_GUARDED_BY(mu_);
  std::string taken_by_;  // written before lost_ is set, read after
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool lost_ ABSL_GUARDED_BY(mu_) = false;
  bool lost_sent_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

class FailedLeaseReactor final : public LeaseStream {
 public:
  explicit FailedLeaseReactor(const absl::Status& status) { Finish(convert::ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

LeaseStream* AcquireLease(grpc::CallbackServerContext* /*ctx*/, loop::SessionManager& sessions,
                          ActiveStreams& streams, const raw::v1::AcquireLeaseRequest& request) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return new FailedLeaseReactor(s);
  }
  auto* reactor = new LeaseReactor(sessions, streams, request.session_id());
  reactor->Start(request.client_name(), /*take_over=*/false);
  return reactor;
}

}  // namespace raw::api::rpc
