#include "clients/lib/session_lease.h"

#include <utility>

namespace raw::client {

std::string HolderFromRefusal(const std::string& message) {
  constexpr char kIn[] = "in \"";
  size_t start = message.find(kIn);
  if (start == std::string::npos) return "";
  start += sizeof kIn - 1;
  size_t end = message.find('"', start);
  if (end == std::string::npos) return "";
  return message.substr(start, end - start);
}

SessionLease::SessionLease(Identity identity, HandoverGate::Timing timing, Executor post,
                           Executor run, Listener& listener)
    : identity_(std::move(identity)),
      post_(std::move(post)),
      run_(std::move(run)),
      listener_(listener),
      gate_(timing) {}

SessionLease::~SessionLease() { Release(); }

void SessionLease::Acquire(std::shared_ptr<RawClient> client, const std::string& session_id,
                           bool rejoin_following) {
  Release();
  lost_following_ = false;
  client_ = std::move(client);
  session_id_ = session_id;
  if (rejoin_following && !identity_.wait_for_release) {
    Apply(Change::kFollowing, State::kFollowing);
    return;
  }
  Start(/*request_handover=*/false, rejoin_following);
}

void SessionLease::RequestHandover() {
  if (state_ != State::kFollowing || !client_) return;
  Start(/*request_handover=*/true);
}

void SessionLease::Release() {
  if (alive_) *alive_ = false;
  lease_.reset();  // ends the stream and joins its thread
  alive_.reset();
  gate_.Reset();
  lease_id_.clear();
  state_ = State::kNone;
}

void SessionLease::Start(bool request_handover, bool rejoin_following) {
  if (alive_) *alive_ = false;
  lease_.reset();
  gate_.Reset();
  lease_id_.clear();
  status_ = absl::OkStatus();
  v1::AcquireLeaseRequest request;
  request.set_session_id(session_id_);
  request.set_client_name(identity_.name);
  request.set_client_kind(identity_.kind);
  request.set_client_pid(identity_.pid);
  request.set_interrupt_on_release(identity_.interrupt_on_release);
  request.set_request_handover(request_handover);
  // Without asking for a handover, a client that waits quietly is granted
  // the lease once the writer lets go, however it leaves (wait_for_release).
  quiet_ = identity_.wait_for_release && !request_handover;
  request.set_wait_for_release(quiet_);
  rejoining_ = quiet_ && rejoin_following;
  request.set_rejoin_following(rejoining_);
  if (!request_handover && state_ != State::kFollowing) state_ = State::kAcquiring;
  alive_ = std::make_shared<std::atomic<bool>>(true);
  // Each message becomes a task on the owner's thread, dropped once this
  // stream is no longer the current one.
  auto on_owner = [this, alive = alive_](std::function<void()> fn) {
    post_([alive, fn = std::move(fn)] {
      if (*alive) fn();
    });
  };
  WriteLease::Callbacks callbacks;
  callbacks.granted = [this, on_owner](const std::string& id) {
    on_owner([this, id] { OnGranted(id); });
  };
  callbacks.waiting = [this, on_owner](const v1::LeaseHolder& holder) {
    on_owner([this, holder] { OnWaiting(holder); });
  };
  callbacks.handover_requested = [this, on_owner](const v1::LeaseHolder& requester) {
    on_owner([this, requester] { OnHandoverRequested(requester); });
  };
  callbacks.handover_withdrawn = [this, on_owner] { on_owner([this] { OnHandoverWithdrawn(); }); };
  callbacks.ended = [this, on_owner](const absl::Status& status) {
    on_owner([this, status] { OnEnded(status); });
  };
  lease_ = std::make_unique<WriteLease>(*client_, request, std::move(callbacks));
}

void SessionLease::Apply(Change change, State next) {
  State before = state_;
  state_ = next;
  listener_.OnLeaseChange(change, before);
}

void SessionLease::OnGranted(const std::string& lease_id) {
  lease_id_ = lease_id;
  holder_.clear();
  Apply(Change::kGranted, State::kHeld);
}

void SessionLease::OnWaiting(const v1::LeaseHolder& holder) {
  const bool named_anew = !holder.client_name().empty() && holder.client_name() != holder_;
  if (!holder.client_name().empty()) holder_ = holder.client_name();
  if (quiet_) {
    // Another client writes: this one follows, said once as the session
    // opens (a wait started again while following says nothing new, unless
    // the daemon names another writer: the lease passed to it meanwhile).
    if (state_ == State::kAcquiring) {
      Apply(Change::kFollowing, State::kFollowing);
    } else if (state_ == State::kFollowing && named_anew) {
      Apply(Change::kWriterChanged, State::kFollowing);
    }
    return;
  }
  Apply(Change::kWaiting, State::kRequesting);
}

void SessionLease::WaitQuietly() {
  if (identity_.wait_for_release && state_ == State::kFollowing && client_) {
    Start(/*request_handover=*/false);
  }
}

void SessionLease::OnHandoverRequested(const v1::LeaseHolder& requester) {
  if (state_ != State::kHeld) return;
  // The daemon names the oldest request, the one a release grants: the
  // countdown names it too (a later requester only waits behind it).
  if (gate_.phase() != HandoverGate::Phase::kNone &&
      requester.client_name() == requester_.client_name() &&
      requester.client_pid() == requester_.client_pid()) {
    return;  // the same request said again: nothing new to show
  }
  requester_ = requester;
  gate_.Requested(requester, turn_running_);
  Apply(Change::kHandoverRequested, State::kHeld);
}

void SessionLease::OnHandoverWithdrawn() {
  if (state_ != State::kHeld) return;
  // Whoever asked is gone (or was declined): a countdown running now would
  // hand the session to a client that no longer asks, or to nobody.
  const bool active = gate_.phase() != HandoverGate::Phase::kNone;
  gate_.Reset();
  if (active) Apply(Change::kHandoverWithdrawn, State::kHeld);
}

void SessionLease::OnEnded(const absl::Status& status) {
  status_ = status;
  lease_id_.clear();
  gate_.Reset();
  if (absl::IsFailedPrecondition(status)) {
    if (state_ == State::kRequesting) {
      Apply(Change::kDeclined, State::kFollowing);
      WaitQuietly();
      return;
    }
    std::string named = HolderFromRefusal(std::string(status.message()));
    if (!named.empty()) holder_ = named;
    // A daemon that refuses a wait started again while following (one
    // without wait_for_release) changes nothing to say.
    if (state_ == State::kFollowing) return;
    Apply(Change::kFollowing, State::kFollowing);
    return;
  }
  lost_following_ = following();
  if (state_ == State::kRequesting) {
    Apply(Change::kLost, State::kFollowing);
    return;
  }
  Apply(Change::kLost, State::kNone);
}

void SessionLease::EndStream() {
  if (alive_) *alive_ = false;
  lease_.reset();
  alive_.reset();
  lease_id_.clear();
}

void SessionLease::LetGo() {
  if (state_ != State::kHeld) return;
  EndStream();
  gate_.Reset();
  holder_.clear();
  Apply(Change::kFollowing, State::kFollowing);
  WaitQuietly();
}

bool SessionLease::KeyPressed(absl::Time now) {
  if (!gate_.KeyPressed(now)) return false;
  // The gate was counting down: the key keeps the lease.
  v1::DeclineHandoverRequest request;
  request.set_session_id(session_id_);
  request.set_lease_id(lease_id_);
  run_([client = client_, request] { (void)client->DeclineHandover(request); });
  Apply(Change::kKept, State::kHeld);
  return true;
}

void SessionLease::Tick(bool turn_running, absl::Time now) {
  turn_running_ = turn_running;
  if (state_ != State::kHeld) return;
  if (!gate_.Tick(turn_running, now)) return;
  // Handed over: the stream ends, the requester is granted.
  EndStream();
  holder_ = requester_.client_name();
  Apply(Change::kHandedOver, State::kFollowing);
  WaitQuietly();
}

}  // namespace raw::client
