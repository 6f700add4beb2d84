#include "clients/dashboard/session_feed.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/dashboard/proto_json.h"
#include "common/json.h"

namespace raw::dashboard {

// One tab. The fields without an annotation are guarded by the feed's mu_
// (which a nested type cannot name).
struct SessionFeed::Member {
  explicit Member(FeedTab t) : tab(std::move(t)) {}

  const FeedTab tab;
  uint64_t delivered = 0;    // the last seq sent to the tab (at first its after_seq)
  bool on_feed = false;      // false while it catches up
  bool catching_up = false;  // its catch-up stream runs
  bool left = false;         // out of the feed: nothing more is sent
  bool told_broken = false;  // got "disconnected", not yet "reconnected"
  std::unique_ptr<ResumingStream> catch_up;  // stopped (joined) by Leave

  // Held while writer_is runs; Leave sets `gone` under it.
  absl::Mutex call_mu;
  bool gone ABSL_GUARDED_BY(call_mu) = false;
};

SessionFeed::Membership::Membership(std::shared_ptr<SessionFeed> feed,
                                    std::shared_ptr<Member> member)
    : feed_(std::move(feed)), member_(std::move(member)) {}

SessionFeed::Membership::~Membership() { feed_->Leave(member_); }

SessionFeed::SessionFeed(std::shared_ptr<client::RawClient> client, std::string session_id)
    : client_(std::move(client)), session_id_(std::move(session_id)) {}

SessionFeed::~SessionFeed() {
  std::unique_ptr<ResumingStream> stream;
  {
    absl::MutexLock lock(&mu_);
    stream = std::move(stream_);
  }
  stream.reset();  // joins its thread, whose callbacks take mu_
  std::thread checker;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    checker = std::move(checker_);
  }
  if (checker.joinable()) checker.join();
}

std::unique_ptr<SessionFeed::Membership> SessionFeed::Join(uint64_t after_seq, FeedTab tab) {
  auto member = std::make_shared<Member>(std::move(tab));
  absl::MutexLock lock(&mu_);
  member->delivered = after_seq;
  if (stream_ == nullptr) {
    position_ = after_seq;
    ResumingStream::Callbacks callbacks;
    callbacks.event = [this](const v1::Event& event) { return OnFeedEvent(event); };
    callbacks.disconnected = [this](const std::string& why) { OnFeedDisconnected(why); };
    callbacks.reconnected = [this] { OnFeedReconnected(); };
    callbacks.not_found = [this](const std::string& why) { OnFeedNotFound(why); };
    callbacks.attempt_failed = [this] {
      absl::MutexLock lock(&mu_);
      ++failed_attempts_;
    };
    stream_ =
        std::make_unique<ResumingStream>(client_, session_id_, after_seq, std::move(callbacks));
  }
  if (after_seq >= position_) {
    JoinFeedLocked(*member);
  } else {
    Member* m = member.get();
    ResumingStream::Callbacks callbacks;
    callbacks.event = [this, m](const v1::Event& event) { return OnCatchUpEvent(*m, event); };
    callbacks.disconnected = [this, m](const std::string& why) { OnCatchUpDisconnected(*m, why); };
    callbacks.reconnected = [this, m] { OnCatchUpReconnected(*m); };
    callbacks.not_found = [this, m](const std::string& why) { OnCatchUpNotFound(*m, why); };
    member->catching_up = true;
    member->catch_up =
        std::make_unique<ResumingStream>(client_, session_id_, after_seq, std::move(callbacks));
  }
  members_.push_back(member);
  return std::unique_ptr<Membership>(new Membership(shared_from_this(), std::move(member)));
}

bool SessionFeed::ended() {
  absl::MutexLock lock(&mu_);
  return ended_;
}

int SessionFeed::open_streams() {
  absl::MutexLock lock(&mu_);
  return OpenStreamsLocked();
}

