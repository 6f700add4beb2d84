// SessionFeed: the gateway's one subscription to one session, shared by
// every browser tab (WebSocket) open on it. Each event is turned into its
// frame text ({"type":"event","event":...}) once, and the same text is
// queued on every tab's connection: with five tabs on a session, a burst of
// deltas costs one daemon stream and one conversion per event, not five.
// SessionFeeds (session_feeds.h) finds or starts the feed of a session.
//
// A tab asks for the events after its own `after_seq` (docs/dashboard.md).
// Seqs increase with every event of a session, and a stream opened after
// N yields every seq after N once, in order (proto/raw/v1/event.proto), so
// positions compare across streams. The feed is at position F, the last
// seq it delivered (at first the after_seq of the tab that started it). A
// tab that joins
// - with after_seq >= F joins at once; the feed's events up to its
//   after_seq are not sent to it;
// - with after_seq < F first gets a catch-up stream of its own (a
//   ResumingStream after its after_seq). As soon as the tab's last
//   delivered seq S reaches the feed's position (S >= F, checked under the
//   feed's lock on every event of either stream), it moves onto the feed,
//   which then sends it only seqs after S, and its catch-up stream is
//   cancelled.
// Either way the tab gets every event after its after_seq exactly once, in
// order (text and reasoning deltas that queue up behind a busy socket leave
// as one delta event carrying their joined text and the last one's seq:
// web::ExtendableFrame); while a tab catches up, the other tabs are not disturbed (the
// alternative, restarting the shared stream from the lowest seq, would
// cost every tab the live-only events of the restart).
//
// A Resync (the stream fell behind) is forwarded to the tabs of the stream
// that got it, which then subscribes again after its last delivered seq.
// While a stream is broken its tabs get {"type":"disconnected"} once, then
// {"type":"reconnected"} once rawd answers again and the stream is open;
// NOT_FOUND closes its tabs with 4404.
//
// After a turn_started, turn_ended or compaction_started frame the writer
// may have changed: the feed asks rawd (GetSession) on a thread of its own,
// once for every tab that got such a frame, and tells each its `writer_is`
// (the tab keeps its own lease state); so does a reconnection, since a
// restarted rawd holds no lease and a tab's lease ended with the old one.
// Triggers that come while a check is
// running are answered by one more check after it, so every trigger is
// followed by a check that started after it, and the streams never wait for
// the daemon call.
//
// Ownership and threads: a Membership keeps its tab in the feed and the
// feed alive; the feed's stream stops when the last membership goes (the
// feed's destructor joins it and the writer-check thread). Frames reach a
// tab's connection under the feed's lock, so the two streams of a
// catching-up tab never interleave. `writer_is` runs on the writer-check
// thread outside the feed's lock; it never runs once the tab's Membership is
// destroyed. Join and the destructor of a
// Membership are thread-safe; a Membership must not be destroyed from its
// own tab's callback.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clients/dashboard/resuming_stream.h"
#include "clients/lib/raw_client.h"
#include "clients/web/local_server.h"

namespace raw::dashboard {

// What the feed needs of one tab.
struct FeedTab {
  std::shared_ptr<web::WebSocketConnection> connection;
  // The session's writer as GetSession names it ("" when none), after an
  // event that may have changed it.
  std::function<void(const std::string& writer)> writer_is;
};

class SessionFeed : public std::enable_shared_from_this<SessionFeed> {
 private:
  struct Member;

 public:
  // One tab's place in the feed; destroying it takes the tab out.
  class Membership {
   public:
    ~Membership();
    Membership(const Membership&) = delete;
    Membership& operator=(const Membership&) = delete;

   private:
    friend class SessionFeed;
    Membership(std::shared_ptr<SessionFeed> feed, std::shared_ptr<Member> member);
    const std::shared_ptr<SessionFeed> feed_;
    const std::shared_ptr<Member> member_;
  };

  SessionFeed(std::shared_ptr<client::RawClient> client, std::string session_id);
  ~SessionFeed();  // stops the shared stream
  SessionFeed(const SessionFeed&) = delete;
  SessionFeed& operator=(const SessionFeed&) = delete;

  // Adds `tab`, which wants the events after `after_seq`; the first tab
  // starts the shared stream. REQUIRES: the feed is owned by a shared_ptr.
  std::unique_ptr<Membership> Join(uint64_t after_seq, FeedTab tab);

  // True once the session was found missing: the feed delivers no more,
  // and a new tab needs a new feed.
  bool ended();
  // The daemon streams the feed has open: its own and the catch-ups
  // running; and a wait until there are `n` of them, false after `timeout`
  // (for tests).
  int open_streams();
  bool AwaitOpenStreams(int n, absl::Duration timeout);
  // The GetSession calls made for writer checks so far (for tests).
  int writer_checks();
  // A wait until the shared stream has failed `n` attempts to open (while
  // rawd is away), false after `timeout` (for tests).
  bool AwaitFailedAttempts(int n, absl::Duration timeout);

 private:
  // What the tabs are sent for one event: its frame, or for a text or
  // reasoning delta the event itself, sent as an extendable frame.
  struct EventOut {
    std::string frame;
    std::shared_ptr<const v1::Event> delta;
  };
  static EventOut ForEvent(const v1::Event& event);
  static bool ChangesWriter(const v1::Event& event);

  void Leave(const std::shared_ptr<Member>& member);
  int OpenStreamsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The shared stream's callbacks.
  client::EventHandler::Next OnFeedEvent(const v1::Event& event);
  void OnFeedDisconnected(const std::string& why);
  void OnFeedReconnected();
  void OnFeedNotFound(const std::string& why);
  // A catch-up stream's callbacks.
  client::EventHandler::Next OnCatchUpEvent(Member& member, const v1::Event& event);
  void OnCatchUpDisconnected(Member& member, const std::string& why);
  void OnCatchUpReconnected(Member& member);
  void OnCatchUpNotFound(Member& member, const std::string& why);

  // Moves a catching-up tab onto the feed and tells it the feed's
  // connection state if that differs from what it was told last.
  void JoinFeedLocked(Member& member) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendLocked(Member& member, std::string text) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendEventLocked(Member& member, const EventOut& out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues a writer check for `members` (starting the thread at first).
  void RequestWriterCheckLocked(std::vector<std::shared_ptr<Member>> members)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CheckWriters();

  const std::shared_ptr<client::RawClient> client_;
  const std::string session_id_;

  absl::Mutex mu_;
  std::vector<std::shared_ptr<Member>> members_ ABSL_GUARDED_BY(mu_);
  uint64_t position_ ABSL_GUARDED_BY(mu_) = 0;  // F: the last seq the feed delivered
  std::optional<std::string> broken_ ABSL_GUARDED_BY(mu_);  // why, while the stream is broken
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  // Started by the first Join; stopped by the destructor.
  std::unique_ptr<ResumingStream> stream_ ABSL_GUARDED_BY(mu_);
  // The tabs a writer check is owed to; the thread that makes the checks
  // (started by the first trigger) and whether it must stop.
  std::vector<std::shared_ptr<Member>> check_for_ ABSL_GUARDED_BY(mu_);
  std::thread checker_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int writer_checks_ ABSL_GUARDED_BY(mu_) = 0;
  int failed_attempts_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::dashboard
