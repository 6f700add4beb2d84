// AcquireLease: a server stream that holds a session's write lease for as
// long as it stays open (see loop/write_leases.h).
//
// Messages, in order: `granted` (at once when the lease is free; after
// `waiting` when this client waits for the holder to let go), `waiting`
// again whenever the lease passes to another client while this one waits,
// and, to the holder, `handover_requested` naming the oldest client that
// asks whenever that changes, and `handover_withdrawn` when nobody asks any
// more. Those two say how things stand, so one not yet written is replaced
// by the next (as a queued `waiting` is): a holder that does not read its
// stream keeps one, whatever other clients do. The
// lease ends when the client closes the stream or its connection ends
// (OnCancel: exit, crash, kill -9), or when the daemon drains its streams at
// shutdown; a lease asked for with `interrupt_on_release` interrupts the
// session's running turn or compaction as it ends, if that operation was
// started under this lease. A handover request that
// the holder declines ends the stream
// with FAILED_PRECONDITION. Deleting the session ends the holder's stream
// and every waiting one with NOT_FOUND.
//
// Start never waits: it posts the acquire to the session's queue
// (SessionManager::AcquireLease) and the answer arrives later, on the queue.
// Every lease callback (granted, handover_requested, declined) also runs on
// that queue, in a later command, so the answer's `granted` or `waiting` is
// queued before any message those callbacks queue. Releasing the lease and
// withdrawing the wait are posted too (LetGo); they run even after the
// reactor is gone. The callbacks reach the reactor through a gate that
// OnDone closes, and whatever arrives for a stream that is ending or gone is
// given back at once: an answer by returning false to the runner (which
// releases the lease or withdraws the wait in the same command), a later
// grant by posting its release. So no lease is left to a gone stream. One
// write is in flight at a time; Finish is called once, after the queued
// messages, never under mu_. Lock order: Gate::mu, then mu_.
#include <grpcpp/alarm.h>

#include <deque>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "common/utf8.h"
#include "daemon/api/convert/status_to_grpc.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/lease_news.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {
namespace {

constexpr size_t kMaxClientNameBytes = 256;
constexpr size_t kMaxClientKindBytes = 64;

void ToProto(const loop::LeaseHolderInfo& info, raw::v1::LeaseHolder* out) {
  out->set_client_name(info.client.name);
  out->set_client_kind(info.client.kind);
  out->set_client_pid(info.client.pid);
  out->set_since_unix_ms(info.since_unix_ms);
}

class LeaseReactor final : public LeaseStream, public DrainableStream {
 public:
  LeaseReactor(loop::SessionManager& sessions, ActiveStreams& streams, std::string session_id,
               bool interrupt_on_release)
      : sessions_(sessions),
        streams_(streams),
        session_id_(std::move(session_id)),
        interrupt_on_release_(interrupt_on_release) {
    absl::MutexLock lock(&gate_->mu);
    gate_->target = this;
  }

