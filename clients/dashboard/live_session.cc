#include "clients/dashboard/live_session.h"

#include <atomic>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "clients/dashboard/live_commands.h"
#include "clients/dashboard/session_feed.h"
#include "clients/lib/write_lease.h"
#include "common/json.h"

namespace raw::dashboard {
namespace {

class LiveSession : public web::WebSocketHandler, private CommandTarget {
 public:
  LiveSession(std::shared_ptr<const Gateway> gateway, std::string session_id, uint64_t after_seq)
      : gateway_(std::move(gateway)),
        session_id_(std::move(session_id)),
        name_(absl::StrCat(gateway_->client_name, " tab ", NextTabNumber())),
        after_seq_(after_seq) {}

  ~LiveSession() override { OnClose(); }

  void OnOpen(std::shared_ptr<web::WebSocketConnection> connection) override {
    connection_ = std::move(connection);
    v1::GetSessionRequest get;
    get.set_session_id(session_id_);
    get.set_without_context(true);  // only the writer is wanted
    absl::StatusOr<v1::GetSessionResponse> session = gateway_->client->GetSession(get);
    if (!session.ok()) {
      Send(Json{{"type", "disconnected"}, {"why", std::string(session.status().message())}});
      connection_->Close(session.status().code() == absl::StatusCode::kNotFound ? 4404 : 1011,
                         "session unavailable");
      return;
    }
    NoteWriter(session->session().writer());
    FeedTab tab;
    tab.connection = connection_;
    tab.writer_is = [this](const std::string& writer) { NoteWriter(writer); };
    membership_ = gateway_->feeds->Join(session_id_, after_seq_, std::move(tab));
  }

  void OnText(std::string text) override {
    if (std::optional<Json> reply = RunCommand(text, *this)) Send(*reply);
  }

  void OnClose() override {
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return;
      closed_ = true;
    }
    membership_.reset();  // no feed callback runs after this
    std::unique_ptr<client::WriteLease> lease;
    std::vector<std::unique_ptr<client::WriteLease>> replaced;
    {
      absl::MutexLock lock(&mu_);
      lease = std::move(lease_);
      replaced.swap(replaced_);
    }
    lease.reset();  // releases the lease (joins its thread)
    replaced.clear();
  }

 private:
  // Who writes, as GetSession says, when this tab does not.
  // `may_wait`: whether a follower may start its quiet wait (not after one
  // just ended, so that a wait the daemon ends at once cannot loop).
  void RefreshFollowerState(bool may_wait = true) {
    {
      absl::MutexLock lock(&mu_);
      if (HoldsOrWaitsLocked()) return;
    }
    v1::GetSessionRequest get;
    get.set_session_id(session_id_);
    get.set_without_context(true);  // only the writer is wanted
    absl::StatusOr<v1::GetSessionResponse> session = gateway_->client->GetSession(get);
    if (session.ok()) NoteWriter(session->session().writer(), may_wait);
  }

  bool HoldsOrWaitsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return lease_state_ == "holding" || lease_state_ == "waiting";
  }

  void NoteWriter(const std::string& writer, bool may_wait = true) {
    absl::MutexLock lock(&mu_);
    if (closed_ || HoldsOrWaitsLocked()) return;
    // This tab's own name is a lease it has just let go of.
    const std::string state = writer.empty() || writer == name_ ? "none" : "follower";
    // A follower waits quietly for the writer to let go: rawd then grants
    // this tab the lease (AcquireLeaseRequest.wait_for_release), however
    // the writer leaves, without asking it anything.
    if (state == "follower" && may_wait && !switching_ && (lease_ == nullptr || ended_lease_)) {
      StartLeaseLocked(/*request_handover=*/false);
    }
    if (state == lease_state_ && writer == holder_ && announced_) return;
    announced_ = true;
    lease_state_ = state;
    holder_ = state == "none" ? "" : writer;
    SendLocked(LeaseFrameLocked());
  }

