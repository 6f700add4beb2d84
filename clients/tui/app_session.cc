// TuiApp: the daemon connection, the open session, its history and the
// write lease.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"
#include "clients/tui/footer.h"
#include "common/version.h"

namespace raw::tui {
namespace {

constexpr int kHistoryPage = 200;

std::vector<v1::Event> Oldest(const v1::GetHistoryResponse& page) {
  // BACKWARD pages come newest first.
  std::vector<v1::Event> events(page.events().begin(), page.events().end());
  std::reverse(events.begin(), events.end());
  return events;
}

}  // namespace

bool TuiApp::CanWrite() const {
  return connected_ && lease_.state() == client::SessionLease::State::kHeld;
}

void TuiApp::AddError(const std::string& what, const absl::Status& status) {
  transcript_.AddInfoText(absl::StrCat(what, ": ", status.message()), Level::kError);
}

void TuiApp::Fail(const absl::Status& status) {
  exit_message_ = std::string(status.message());
  exit_.status = status;
  quit_ = true;
}

void TuiApp::StartConnect() {
  if (quit_) return;  // leaving: never start a daemon on the way out
  worker_.Run([this, options = options_.connect] {
    auto client = std::make_shared<absl::StatusOr<client::RawClient>>(client::Connect(options));
    ui_.Post([this, client] { OnConnected(std::move(*client)); });
  });
}

void TuiApp::OnConnected(absl::StatusOr<client::RawClient> client) {
  if (!client.ok()) {
    if (!reconnecting_) {
      Fail(client.status());
      return;
    }
    ++reconnect_attempts_;
    reconnect_at_ = absl::Now() + absl::Seconds(std::min(5, reconnect_attempts_));
    SetStatus(absl::StrCat("Cannot reach the daemon: ", client.status().message()),
              absl::Seconds(std::min(5, reconnect_attempts_)));
    return;
  }
  client_ = std::make_shared<client::RawClient>(std::move(*client));
  connected_ = true;
  LoadAgents(/*pick=*/false);  // for completing /agent NAME
  if (!reconnecting_) {
    OpenInitial();
    return;
  }
  reconnecting_ = false;
  reconnect_attempts_ = 0;
  status_.clear();
  const v1::GetDaemonInfoResponse& info = client_->daemon_info();
  transcript_.AddInfoText(absl::StrCat("Reconnected to the daemon (pid ", info.pid(), ")",
                                       client_->started_daemon() ? ", which was started again" : "",
                                       "; continuing from event ", transcript_.last_seq(), "."));
  if (session_.id().empty()) return;
  // Resubscribe from the last event seen, then take the lease back.
  StartSubscription(transcript_.last_seq());
  lease_.Acquire(client_, session_.id());
  check_turn_ = true;
  RefreshSession();
}

void TuiApp::OpenInitial() {
  if (!options_.session_id.empty()) {
    LoadSession(options_.session_id);
  } else if (options_.pick_session) {
    ShowPicker();
  } else {
    CreateSession(options_.agent, options_.cwd);
  }
}

void TuiApp::CreateSession(const std::string& agent, const std::string& cwd) {
  v1::CreateSessionRequest request;
  request.set_agent(agent);
  request.set_cwd(cwd);
  worker_.Run([this, client = client_, request] {
    auto response = client->CreateSession(request);
    ui_.Post([this, response] {
      if (!response.ok()) {
        if (session_.id().empty()) {
          Fail(absl::Status(response.status().code(),
                            absl::StrCat("cannot create a session: ", response.status().message())));
        } else {
          AddError("Cannot create a session", response.status());
        }
        return;
      }
      OpenSession(response->session(), /*created=*/true);
    });
  });
}

void TuiApp::LoadSession(const std::string& id) {
  v1::GetSessionRequest request;
  request.set_session_id(id);
  worker_.Run([this, client = client_, request] {
    auto response = client->GetSession(request);
    ui_.Post([this, response] {
      if (!response.ok()) {
        if (session_.id().empty()) {
          Fail(response.status());
        } else {
          AddError("Cannot open the session", response.status());
        }
        return;
      }
      OpenSession(response->session(), /*created=*/false);
    });
  });
}

void TuiApp::OpenSession(const v1::Session& session, bool created) {
  subscription_.reset();
  lease_.Release();
  lease_.set_holder("");
  picker_.Close();
  agent_picker_.Close();
  approval_.Hide();
  transcript_.Clear();
  view_.ScrollToBottom();
  session_ = session;
  cache_ratio_.reset();
  older_cursor_.clear();
  history_done_ = true;
  turn_started_ms_ = 0;
  editor_.SetHistory({});

  Style dim{Role::kDim};
  Lines header;
  StyledLine title;
  title.Add("raw ", Style{Role::kAccent, kAttrBold});
  title.Add(kVersion, dim);
  title.Add(absl::StrCat(created ? "  new session " : "  session ", session.id()), dim);
  header.push_back(std::move(title));
  header.emplace_back(absl::StrCat("agent ", session.agent(), ", model ", session.model(),
                                   session.model_id().empty() ? "" : " (" + session.model_id() + ")",
                                   ", in ", session.cwd()),
                      dim);
  if (created) {
    header.emplace_back("Enter sends, Ctrl-J adds a line, Esc interrupts, /help lists keys and commands.",
                        dim);
    transcript_.AddInfo(std::move(header));
    StartSubscription(session.last_seq());
    lease_.Acquire(client_, session_.id());
    RefreshSession();
    return;
  }
  v1::GetHistoryRequest request;
  request.set_session_id(session.id());
  request.set_limit(kHistoryPage);
  request.set_direction(v1::HISTORY_DIRECTION_BACKWARD);
  history_loading_ = true;
  worker_.Run([this, client = client_, request, header] {
    auto page = client->GetHistory(request);
    ui_.Post([this, page, header, id = request.session_id()] {
      if (id != session_.id()) return;  // another session was opened meanwhile
      history_loading_ = false;
      if (!page.ok()) {
        AddError("Cannot load the history", page.status());
        StartSubscription(session_.last_seq());
        lease_.Acquire(client_, session_.id());
        return;
      }
      OnInitialHistory(*page);
      transcript_.AddInfo(header);
    });
  });
}

void TuiApp::OnInitialHistory(const v1::GetHistoryResponse& page) {
  transcript_.PrependHistory(Oldest(page));
  older_cursor_ = page.next_cursor();
  history_done_ = older_cursor_.empty();
  editor_.SetHistory(transcript_.UserPrompts());
  if (transcript_.turn_running()) turn_started_ms_ = absl::ToUnixMillis(absl::Now());
  if (const auto& pending = transcript_.pending_approval()) approval_.Show(*pending);
  uint64_t after = std::max<uint64_t>(transcript_.last_seq(), page.events_size() == 0 ? session_.last_seq() : 0);
  StartSubscription(after);
  lease_.Acquire(client_, session_.id());
  RefreshSession();
}

void TuiApp::LoadOlderHistory() {
  v1::GetHistoryRequest request;
  request.set_session_id(session_.id());
  request.set_cursor(older_cursor_);
  request.set_limit(kHistoryPage);
  request.set_direction(v1::HISTORY_DIRECTION_BACKWARD);
  history_loading_ = true;
  worker_.Run([this, client = client_, request] {
    auto page = client->GetHistory(request);
    ui_.Post([this, page, id = request.session_id()] {
      if (id != session_.id()) return;
      history_loading_ = false;
      if (!page.ok()) {
        history_done_ = true;
        AddError("Cannot load older history", page.status());
        return;
      }
      transcript_.PrependHistory(Oldest(*page));
      older_cursor_ = page->next_cursor();
      history_done_ = older_cursor_.empty();
      std::vector<std::string> prompts = transcript_.UserPrompts();
      editor_.SetHistory(prompts);
    });
  });
}

void TuiApp::StartSubscription(uint64_t after_seq) {
  subscription_.reset();
  subscription_ = std::make_unique<Subscription>(
      client_, ui_, session_.id(), after_seq, [this](const v1::Event& e) { OnEvent(e); },
      [this](const absl::Status& s) { OnStreamEnd(s); });
}

void TuiApp::OnEvent(const v1::Event& event) {
  if (event.has_resync()) {
    // Fell behind: continue from the last event delivered.
    StartSubscription(std::max(transcript_.last_seq(), event.resync().last_delivered_seq()));
    return;
  }
  bool was_running = transcript_.turn_running();
  transcript_.Apply(event);
  if (!was_running && transcript_.turn_running()) turn_started_ms_ = event.time_unix_ms();
  switch (event.payload_case()) {
    case v1::Event::kTurnStarted:
      editor_.AddHistory(event.turn_started().user_text());
      view_.ScrollToBottom();
      break;
    case v1::Event::kUsage: {
      const v1::Usage& add = event.usage().usage();
      v1::Usage* total = session_.mutable_usage();
      if (add.has_input_tokens()) total->set_input_tokens(total->input_tokens() + add.input_tokens());
      if (add.has_output_tokens()) total->set_output_tokens(total->output_tokens() + add.output_tokens());
      if (add.has_cache_read_tokens()) total->set_cache_read_tokens(total->cache_read_tokens() + add.cache_read_tokens());
      session_.set_requests(session_.requests() + 1);
      break;
    }
    case v1::Event::kContextEstimate:
      *session_.mutable_context() = event.context_estimate();
      break;
    case v1::Event::kTurnEnded:
    case v1::Event::kCompactionEnded:
    case v1::Event::kContextCleared:
      RefreshSession();
      break;
    default:
      break;
  }
  const auto& pending = transcript_.pending_approval();
  if (pending && pending->request_id() != answered_request_) {
    approval_.Show(*pending);
  } else {
    approval_.Hide();
  }
}

void TuiApp::OnStreamEnd(const absl::Status& status) {
  if (absl::IsNotFound(status)) {
    // The session is gone (deleted or expired): nothing to reconnect to.
    subscription_.reset();
    lease_.Release();
    AddError("The event stream ended", status);
    return;
  }
  OnDisconnected(status.ok() ? "the daemon closed the event stream" : std::string(status.message()));
}

void TuiApp::OnDisconnected(const std::string& why) {
  if (!connected_ || quit_) return;
  connected_ = false;
  reconnecting_ = true;
  subscription_.reset();
  lease_.Release();
  transcript_.AddInfoText(absl::StrCat("Lost the connection to the daemon (", why, "); reconnecting", glyphs_.ellipsis),
                          Level::kWarning);
  StartConnect();
}

void TuiApp::RefreshSession() {
  if (session_.id().empty() || !client_) return;
  worker_.Run([this, client = client_, id = session_.id()] {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    auto session = client->GetSession(get);
    v1::GetStatsRequest stats_request;
    stats_request.set_session_id(id);
    auto stats = client->GetStats(stats_request);
    ui_.Post([this, session, stats, id] {
      if (id != session_.id()) return;
      if (session.ok()) {
        session_ = session->session();
        if (Following()) {
          const std::string& writer = session_.has_writer_holder()
                                          ? session_.writer_holder().client_name()
                                          : session_.writer();
          if (!writer.empty()) lease_.set_holder(writer);
        }
        if (check_turn_ && session_.turn_state() == v1::TURN_STATE_IDLE &&
            transcript_.turn_running()) {
          // The daemon restarted during the turn and has no record of it
          // running any more.
          transcript_.AbandonOpenTurn();
          approval_.Hide();
        }
        check_turn_ = false;
      }
      if (stats.ok()) {
        if (stats->has_cache_read_ratio()) {
          cache_ratio_ = stats->cache_read_ratio();
        } else {
          cache_ratio_.reset();
        }
        if (stats->has_context()) *session_.mutable_context() = stats->context();
      }
    });
  });
}

}  // namespace raw::tui