  void Start(const raw::v1::AcquireLeaseRequest& request) {
    if (absl::Status added = streams_.Add(this); !added.ok()) {
      End(added);
      return;
    }
    registered_ = true;
    // Names are shown to other clients (and copied into every refusal and
    // handover message): kept short and free of control characters.
    loop::LeaseClient client{SafeDisplayText(request.client_name(), kMaxClientNameBytes),
                             SafeDisplayText(request.client_kind(), kMaxClientKindBytes),
                             request.client_pid()};
    std::weak_ptr<Gate> weak = gate_;
    loop::LeaseCallbacks callbacks;
    callbacks.granted = [weak, &sessions = sessions_,
                         session_id = session_id_](const std::string& lease_id) {
      bool delivered = false;
      WithTarget(weak, [&](LeaseReactor& r) {
        delivered = true;
        r.OnGranted(lease_id);
      });
      // The stream is gone (the withdrawal of its wait is still queued):
      // pass the lease on at once.
      if (!delivered) sessions.ReleaseLease(session_id, lease_id);
    };
    callbacks.handover_requested = [weak](const loop::LeaseHolderInfo& requester) {
      WithTarget(weak, [&](LeaseReactor& r) {
        raw::v1::LeaseEvent event;
        ToProto(requester, event.mutable_handover_requested()->mutable_requester());
        r.QueueHandoverNews(std::move(event));
      });
    };
    callbacks.handover_withdrawn = [weak] {
      WithTarget(weak, [&](LeaseReactor& r) {
        raw::v1::LeaseEvent event;
        event.mutable_handover_withdrawn();
        r.QueueHandoverNews(std::move(event));
      });
    };
    callbacks.holder_changed = [weak](const loop::LeaseHolderInfo& holder) {
      WithTarget(weak, [&](LeaseReactor& r) { r.QueueWaiting(holder); });
    };
    callbacks.declined = [weak](const absl::Status& why) {
      WithTarget(weak, [&](LeaseReactor& r) {
        {
          absl::MutexLock lock(&r.mu_);
          r.wait_id_.clear();  // the request is over
        }
        r.End(why);
      });
    };
    callbacks.ended = [weak](const absl::Status& why) {
      WithTarget(weak, [&](LeaseReactor& r) {
        {
          absl::MutexLock lock(&r.mu_);
          r.lease_id_.clear();  // nothing is left to release
        }
        r.End(why);
      });
    };
    sessions_.AcquireLease(
        session_id_, std::move(client),
        request.request_handover()    ? loop::WhenHeld::kRequestHandover
        : !request.wait_for_release() ? loop::WhenHeld::kRefuse
        : request.rejoin_following()  ? loop::WhenHeld::kRejoinFollowing
                                      : loop::WhenHeld::kWaitForRelease,
        std::move(callbacks), [weak](absl::StatusOr<loop::WriteLeases::Acquired> acquired) {
          bool kept = false;
          WithTarget(weak, [&](LeaseReactor& r) { kept = r.OnAcquired(acquired); });
          return kept;
        });
  }

  void OnWriteDone(bool ok) override {
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      if (!ok && end_.ok()) end_ = absl::CancelledError("the stream was closed");
    }
    if (!ok) LetGo();
    Pump();
  }

  void OnCancel() override {
    LetGo();
    End(absl::CancelledError("cancelled by the client"));
  }

  void OnDone() override {
    {
      absl::MutexLock lock(&gate_->mu);
      gate_->target = nullptr;
    }
    LetGo();
    if (registered_) streams_.Remove(this);
    delete this;
  }

  // Called by ActiveStreams with its lock held: quick, no callbacks into it.
  void Drain() override {
    {
      absl::MutexLock lock(&mu_);
      if (end_.ok()) end_ = absl::UnavailableError("rawd is shutting down");
      if (writing_ || finished_) return;  // OnWriteDone finishes
    }
    // Not inline: finishing may end in OnDone, which takes the registry's
    // lock that the caller holds. Through the gate: the stream may be gone
    // by the time the alarm fires.
    auto* alarm = new grpc::Alarm();
    std::weak_ptr<Gate> weak = gate_;
    alarm->Set(gpr_now(GPR_CLOCK_MONOTONIC), [weak, alarm](bool /*fired*/) {
      delete alarm;
      WithTarget(weak, [](LeaseReactor& r) {
        r.LetGo();
        r.Pump();
      });
    });
  }

 private:
  struct Gate {
    absl::Mutex mu;
    LeaseReactor* target ABSL_GUARDED_BY(mu) = nullptr;
  };

  template <typename Fn>
  static void WithTarget(const std::weak_ptr<Gate>& weak, const Fn& fn) {
    std::shared_ptr<Gate> gate = weak.lock();
    if (gate == nullptr) return;
    absl::MutexLock lock(&gate->mu);
    if (gate->target != nullptr) fn(*gate->target);
  }

  // The acquire's answer, on the session's queue. False when the stream is
  // ending or the acquire failed: the runner gives back what it got.
  bool OnAcquired(const absl::StatusOr<loop::WriteLeases::Acquired>& acquired) {
    if (!acquired.ok()) {
      End(acquired.status());
      return false;
    }
    {
      absl::MutexLock lock(&mu_);
      if (!end_.ok() || finished_) return false;
      if (!acquired->lease_id.empty()) {
        lease_id_ = acquired->lease_id;
        pending_.emplace_back().mutable_granted()->set_lease_id(lease_id_);
      } else {
        wait_id_ = acquired->wait_id;
        ToProto(acquired->holder, pending_.emplace_back().mutable_waiting()->mutable_holder());
      }
    }
    Pump();
    return true;
  }