  Json LeaseFrameLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return Json{{"type", "lease"}, {"state", lease_state_}, {"holder", holder_}};
  }

  void Send(const Json& frame) { connection_->Send(DumpJson(frame)); }
  void SendLocked(const Json& frame) { Send(frame); }

  // CommandTarget (live_commands.h).
  const Gateway& gateway() const override { return *gateway_; }
  const std::string& session_id() const override { return session_id_; }
  std::string lease_id() override {
    absl::MutexLock lock(&mu_);
    return lease_id_;
  }
  void SendFrame(const Json& frame) override { Send(frame); }

  absl::Status RunSlow(int64_t reply_id, std::function<absl::StatusOr<Json>()> call) override {
    absl::StatusOr<std::shared_ptr<SlowCallQuota::Slot>> slot = slow_quota_->Take();
    if (!slot.ok()) return slot.status();
    gateway_->slow_calls->Run(
        [connection = connection_, reply_id, slot = *std::move(slot), call = std::move(call)] {
          absl::StatusOr<Json> result = call();
          slot->Release();  // before the reply: the tab may send the next one at once
          // After the tab closed, the connection drops the frame.
          connection->Send(DumpJson(result.ok() ? OkReply(reply_id, *std::move(result))
                                                : ErrorReply(reply_id, result.status())));
        });
    return absl::OkStatus();
  }

  std::optional<Json> AcquireLease(int64_t reply_id, bool request_handover) override {
    std::unique_ptr<client::WriteLease> quiet;
    {
      absl::MutexLock lock(&mu_);
      if (lease_ != nullptr && !ended_lease_) {
        // Already holding or waiting: said at once (the first request's
        // reply still comes when the wait ends). A follower's quiet wait
        // gives way to its request to write.
        if (!(quiet_ && request_handover)) return Json{{"state", lease_state_}};
        AnswerPendingLocked(absl::CancelledError("the tab asked to write instead"));
        quiet = std::move(lease_);
        ++lease_generation_;  // its callbacks do nothing from now on
        switching_ = true;    // and NoteWriter starts no other meanwhile
      }
    }
    // The quiet wait is withdrawn from rawd's queue before the request is
    // made: left open, it would be granted a release the tab never sees.
    quiet.reset();
    absl::MutexLock lock(&mu_);
    switching_ = false;
    pending_reply_ = reply_id;
    StartLeaseLocked(request_handover);
    return std::nullopt;  // answered by a callback
  }

  // Starts the tab's lease stream: a handover request, or (with
  // `request_handover` false) a wait for the lease that never asks the
  // writer. Only a stream that has ended may be in lease_ (none is left
  // waiting in rawd's queue); it is destroyed later, off this lock, since
  // the caller may run on its thread. Late callbacks of older streams are
  // ignored.
  void StartLeaseLocked(bool request_handover) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (lease_ != nullptr) replaced_.push_back(std::move(lease_));
    ended_lease_ = false;
    quiet_ = !request_handover;
    const uint64_t generation = ++lease_generation_;
    client::WriteLease::Callbacks callbacks;
    callbacks.granted = [this, generation](const std::string& id) {
      absl::MutexLock held(&mu_);
      if (generation != lease_generation_) return;
      quiet_ = false;
      lease_id_ = id;
      lease_state_ = "holding";
      holder_ = name_;
      SendLocked(LeaseFrameLocked());
      AnswerPendingLocked(absl::OkStatus());
    };
    callbacks.waiting = [this, generation](const v1::LeaseHolder& holder) {
      absl::MutexLock held(&mu_);
      if (generation != lease_generation_) return;
      // A quiet wait is following: the tab says so, and offers to ask.
      lease_state_ = quiet_ ? "follower" : "waiting";
      holder_ = holder.client_name();
      announced_ = true;
      SendLocked(LeaseFrameLocked());
    };
    callbacks.handover_requested = [this, generation](const v1::LeaseHolder& requester) {
      {
        absl::MutexLock held(&mu_);
        if (generation != lease_generation_) return;
      }
      Send(Json{{"type", "handover_requested"}, {"by", requester.client_name()}});
    };
    callbacks.handover_withdrawn = [this, generation] {
      {
        absl::MutexLock held(&mu_);
        if (generation != lease_generation_) return;
      }
      Send(Json{{"type", "handover_withdrawn"}});
    };
    callbacks.ended = [this, generation](const absl::Status& status) {
      {
        absl::MutexLock held(&mu_);
        if (generation != lease_generation_) return;
      }
      OnLeaseEnded(status);
    };
    lease_ = std::make_unique<client::WriteLease>(
        *gateway_->client,
        gateway_->LeaseRequest(session_id_, name_, request_handover,
                               /*wait_for_release=*/!request_handover),
        std::move(callbacks));
  }

  // On the lease thread: refused, declined, released or lost. A tab that
  // was told "holding" or "waiting" is told at once that it is no longer:
  // "unknown" until GetSession names the writer, which fails while rawd is
  // away (then the feed's check after its reconnection names it).
  void OnLeaseEnded(const absl::Status& status) {
    bool was_quiet;
    {
      absl::MutexLock lock(&mu_);
      was_quiet = quiet_;
      lease_id_.clear();
      if (HoldsOrWaitsLocked()) {
        lease_state_ = "unknown";
        holder_.clear();
        SendLocked(LeaseFrameLocked());
      } else {
        lease_state_.clear();  // said again once GetSession names the writer
        holder_.clear();
      }
      ended_lease_ = true;  // the next command or OnClose destroys the WriteLease
      AnswerPendingLocked(status.ok() ? absl::FailedPreconditionError("the lease stream ended")
                                      : status);
    }
    // A quiet wait that ended (the daemon went away) is not started again
    // from here; the feed's next writer check does that.
    RefreshFollowerState(/*may_wait=*/!was_quiet);
  }

  void AnswerPendingLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!pending_reply_) return;
    SendLocked(status.ok() ? OkReply(*pending_reply_, Json{{"state", "holding"}})
                           : ErrorReply(*pending_reply_, status));
    pending_reply_.reset();
  }

  void ReleaseLease() override {
    std::unique_ptr<client::WriteLease> lease;
    std::vector<std::unique_ptr<client::WriteLease>> replaced;
    {
      absl::MutexLock lock(&mu_);
      lease = std::move(lease_);
      replaced.swap(replaced_);
      lease_id_.clear();
      pending_reply_.reset();
    }
    lease.reset();  // ends the stream; OnLeaseEnded sends the new state
    replaced.clear();
  }

  // A finished lease stream's WriteLease, and those replaced, are dropped
  // before the next command runs (never on their own threads).
  void DropEndedLease() override {
    std::unique_ptr<client::WriteLease> lease;
    std::vector<std::unique_ptr<client::WriteLease>> replaced;
    {
      absl::MutexLock lock(&mu_);
      replaced.swap(replaced_);
      if (ended_lease_) {
        ended_lease_ = false;
        lease = std::move(lease_);
      }
    }
    lease.reset();
    replaced.clear();
  }

  static int64_t NextTabNumber() {
    static std::atomic<int64_t> next{1};
    return next++;
  }

  std::shared_ptr<const Gateway> gateway_;
  const std::string session_id_;
  const std::string name_;  // the lease holder's name: "raw-dashboard (pid P) tab N"
  const uint64_t after_seq_;
  std::shared_ptr<web::WebSocketConnection> connection_;
  // The tab's prompts and compactions waiting on rawd (SlowCalls).
  const std::shared_ptr<SlowCallQuota> slow_quota_ = SlowCallQuota::Create(kMaxSlowCallsPerTab);
  // The tab's place in the session's feed (OnOpen to OnClose).
  std::unique_ptr<SessionFeed::Membership> membership_;

  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<client::WriteLease> lease_ ABSL_GUARDED_BY(mu_);
  bool ended_lease_ ABSL_GUARDED_BY(mu_) = false;
  // lease_ is a follower's quiet wait (StartLeaseLocked).
  bool quiet_ ABSL_GUARDED_BY(mu_) = false;
  // AcquireLease is replacing a quiet wait with a request to write.
  bool switching_ ABSL_GUARDED_BY(mu_) = false;
  // Counts lease streams; a callback of an older one does nothing.
  uint64_t lease_generation_ ABSL_GUARDED_BY(mu_) = 0;
  // Ended streams replaced while their own thread may be the caller:
  // destroyed by the next command, ReleaseLease or OnClose.
  std::vector<std::unique_ptr<client::WriteLease>> replaced_ ABSL_GUARDED_BY(mu_);
  std::string lease_id_ ABSL_GUARDED_BY(mu_);
  std::string lease_state_ ABSL_GUARDED_BY(mu_) = "none";
  std::string holder_ ABSL_GUARDED_BY(mu_);
  bool announced_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<int64_t> pending_reply_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<web::WebSocketHandler> MakeLiveSession(std::shared_ptr<const Gateway> gateway,
                                                       std::string session_id, uint64_t after_seq) {
  return std::make_unique<LiveSession>(std::move(gateway), std::move(session_id), after_seq);
}

}  // namespace raw::dashboard