bool SessionFeed::AwaitOpenStreams(int n, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto reached = [this, n]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return OpenStreamsLocked() == n; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

int SessionFeed::writer_checks() {
  absl::MutexLock lock(&mu_);
  return writer_checks_;
}

bool SessionFeed::AwaitFailedAttempts(int n, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto reached = [this, n]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return failed_attempts_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

int SessionFeed::OpenStreamsLocked() {
  int open = stream_ != nullptr && !ended_ ? 1 : 0;
  for (const auto& m : members_) open += m->catching_up ? 1 : 0;
  return open;
}

void SessionFeed::Leave(const std::shared_ptr<Member>& member) {
  std::unique_ptr<ResumingStream> catch_up;
  {
    absl::MutexLock lock(&mu_);
    member->left = true;
    member->catching_up = false;
    members_.erase(std::remove(members_.begin(), members_.end(), member), members_.end());
    catch_up = std::move(member->catch_up);
  }
  {
    // Waits out a writer_is call in progress.
    absl::MutexLock lock(&member->call_mu);
    member->gone = true;
  }
  catch_up.reset();  // joins its thread
}

SessionFeed::EventOut SessionFeed::ForEvent(const v1::Event& event) {
  EventOut out;
  if (event.has_text_delta() || event.has_reasoning_delta()) {
    out.delta = std::make_shared<const v1::Event>(event);
  } else {
    // The event's JSON is printed once and spliced into the frame.
    out.frame = absl::StrCat(R"({"type":"event","event":)", EventJsonText(event), "}");
  }
  return out;
}

bool SessionFeed::ChangesWriter(const v1::Event& event) {
  return event.has_turn_started() || event.has_turn_ended() || event.has_compaction_started();
}

client::EventHandler::Next SessionFeed::OnFeedEvent(const v1::Event& event) {
  const EventOut out = ForEvent(event);
  const uint64_t seq = event.seq();
  std::vector<std::shared_ptr<Member>> changed;
  absl::MutexLock lock(&mu_);
  // Catching-up tabs that reached the feed's position move onto it before
  // this event, which is after that position.
  for (const auto& m : members_) {
    if (m->catching_up && m->delivered >= position_) JoinFeedLocked(*m);
  }
  for (const auto& m : members_) {
    if (!m->on_feed || (seq > 0 && seq <= m->delivered)) continue;
    SendEventLocked(*m, out);
    if (seq > 0) m->delivered = seq;
    if (ChangesWriter(event)) changed.push_back(m);
  }
  position_ = std::max(position_, seq);
  if (!changed.empty()) RequestWriterCheckLocked(std::move(changed));
  return client::EventHandler::Next::kContinue;
}

void SessionFeed::OnFeedDisconnected(const std::string& why) {
  absl::MutexLock lock(&mu_);
  broken_ = why;
  for (const auto& m : members_) {
    if (!m->on_feed || m->told_broken) continue;
    m->told_broken = true;
    SendLocked(*m, DumpJson(Json{{"type", "disconnected"}, {"why", why}}));
  }
}

void SessionFeed::OnFeedReconnected() {
  absl::MutexLock lock(&mu_);
  broken_.reset();
  std::vector<std::shared_ptr<Member>> on_feed;
  for (const auto& m : members_) {
    if (!m->on_feed) continue;
    on_feed.push_back(m);
    if (!m->told_broken) continue;
    m->told_broken = false;
    SendLocked(*m, DumpJson(Json{{"type", "reconnected"}}));
  }
  // A restarted rawd holds none of the old leases: each tab learns who
  // writes now (its own lease state is the tab's, live_session.cc).
  if (!on_feed.empty()) RequestWriterCheckLocked(std::move(on_feed));
}

void SessionFeed::OnFeedNotFound(const std::string& why) {
  absl::MutexLock lock(&mu_);
  ended_ = true;
  for (const auto& m : members_) {
    if (!m->on_feed) continue;  // a catch-up stream hears it too
    SendLocked(*m, DumpJson(Json{{"type", "disconnected"}, {"why", why}}));
    m->tab.connection->Close(4404, "session removed");
  }
}

client::EventHandler::Next SessionFeed::OnCatchUpEvent(Member& member, const v1::Event& event) {
  const EventOut out = ForEvent(event);
  const uint64_t seq = event.seq();
  bool joined = false;
  absl::MutexLock lock(&mu_);
  if (member.left || !member.catching_up) return client::EventHandler::Next::kStop;
  if (seq == 0 || seq > member.delivered) {
    SendEventLocked(member, out);
    if (seq > 0) member.delivered = seq;
    if (ChangesWriter(event)) {
      for (const auto& m : members_) {
        if (m.get() == &member) RequestWriterCheckLocked({m});
      }
    }
  }
  if (seq > 0 && member.delivered >= position_) {
    JoinFeedLocked(member);
    joined = true;
  }
  return joined ? client::EventHandler::Next::kStop : client::EventHandler::Next::kContinue;
}

void SessionFeed::OnCatchUpDisconnected(Member& member, const std::string& why) {
  absl::MutexLock lock(&mu_);
  if (!member.catching_up || member.told_broken) return;
  member.told_broken = true;
  SendLocked(member, DumpJson(Json{{"type", "disconnected"}, {"why", why}}));
}

void SessionFeed::OnCatchUpReconnected(Member& member) {
  absl::MutexLock lock(&mu_);
  if (!member.catching_up || !member.told_broken) return;
  member.told_broken = false;
  SendLocked(member, DumpJson(Json{{"type", "reconnected"}}));
  for (const auto& m : members_) {
    if (m.get() == &member) RequestWriterCheckLocked({m});
  }
}

void SessionFeed::OnCatchUpNotFound(Member& member, const std::string& why) {
  absl::MutexLock lock(&mu_);
  if (!member.catching_up) return;
  member.catching_up = false;
  SendLocked(member, DumpJson(Json{{"type", "disconnected"}, {"why", why}}));
  member.tab.connection->Close(4404, "session removed");
}

void SessionFeed::JoinFeedLocked(Member& member) {
  member.on_feed = true;
  if (member.catching_up) {
    member.catching_up = false;
    member.catch_up->Cancel();
  }
  if (broken_ && !member.told_broken) {
    member.told_broken = true;
    SendLocked(member, DumpJson(Json{{"type", "disconnected"}, {"why", *broken_}}));
  } else if (!broken_ && member.told_broken) {
    member.told_broken = false;
    SendLocked(member, DumpJson(Json{{"type", "reconnected"}}));
  }
}

void SessionFeed::SendLocked(Member& member, std::string text) {
  member.tab.connection->Send(std::move(text));
}

void SessionFeed::SendEventLocked(Member& member, const EventOut& out) {
  if (out.delta == nullptr) {
    member.tab.connection->Send(out.frame);
    return;
  }
  const v1::Event& event = *out.delta;
  web::ExtendableFrame frame;
  // Deltas of one kind within one turn join; any other frame between
  // them ends the join, so the tab sees every event in order.
  frame.kind = absl::StrCat(event.has_text_delta() ? "text:" : "reasoning:", event.turn_id());
  frame.piece = event.has_text_delta() ? event.text_delta().text() : event.reasoning_delta().text();
  frame.render = [delta = out.delta](std::string_view pieces) {
    return absl::StrCat(R"({"type":"event","event":)", DeltaJsonText(*delta, pieces), "}");
  };
  member.tab.connection->SendExtendable(std::move(frame));
}

void SessionFeed::RequestWriterCheckLocked(std::vector<std::shared_ptr<Member>> members) {
  for (auto& m : members) {
    if (std::find(check_for_.begin(), check_for_.end(), m) == check_for_.end()) {
      check_for_.push_back(std::move(m));
    }
  }
  if (!checker_.joinable() && !stopping_) checker_ = std::thread([this] { CheckWriters(); });
}

void SessionFeed::CheckWriters() {
  for (;;) {
    std::vector<std::shared_ptr<Member>> members;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_NO_THREAD_SAFETY_ANALYSIS { return stopping_ || !check_for_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      members.swap(check_for_);
      ++writer_checks_;
    }
    // One daemon call for all the tabs owed a check, whatever their number.
    v1::GetSessionRequest get;
    get.set_session_id(session_id_);
    // Only the writer is wanted: not the context estimate, which may make
    // rawd read a long session's whole model context first.
    get.set_without_context(true);
    absl::StatusOr<v1::GetSessionResponse> session = client_->GetSession(get);
    if (!session.ok()) continue;  // the stream reports a daemon that went away
    for (const auto& m : members) {
      absl::MutexLock lock(&m->call_mu);
      if (!m->gone) m->tab.writer_is(session->session().writer());
    }
  }
}

}  // namespace raw::dashboard
