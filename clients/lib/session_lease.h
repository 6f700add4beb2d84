// SessionLease: one interactive client's side of a session's write lease,
// the lease part of what a session controller does for every front end.
//
// Acquire() asks for the lease when a session opens: granted, the client
// writes (lease_id() goes on every write); held by another client, it
// follows read-only and holder() names the writer. With
// Identity::wait_for_release it also waits for the lease without asking the
// writer, so that it is granted (kGranted) once the writer lets go, whether
// it quits, dies or hands the session to this client, and it waits again
// after a decline or after handing the session over itself.
// RequestHandover() asks the writer to hand the session over (the daemon
// never takes a lease away). While this
// client holds the lease, a request from another client is handed over by
// the HandoverGate rule, driven by KeyPressed() and Tick(); a key during
// the countdown keeps the lease (DeclineHandover is sent).
//
// Threading: owned by one thread, the owner's (a UI thread). The lease
// stream runs on a thread of its own; its messages reach the owner through
// `post`, which must run the task later on the owner's thread, and only
// then change the state and call the Listener. Blocking calls
// (DeclineHandover) go through `run`, which must run them off the owner's
// thread. Release() and the destructor end the stream; no Listener call
// happens after them.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "clients/lib/handover_gate.h"
#include "clients/lib/raw_client.h"
#include "clients/lib/write_lease.h"

namespace raw::client {

class SessionLease {
 public:
  enum class State {
    kNone,        // not asked (no session, or released)
    kAcquiring,   // asked; no answer yet
    kHeld,        // this client writes
    kFollowing,   // another client writes; holder() names it
    kRequesting,  // asked holder() for a handover; waiting
  };

  // What changed, for the front end to say so.
  enum class Change {
    kGranted,            // this client writes (after following or asking too)
    kFollowing,          // refused: holder() writes; status() has the daemon's words
    kWriterChanged,      // following still: another client, holder(), writes now
    kWaiting,            // the handover request reached holder(); waiting
    kDeclined,           // holder() keeps the session
    kHandoverRequested,  // requester() asks for this client's lease (or asks now, in
                         // place of one that withdrew)
    kHandoverWithdrawn,  // nobody asks any more; the handover is off
    kHandedOver,         // released to requester(); following it now
    kKept,               // a key kept the lease; requester() was declined
    kLost,               // the stream broke (status()); the daemon went away
  };

  class Listener {
   public:
    virtual ~Listener() = default;
    // `before` is the state the change left.
    virtual void OnLeaseChange(Change change, State before) = 0;
  };

  struct Identity {
    std::string name;  // "raw (pid 4242)"
    std::string kind;  // "raw"
    int64_t pid = 0;
    // AcquireLeaseRequest.interrupt_on_release: the daemon interrupts the
    // session's running turn when this client's lease ends, even when the
    // client is killed.
    bool interrupt_on_release = false;
    // While following, wait for the lease without asking the writer
    // (AcquireLeaseRequest.wait_for_release), and so take the session when
    // the writer lets go. raw-acp leaves it off: it answers no approval of
    // a turn it did not start, so it takes a session only for a prompt.
    bool wait_for_release = false;
  };

  using Executor = std::function<void(std::function<void()>)>;

  SessionLease(Identity identity, HandoverGate::Timing timing, Executor post, Executor run,
               Listener& listener);
  ~SessionLease();
  SessionLease(const SessionLease&) = delete;
  SessionLease& operator=(const SessionLease&) = delete;

  // Asks for the lease of `session_id` (ending any earlier stream).
  // `rejoin_following`: this client followed the session before it lost its
  // connection to the daemon; it follows again rather than take the lease
  // that the daemon's restart left free, so that the client that wrote
  // before gets it back: with wait_for_release it waits quietly
  // (AcquireLeaseRequest.rejoin_following: granted if that writer does not
  // come back), without it it asks for nothing (kFollowing at once; holder()
  // still names the writer of before).
  void Acquire(std::shared_ptr<RawClient> client, const std::string& session_id,
               bool rejoin_following = false);
  // While following: asks the holder for a handover.
  void RequestHandover();
  // Ends the stream (the lease, if held, is released) and forgets the
  // session. The state goes to kNone without a Listener call.
  void Release();
  // While holding: releases the lease and follows the session (kFollowing,
  // no holder named; with wait_for_release it waits again). For a client
  // that took the lease for something that did not happen.
  void LetGo();

  // Every key the user presses. True when the key kept the lease (it came
  // during a handover countdown): the front end does nothing else with it.
  bool KeyPressed(absl::Time now);
  // Advances the handover rule; hands the lease over when it says so.
  void Tick(bool turn_running, absl::Time now);

  State state() const { return state_; }
  bool following() const { return state_ == State::kFollowing || state_ == State::kRequesting; }
  // The lease stream broke (kLost) while this client followed; until the
  // next Acquire.
  bool lost_following() const { return lost_following_; }
  // The current wait is a follower's rejoining after the daemon restarted
  // (Acquire with rejoin_following).
  bool rejoining() const { return rejoining_; }
  const std::string& lease_id() const { return lease_id_; }
  // The other writer's name (following, requesting); may be empty.
  const std::string& holder() const { return holder_; }
  void set_holder(const std::string& holder) { holder_ = holder; }
  // Who last asked for this client's lease.
  const v1::LeaseHolder& requester() const { return requester_; }
  const HandoverGate& gate() const { return gate_; }
  // The status that ended the last stream (kFollowing, kDeclined, kLost).
  const absl::Status& status() const { return status_; }

 private:
  void Start(bool request_handover, bool rejoin_following = false);
  // Ends the current stream: its late messages are dropped.
  void EndStream();
  void OnGranted(const std::string& lease_id);
  void OnWaiting(const v1::LeaseHolder& holder);
  void OnHandoverRequested(const v1::LeaseHolder& requester);
  void OnHandoverWithdrawn();
  void OnEnded(const absl::Status& status);
  void Apply(Change change, State next);
  // While following: waits for the lease again, without asking the writer.
  void WaitQuietly();

  Identity identity_;
  Executor post_;
  Executor run_;
  Listener& listener_;
  HandoverGate gate_;
  std::shared_ptr<RawClient> client_;
  std::string session_id_;
  State state_ = State::kNone;
  std::string lease_id_;
  std::string holder_;
  v1::LeaseHolder requester_;
  absl::Status status_;
  bool turn_running_ = false;
  // The current stream waits without asking the writer (wait_for_release).
  bool quiet_ = false;
  bool lost_following_ = false;
  bool rejoining_ = false;
  // Shared with the tasks posted by the current stream: false once that
  // stream is ended, so that its late messages are dropped.
  std::shared_ptr<std::atomic<bool>> alive_;
  std::unique_ptr<WriteLease> lease_;
};

// The holder named in the daemon's refusal: 'session S is open for writing
// in "NAME" (...)'; empty when the message has another form.
std::string HolderFromRefusal(const std::string& message);

}  // namespace raw::client