  void OnGranted(const std::string& lease_id) {
    bool keep;
    {
      absl::MutexLock lock(&mu_);
      wait_id_.clear();
      keep = end_.ok() && !finished_;
      if (keep) {
        lease_id_ = lease_id;
        pending_.emplace_back().mutable_granted()->set_lease_id(lease_id);
      }
    }
    // Granted to a stream that is ending: pass it on at once.
    if (!keep) sessions_.ReleaseLease(session_id_, lease_id);
    Pump();
  }

  // A handover_requested or handover_withdrawn for the holder: replaces one
  // still queued, since only the latest says how things stand.
  void QueueHandoverNews(raw::v1::LeaseEvent event) {
    {
      absl::MutexLock lock(&mu_);
      if (!end_.ok() || finished_) return;
      QueueLeaseEvent(pending_, std::move(event));
    }
    Pump();
  }

  // While this stream waits, another client took the lease: `waiting`
  // again, naming it. A `waiting` still queued is replaced rather than
  // followed, so a client that does not read keeps one, not one per change.
  void QueueWaiting(const loop::LeaseHolderInfo& holder) {
    {
      absl::MutexLock lock(&mu_);
      if (!end_.ok() || finished_ || wait_id_.empty()) return;
      if (pending_.empty() || !pending_.back().has_waiting()) pending_.emplace_back();
      ToProto(holder, pending_.back().mutable_waiting()->mutable_holder());
    }
    Pump();
  }

  // Ends the stream with `status` once the queued messages are written.
  void End(const absl::Status& status) {
    {
      absl::MutexLock lock(&mu_);
      if (end_.ok()) end_ = status.ok() ? absl::CancelledError("ended") : status;
    }
    Pump();
  }

  // Writes the next queued message, or finishes when the stream is ending
  // and nothing is left to write.
  void Pump() {
    absl::Status finish;
    {
      absl::MutexLock lock(&mu_);
      if (writing_ || finished_) return;
      if (!pending_.empty() && (end_.ok() || !absl::IsCancelled(end_))) {
        message_ = std::move(pending_.front());
        pending_.pop_front();
        writing_ = true;
      } else if (!end_.ok()) {
        finished_ = true;
        finish = end_;
      } else {
        return;
      }
    }
    if (!finish.ok()) {
      LetGo();
      Finish(convert::ToGrpcStatus(finish));
      return;
    }
    StartWrite(&message_);
  }

  // Releases the lease, or withdraws the waiting request.
  void LetGo() {
    std::string lease_id, wait_id;
    {
      absl::MutexLock lock(&mu_);
      lease_id.swap(lease_id_);
      wait_id.swap(wait_id_);
    }
    if (!lease_id.empty()) {
      // Posted before the release, to the same queue: the interrupt runs
      // while this lease still holds the session.
      if (interrupt_on_release_) {
        sessions_.InterruptOwnOperation(session_id_, lease_id, [](const absl::StatusOr<bool>&) {});
      }
      sessions_.ReleaseLease(session_id_, lease_id);
    }
    if (!wait_id.empty()) sessions_.CancelLeaseWait(session_id_, wait_id);
  }

  loop::SessionManager& sessions_;
  ActiveStreams& streams_;
  const std::string session_id_;
  // AcquireLeaseRequest.interrupt_on_release.
  const bool interrupt_on_release_;
  bool registered_ = false;
  const std::shared_ptr<Gate> gate_ = std::make_shared<Gate>();
  raw::v1::LeaseEvent message_;  // of the write in flight

  absl::Mutex mu_;
  std::string lease_id_ ABSL_GUARDED_BY(mu_);
  std::string wait_id_ ABSL_GUARDED_BY(mu_);
  std::deque<raw::v1::LeaseEvent> pending_ ABSL_GUARDED_BY(mu_);
  absl::Status end_ ABSL_GUARDED_BY(mu_);  // not OK once the stream is ending
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
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
  auto* reactor =
      new LeaseReactor(sessions, streams, request.session_id(), request.interrupt_on_release());
  reactor->Start(request);
  return reactor;
}

}  // namespace raw::api::rpc
