// SessionRunner: the write lease's commands (taking, releasing, handing
// over and keeping it), which run in the session's queue in order with
// its writes.
#include <utility>
#include <vector>

#include "daemon/loop/session_runner.h"

namespace raw::loop {

void SessionRunner::AcquireLease(LeaseClient client, WhenHeld when_held, LeaseCallbacks callbacks,
                                 LeaseReply reply) {
  auto self = shared_from_this();
  Post(
      [self, client = std::move(client), when_held, callbacks = std::move(callbacks), reply] {
        absl::StatusOr<WriteLeases::Acquired> acquired;
        {
          // Checked and granted under removal_mu_ (see MarkRemoved): a
          // removal marked off the queue either comes first and refuses
          // this, or comes after and ends the lease granted here.
          absl::MutexLock gate(&self->removal_mu_);
          if (absl::Status removed = self->Removed(); !removed.ok()) {
            acquired = removed;
          } else if (self->ShuttingDown()) {
            acquired = absl::UnavailableError("the daemon is shutting down");
          } else {
            acquired = self->deps_.leases.Acquire(self->session_id_, client, when_held, callbacks);
          }
        }
        if (reply(acquired)) {
          // A lease is taken to prompt: get the history ready for it.
          if (acquired.ok() && !acquired->lease_id.empty()) self->WarmUp();
          return;
        }
        if (!acquired.ok()) return;
        // The requester is gone: nothing else has run since the acquire.
        if (!acquired->lease_id.empty()) {
          self->deps_.leases.Release(self->session_id_, acquired->lease_id);
        }
        if (!acquired->wait_id.empty()) {
          self->deps_.leases.CancelWait(self->session_id_, acquired->wait_id);
        }
      },
      [reply](absl::Status s) { reply(s); });
}

void SessionRunner::PostLeaseChange(std::function<void()> change, StatusReply done) {
  Post([self = shared_from_this(), change = std::move(change),
        done] { self->RunLeaseChange(change, done); },
       [done](absl::Status s) {
         if (done) done(s);
       });
}

void SessionRunner::RunLeaseChange(std::function<void()> change, StatusReply done) {
  {
    absl::MutexLock lock(&mu_);
    // Commands that wait run again in the order they came, each when what
    // it waits for ends: this change takes its place behind them, so that a
    // release does not run before the turn its holder started.
    std::vector<std::function<void()>>* waiting =
        !deferred_.empty() ? &deferred_ : (!after_warm_.empty() ? &after_warm_ : nullptr);
    if (waiting != nullptr) {
      waiting->push_back([self = shared_from_this(), change = std::move(change), done] {
        self->RunLeaseChange(change, done);
      });
      return;
    }
  }
  change();
  if (done) done(absl::OkStatus());
}

void SessionRunner::ReleaseLease(std::string lease_id, StatusReply done) {
  PostLeaseChange(
      [self = shared_from_this(), lease_id = std::move(lease_id)] {
        self->deps_.leases.Release(self->session_id_, lease_id);
      },
      std::move(done));
}

void SessionRunner::CancelLeaseWait(std::string wait_id, StatusReply done) {
  PostLeaseChange(
      [self = shared_from_this(), wait_id = std::move(wait_id)] {
        self->deps_.leases.CancelWait(self->session_id_, wait_id);
      },
      std::move(done));
}

void SessionRunner::EndLeaseReservation() {
  PostLeaseChange(
      [self = shared_from_this()] { self->deps_.leases.EndReservation(self->session_id_); },
      nullptr);
}

void SessionRunner::DeclineHandover(std::string lease_id, Reply<int> reply) {
  auto self = shared_from_this();
  Post(
      [self, lease_id = std::move(lease_id), reply] {
        if (absl::Status removed = self->Removed(); !removed.ok()) return reply(removed);
        reply(self->deps_.leases.Decline(self->session_id_, lease_id));
      },
      [reply](absl::Status s) { reply(s); });
}

}  // namespace raw::loop
