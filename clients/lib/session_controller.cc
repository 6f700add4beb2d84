// SessionController: the connection, the open session, its history and
// events, and the lease's changes. Writes and reads are in
// session_controller_calls.cc.
#include "clients/lib/session_controller.h"

#include <algorithm>
#include <utility>

namespace raw::client {

SessionController::SessionController(Options options, Executor post, Listener& listener,
                                     Executor deliver_events)
    : options_(std::move(options)),
      post_(std::move(post)),
      deliver_events_(std::move(deliver_events)),
      listener_(listener),
      alive_(std::make_shared<bool>(true)),
      worker_(post_),
      interrupt_worker_(post_),
      lease_(
          options_.identity, options_.handover,
          [this](std::function<void()> task) { Post(std::move(task)); },
          [this](std::function<void()> task) { worker_.Run(std::move(task)); }, *this) {}

SessionController::~SessionController() {
  *alive_ = false;
  // The streams end (the lease is released) before the worker stops.
  lease_.Release();
  stream_.reset();
  // The call in flight returns at once; the worker does not wait for it.
  if (client_) client_->CancelCalls();
}

void SessionController::Post(std::function<void()> fn) {
  post_([alive = alive_, fn = std::move(fn)] {
    if (*alive) fn();
  });
}

// --- connection ---

void SessionController::Start() {
  if (started_) return;
  started_ = true;
  Connect();
}

void SessionController::Connect() {
  worker_.Run([this, post = worker_.poster(), options = options_.connect] {
    auto client = std::make_shared<absl::StatusOr<RawClient>>(client::Connect(options));
    post([this, client] { OnConnectResult(std::move(*client)); });
  });
}

void SessionController::OnConnectResult(absl::StatusOr<RawClient> client) {
  if (!client.ok()) {
    if (!reconnecting_) {
      listener_.OnConnectFailed(client.status());
      return;
    }
    ++reconnect_attempts_;
    reconnect_at_ = absl::Now() + absl::Seconds(std::min(5, reconnect_attempts_));
    listener_.OnReconnectFailed(client.status());
    return;
  }
  client_ = std::make_shared<RawClient>(std::move(*client));
  connected_ = true;
  ListAgents([](const absl::StatusOr<v1::ListAgentsResponse>&) {});  // for agents()
  if (!reconnecting_) {
    listener_.OnConnected();
    return;
  }
  reconnecting_ = false;
  reconnect_attempts_ = 0;
  listener_.OnReconnected(client_->daemon_info(), client_->started_daemon(), activity_.last_seq());
  if (!has_session()) return;
  // Resubscribe after the last event delivered, take the lease back and
  // check that the turn seen running still runs.
  check_turn_ = true;
  Follow(activity_.last_seq());
}

void SessionController::Tick(absl::Time now) {
  if (reconnect_at_ && now >= *reconnect_at_) {
    reconnect_at_.reset();
    Connect();
  }
  // A start or compaction sent and not answered yet counts as running: the
  // daemon answers it once the turn has started, and until then prepares
  // it (MCP servers starting, up to their start timeout) without an event
  // to say so. A handover then waits for its end, as for a running turn,
  // so the user's own prompt is never handed to another client unstarted.
  const bool working = activity_.busy() || !starts_pending_.empty() || !held_starts_.empty();
  lease_.Tick(working, now);
}

std::optional<absl::Time> SessionController::NextDeadline() const {
  std::optional<absl::Time> next = reconnect_at_;
  if (std::optional<absl::Time> handover = lease_.gate().NextDeadline()) {
    if (!next || *handover < *next) next = handover;
  }
  return next;
}

void SessionController::OnStreamEnd(const absl::Status& status) {
  if (absl::IsNotFound(status)) {
    // The session is gone: nothing to reconnect to.
    stream_.reset();
    lease_.Release();
    listener_.OnSessionGone(status);
    return;
  }
  OnDisconnected(status.ok() ? "the daemon closed the event stream" : std::string(status.message()));
}

void SessionController::OnDisconnected(const std::string& why) {
  if (!connected_) return;
  connected_ = false;
  reconnecting_ = true;
  stream_.reset();
  // The lease stream may have seen the daemon go first.
  rejoin_following_ = lease_.following() || lease_.lost_following();
  lease_.Release();
  listener_.OnDisconnected(why);
  Connect();
}

// --- the session ---

void SessionController::CreateSession(const std::string& agent, const std::string& cwd) {
  if (!client_) return;
  v1::CreateSessionRequest request;
  request.set_agent(agent);
  request.set_cwd(cwd);
  Call<v1::CreateSessionResponse>(
      [request](RawClient& c) { return c.CreateSession(request); },
      [this](const absl::StatusOr<v1::CreateSessionResponse>& response) {
        if (!response.ok()) {
          listener_.OnSessionOpenFailed(response.status(), /*creating=*/true);
          return;
        }
        Opened(response->session(), /*created=*/true);
      });
}

void SessionController::ChangeAgent(const std::string& agent, const std::string& fallback_cwd) {
  CreateSession(agent, session_.cwd().empty() ? fallback_cwd : session_.cwd());
}

void SessionController::OpenSession(const std::string& session_id) {
  if (!client_) return;
  v1::GetSessionRequest request;
  request.set_session_id(session_id);
  // The first screen needs the session's row and newest history, not its
  // context estimate, which reads a long session's whole model context: the
  // refresh that follows the first history page brings it (Follow).
  request.set_without_context(true);
  Call<v1::GetSessionResponse>(
      [request](RawClient& c) { return c.GetSession(request); },
      [this](const absl::StatusOr<v1::GetSessionResponse>& response) {
        if (!response.ok()) {
          listener_.OnSessionOpenFailed(response.status(), /*creating=*/false);
          return;
        }
        Opened(response->session(), /*created=*/false);
      });
}

void SessionController::Opened(const v1::Session& session, bool created) {
  stream_.reset();
  lease_.Release();
  lease_.set_holder("");
  rejoin_following_ = false;
  session_ = session;
  activity_.Clear();
  cache_ratio_.reset();
  answered_request_.clear();
  older_cursor_.clear();
  history_done_ = true;
  history_loading_ = false;
  listener_.OnSessionOpened(session_, created);
  if (created) {
    Follow(session_.last_seq());
    return;
  }
  // The history may end with a turn or compaction that a killed daemon left
  // open; what the daemon says once the history is read decides.
  check_turn_ = true;
  v1::GetHistoryRequest request;
  request.set_session_id(session_.id());
  request.set_limit(options_.history_page);
  request.set_direction(v1::HISTORY_DIRECTION_BACKWARD);
  history_loading_ = true;
  Call<v1::GetHistoryResponse>(
      [request](RawClient& c) { return c.GetHistory(request); },
      [this, id = session_.id()](const absl::StatusOr<v1::GetHistoryResponse>& page) {
        if (id != session_.id()) return;  // another session was opened meanwhile
        history_loading_ = false;
        if (!page.ok()) {
          OnInitialHistory(page.status(), {});
          return;
        }
        older_cursor_ = page->next_cursor();
        history_done_ = older_cursor_.empty();
        // BACKWARD pages come newest first.
        OnInitialHistory(absl::OkStatus(), {page->events().rbegin(), page->events().rend()});
      });
}

void SessionController::OnInitialHistory(const absl::Status& status,
                                         std::vector<v1::Event> events) {
  for (const v1::Event& event : events) activity_.Apply(event);
  listener_.OnHistory(status, events, /*initial=*/true);
  if (activity_.pending_approval()) listener_.OnApprovalChanged();
  // With no history read, live events start after the session's last one.
  Follow(std::max(activity_.last_seq(), events.empty() ? session_.last_seq() : 0));
}

void SessionController::LoadOlderHistory() {
  if (!client_ || !has_session() || history_done_ || history_loading_) return;
  v1::GetHistoryRequest request;
  request.set_session_id(session_.id());
  request.set_cursor(older_cursor_);
  request.set_limit(options_.history_page);
  request.set_direction(v1::HISTORY_DIRECTION_BACKWARD);
  history_loading_ = true;
  Call<v1::GetHistoryResponse>(
      [request](RawClient& c) { return c.GetHistory(request); },
      [this, id = session_.id()](const absl::StatusOr<v1::GetHistoryResponse>& page) {
        if (id != session_.id()) return;
        history_loading_ = false;
        if (!page.ok()) {
          history_done_ = true;
          listener_.OnHistory(page.status(), {}, /*initial=*/false);
          return;
        }
        older_cursor_ = page->next_cursor();
        history_done_ = older_cursor_.empty();
        listener_.OnHistory(absl::OkStatus(), {page->events().rbegin(), page->events().rend()},
                            /*initial=*/false);
      });
}

void SessionController::Follow(uint64_t after_seq) {
  // A reconnection resumes from here even before the first event arrives.
  activity_.SeenUpTo(after_seq);
  // Events first, so that none is missed once this client writes.
  Subscribe(after_seq);
  // Back after the daemon went away: a follower follows again, and leaves
  // the lease to the client that wrote before (SessionLease::Acquire).
  lease_.Acquire(client_, session_.id(), std::exchange(rejoin_following_, false));
  RefreshSession();
}

void SessionController::Subscribe(uint64_t after_seq) {
  // The tasks the stream hands over run only while the controller lives:
  // one may still be queued when it goes.
  auto guarded = [alive = alive_](const Executor& executor) -> EventStream::Executor {
    return [alive, executor](std::function<void()> task) {
      executor([alive, task = std::move(task)] {
        if (*alive) task();
      });
    };
  };
  stream_ = std::make_unique<EventStream>(
      client_, guarded(post_), session_.id(), after_seq,
      [this](const v1::Event& e) { OnStreamEvent(e); },
      [this](const absl::Status& s) { OnStreamEnd(s); },
      deliver_events_ ? guarded(deliver_events_) : nullptr);
}

void SessionController::OnStreamEvent(const v1::Event& event) {
  if (event.has_resync()) {
    // Fell behind: continue after the last event delivered.
    Subscribe(std::max(activity_.last_seq(), event.resync().last_delivered_seq()));
    return;
  }
  std::optional<v1::ApprovalRequested> before = pending_approval();
  if (!activity_.Apply(event)) return;  // a replayed event, delivered before
  bool updated = false;
  switch (event.payload_case()) {
    case v1::Event::kUsage:
      AddUsage(event.usage().usage());
      updated = true;
      break;
    case v1::Event::kContextEstimate:
      *session_.mutable_context() = event.context_estimate();
      updated = true;
      break;
    case v1::Event::kTurnEnded:
    case v1::Event::kCompactionEnded:
    case v1::Event::kContextCleared:
      RefreshSession();
      break;
    case v1::Event::kApprovalResolved:
      if (event.approval_resolved().request_id() == answered_request_) answered_request_.clear();
      break;
    default:
      break;
  }
  listener_.OnEvent(event);
  if (updated) listener_.OnSessionUpdated();
  std::optional<v1::ApprovalRequested> after = pending_approval();
  if (before.has_value() != after.has_value() ||
      (before && before->request_id() != after->request_id())) {
    listener_.OnApprovalChanged();
  }
}

void SessionController::AddUsage(const v1::Usage& add) {
  v1::Usage* total = session_.mutable_usage();
  if (add.has_input_tokens()) total->set_input_tokens(total->input_tokens() + add.input_tokens());
  if (add.has_output_tokens()) total->set_output_tokens(total->output_tokens() + add.output_tokens());
  if (add.has_cache_read_tokens()) {
    total->set_cache_read_tokens(total->cache_read_tokens() + add.cache_read_tokens());
  }
  session_.set_requests(session_.requests() + 1);
}

std::optional<v1::ApprovalRequested> SessionController::pending_approval() const {
  const std::optional<v1::ApprovalRequested>& pending = activity_.pending_approval();
  if (!pending || pending->request_id() == answered_request_) return std::nullopt;
  return pending;
}

void SessionController::RefreshSession() {
  if (!has_session() || !client_) return;
  struct Refreshed {
    absl::StatusOr<v1::GetSessionResponse> session;
    absl::StatusOr<v1::GetStatsResponse> stats;
  };
  worker_.Run([this, post = worker_.poster(), client = client_, id = session_.id()] {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    v1::GetStatsRequest stats;
    stats.set_session_id(id);
    auto result = std::make_shared<Refreshed>(Refreshed{client->GetSession(get), client->GetStats(stats)});
    post([this, result, id] {
      if (id != session_.id()) return;
      if (result->session.ok()) {
        session_ = result->session->session();
        if (following()) {
          const std::string& writer = session_.has_writer_holder()
                                          ? session_.writer_holder().client_name()
                                          : session_.writer();
          if (!writer.empty()) lease_.set_holder(writer);
        }
        if (check_turn_ && session_.turn_state() == v1::TURN_STATE_IDLE && activity_.busy() &&
            activity_.last_seq() <= session_.last_seq()) {
          // The daemon restarted during the turn or compaction and has no
          // record of it running any more (and nothing newer than what it
          // answered about was seen since).
          activity_.AbandonTurn();
          answered_request_.clear();
          listener_.OnTurnAbandoned();
        }
        check_turn_ = false;
      }
      if (result->stats.ok()) {
        if (result->stats->has_cache_read_ratio()) {
          cache_ratio_ = result->stats->cache_read_ratio();
        } else {
          cache_ratio_.reset();
        }
        if (result->stats->has_context()) *session_.mutable_context() = result->stats->context();
      }
      listener_.OnSessionUpdated();
    });
  });
}

// --- the lease ---

void SessionController::RequestHandover() {
  if (lease_.state() != SessionLease::State::kFollowing || !connected_) return;
  lease_.RequestHandover();
}

void SessionController::OnLeaseChange(SessionLease::Change change, SessionLease::State before) {
  if (change == SessionLease::Change::kFollowing) {
    if (lease_.holder().empty()) lease_.set_holder(session_.writer());
    RefreshSession();  // names the writer
  }
  listener_.OnLeaseChange(change, before);
}

}  // namespace raw::client
