// Test support for the client tests: an in-process fake of the daemon's
// gRPC service (FakeDaemon in fake_daemon.h serves it on a Unix socket).
//
// FakeRawService answers every RPC from scripted state and records the
// calls. Its event log behaves like the daemon's: Subscribe replays stored
// events with seq > after_seq and then streams new ones as they are
// appended; text deltas are live only (never replayed), so a client that
// subscribes after starting a turn misses them. StartTurn waits (bounded)
// until a subscriber is attached before it appends the turn's events, and
// records whether one was. Write leases behave as the daemon's do (see
// proto/raw/v1/raw_service.proto): AcquireLease grants a free lease, refuses
// a held one with FAILED_PRECONDITION naming the holder, or, with
// request_handover, says it waits, tells the holder, and grants once the
// holder's stream ends (or fails when the holder declines); with
// wait_for_release it says it waits and grants once the holder's stream
// ends and no handover request waits, without telling the holder. StartTurn and
// InterruptTurn are refused without the holder's lease id.
//
// Thread-safety: the service is called on gRPC's threads; tests configure
// it before the client connects and read it through the accessors, which
// lock.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/version.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "raw/v1/raw_service.grpc.pb.h"
#include "tests/clients/temp_dir.h"

namespace raw::testing {

inline v1::Event MakeEvent(const std::string& turn_id) {
  v1::Event e;
  e.set_turn_id(turn_id);
  return e;
}

class FakeRawService final : public v1::Raw::Service {
 public:
  using Script = std::function<std::vector<v1::Event>(const std::string& turn_id)>;

  FakeRawService() {
    info_.set_version("9.9.9");
    info_.set_protocol_version(kProtocolVersion);
    info_.set_pid(0);
    info_.set_config_path("/fake/config.json");
    info_.set_state_dir("/fake/state");
  }

  // --- configuration (before the client connects) ---
  void SetInfo(const v1::GetDaemonInfoResponse& info) {
    absl::MutexLock l(&mu_);
    info_ = info;
  }
  void AddSession(const v1::Session& s) {
    absl::MutexLock l(&mu_);
    sessions_.push_back(s);
  }
  // What GetSession says of the running turn of `session`.
  void SetTurnState(const std::string& session, v1::TurnState state) {
    absl::MutexLock l(&mu_);
    for (v1::Session& s : sessions_) {
      if (s.id() == session) s.set_turn_state(state);
    }
  }
  // Refuses wait_for_release as a held lease (as a daemon without it did).
  void RefuseQuietWaits() {
    absl::MutexLock l(&mu_);
    quiet_waits_ = false;
  }
  void SetListPageSize(int n) {
    absl::MutexLock l(&mu_);
    list_page_size_ = n;
  }
  // SubscribeBatched then writes the stored events it replays as one
  // message, as rawd does for a client that is behind.
  void ReplayInOneMessage() {
    absl::MutexLock l(&mu_);
    replay_in_one_message_ = true;
  }
  // Events StartTurn appends (their turn ids and seqs are filled in).
  void OnStartTurn(Script script) {
    absl::MutexLock l(&mu_);
    start_script_ = std::move(script);
  }
  // Events InterruptTurn appends.
  void OnInterrupt(Script script) {
    absl::MutexLock l(&mu_);
    interrupt_script_ = std::move(script);
  }
  // After StartTurn appended its events, every stream ends (as when the
  // daemon goes away mid-turn).
  void CloseAfterStartTurn() {
    absl::MutexLock l(&mu_);
    close_after_start_ = true;
  }
  // InterruptTurn does not answer until Close(): a daemon that is slow to
  // react.
  void HoldInterrupts() {
    absl::MutexLock l(&mu_);
    hold_interrupts_ = true;
  }
  // StartTurn waits, before it starts anything, until ReleaseStartTurns()
  // (at most 10 s): a daemon that prepares the turn slowly. With
  // `abandon_on_interrupt`, an InterruptTurn during the wait ends it, and
  // StartTurn answers CANCELLED, as rawd does for a turn interrupted before
  // it started; without, the interrupt finds nothing to interrupt.
  void HoldStartTurns(bool abandon_on_interrupt) {
    absl::MutexLock l(&mu_);
    hold_starts_ = true;
    abandon_on_interrupt_ = abandon_on_interrupt;
  }
  // As rawd does: an InterruptTurn naming a turn id that has not started
  // is remembered, and a StartTurn of that id is refused with CANCELLED.
  // Off by default: the interrupt then finds nothing to interrupt.
  void RememberEarlyInterrupts() {
    absl::MutexLock l(&mu_);
    remember_early_interrupts_ = true;
  }
  void ReleaseStartTurns() {
    absl::MutexLock l(&mu_);
    hold_starts_ = false;
  }
  void FailStartTurn(grpc::Status status) {
    absl::MutexLock l(&mu_);
    start_error_ = std::move(status);
  }
  void SetHistory(std::vector<v1::Event> events, int page_size) {
    absl::MutexLock l(&mu_);
    history_ = std::move(events);
    history_page_size_ = page_size;
  }
  void SetConfigCheck(v1::CheckConfigResponse response) {
    absl::MutexLock l(&mu_);
    check_ = std::move(response);
  }
  void SetTemplate(v1::GetConfigTemplateResponse response) {
    absl::MutexLock l(&mu_);
    template_ = std::move(response);
  }
  void SetMcpServers(v1::ListMcpServersResponse response) {
    absl::MutexLock l(&mu_);
    mcp_servers_ = std::move(response);
  }
  // Replaces the default agents (coder, reviewer).
  void SetAgents(v1::ListAgentsResponse response) {
    absl::MutexLock l(&mu_);
    agents_ = std::move(response);
  }
  void SetOnShutdown(std::function<void()> fn) {
    absl::MutexLock l(&mu_);
    on_shutdown_ = std::move(fn);
  }
  // Appends `event` to the session log (seq assigned) and wakes subscribers.
  void Append(v1::Event event) {
    absl::MutexLock l(&mu_);
    AppendLocked(std::move(event));
  }
  // The session log as appended so far (seqs filled in).
  std::vector<v1::Event> log() {
    absl::MutexLock l(&mu_);
    return log_;
  }
  // Another client (not on any stream) holds the write lease of `session`.
  void HoldLease(const std::string& session, const std::string& client_name,
                 const std::string& client_kind, int64_t pid) {
    absl::MutexLock l(&mu_);
    LeaseSlot& slot = leases_[session];
    slot.lease_id = "lease_external";
    slot.holder.set_client_name(client_name);
    slot.holder.set_client_kind(client_kind);
    slot.holder.set_client_pid(pid);
  }
  // The client of HoldLease goes away: the lease is free (nobody waiting
  // is told, as with a holder whose stream was never open here).
  void DropHeldLease(const std::string& session) {
    absl::MutexLock l(&mu_);
    leases_[session].lease_id.clear();
  }
  // The holder of `session`'s lease ("" when it is free).
  std::string lease_holder(const std::string& session) {
    absl::MutexLock l(&mu_);
    const LeaseSlot& slot = leases_[session];
    return slot.lease_id.empty() ? "" : slot.holder.client_name();
  }
  // The lease id that each write carried: "StartTurn=lease_1", ...
  std::vector<std::string> write_leases() {
    absl::MutexLock l(&mu_);
    return write_leases_;
  }
  // True once `session`'s lease is free, false after `timeout`.
  bool WaitForLeaseFreeFor(const std::string& session, absl::Duration timeout) {
    absl::MutexLock l(&mu_);
    auto free = [this, &session]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return leases_[session].lease_id.empty();
    };
    return mu_.AwaitWithTimeout(absl::Condition(&free), timeout);
  }
  // Blocks until `session`'s lease is free (its holder released it).
  void WaitForLeaseFree(const std::string& session) {
    absl::MutexLock l(&mu_);
    auto free = [this, &session]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return leases_[session].lease_id.empty();
    };
    mu_.Await(absl::Condition(&free));
  }
  // Ends every Subscribe stream (OK) and refuses new waits.
  void Close() {
    absl::MutexLock l(&mu_);
    closed_ = true;
  }

  // --- observations ---
  // Blocks until a call whose record starts with `prefix` has been made.
  void WaitForCall(const std::string& prefix) {
    absl::MutexLock l(&mu_);
    auto seen = [this, &prefix]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return std::any_of(calls_.begin(), calls_.end(),
                         [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
    };
    mu_.Await(absl::Condition(&seen));
  }
  std::vector<std::string> calls() {
    absl::MutexLock l(&mu_);
    return calls_;
  }
  // The turn_id of each StartTurn request and the operation_id of each
  // InterruptTurn request, in order.
  std::vector<std::string> start_turn_ids() {
    absl::MutexLock l(&mu_);
    return start_turn_ids_;
  }
  std::vector<std::string> interrupt_operation_ids() {
    absl::MutexLock l(&mu_);
    return interrupt_operation_ids_;
  }
  // StartTurn calls answered so far, whatever the answer.
  int start_turns_answered() {
    absl::MutexLock l(&mu_);
    return start_turns_answered_;
  }
  // Blocks until `n` StartTurn calls have been answered.
  void WaitForStartTurnsAnswered(int n) {
    absl::MutexLock l(&mu_);
    auto answered = [this, n]()
                        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return start_turns_answered_ >= n; };
    mu_.Await(absl::Condition(&answered));
  }
  bool subscriber_attached_at_start() {
    absl::MutexLock l(&mu_);
    return subscriber_attached_at_start_;
  }
  std::vector<uint64_t> subscribe_after_seqs() {
    absl::MutexLock l(&mu_);
    return subscribe_after_;
  }
  std::string last_check_path() {
    absl::MutexLock l(&mu_);
    return last_check_path_;
  }
  v1::CreateSessionRequest last_create() {
    absl::MutexLock l(&mu_);
    return last_create_;
  }

  // --- the service ---
  grpc::Status GetDaemonInfo(grpc::ServerContext*, const v1::GetDaemonInfoRequest*,
                             v1::GetDaemonInfoResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("GetDaemonInfo");
    *response = info_;
    return grpc::Status::OK;
  }

  grpc::Status CreateSession(grpc::ServerContext*, const v1::CreateSessionRequest* request,
                             v1::CreateSessionResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("CreateSession");
    last_create_ = *request;
    if (request->agent() == "missing") {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown agent \"missing\"");
    }
    v1::Session s;
    s.set_id("sess_new");
    s.set_agent(request->agent().empty() ? "coder" : request->agent());
    s.set_cwd(request->cwd());
    s.set_last_seq(next_seq_ - 1);
    sessions_.push_back(s);
    *response->mutable_session() = s;
    return grpc::Status::OK;
  }

  grpc::Status GetSession(grpc::ServerContext*, const v1::GetSessionRequest* request,
                          v1::GetSessionResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("GetSession");
    for (const auto& s : sessions_) {
      if (s.id() == request->session_id()) {
        *response->mutable_session() = s;
        response->mutable_session()->set_last_seq(next_seq_ - 1);
        return grpc::Status::OK;
      }
    }
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "no session with id \"" + request->session_id() + "\"");
  }

  grpc::Status ListSessions(grpc::ServerContext*, const v1::ListSessionsRequest* request,
                            v1::ListSessionsResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("ListSessions:" + request->page_token());
    size_t start = request->page_token().empty() ? 0 : std::stoul(request->page_token());
    size_t end = std::min(sessions_.size(), start + static_cast<size_t>(list_page_size_));
    for (size_t i = start; i < end; ++i) *response->add_sessions() = sessions_[i];
    if (end < sessions_.size()) response->set_next_page_token(std::to_string(end));
    return grpc::Status::OK;
  }

  grpc::Status StartTurn(grpc::ServerContext*, const v1::StartTurnRequest* request,
                         v1::StartTurnResponse* response) override {
    absl::MutexLock l(&mu_);
    grpc::Status status = StartTurnLocked(request, response);
    ++start_turns_answered_;
    return status;
  }

  grpc::Status InterruptTurn(grpc::ServerContext*, const v1::InterruptTurnRequest* request,
                             v1::InterruptTurnResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("InterruptTurn");
    interrupt_operation_ids_.push_back(request->operation_id());
    write_leases_.push_back("InterruptTurn=" + request->lease_id());
    if (grpc::Status s = CheckLease(request->session_id(), request->lease_id()); !s.ok()) return s;
    if (starting_ && abandon_on_interrupt_) {
      start_abandoned_ = true;
      response->set_interrupted(true);
      return grpc::Status::OK;
    }
    // With RememberEarlyInterrupts: an id that has not started yet is
    // remembered, as rawd does (InterruptTurnRequest).
    if (remember_early_interrupts_ && !request->operation_id().empty() &&
        request->operation_id() != current_turn_) {
      interrupted_early_.insert(request->operation_id());
      response->set_interrupted(false);
      return grpc::Status::OK;
    }
    if (hold_interrupts_) {
      auto closed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closed_; };
      mu_.Await(absl::Condition(&closed));
    }
    response->set_interrupted(!current_turn_.empty());
    if (interrupt_script_ && !current_turn_.empty()) {
      for (auto& e : interrupt_script_(current_turn_)) AppendLocked(std::move(e));
    }
    return grpc::Status::OK;
  }

  grpc::Status Subscribe(grpc::ServerContext*, const v1::SubscribeRequest* request,
                         grpc::ServerWriter<v1::Event>* writer) override {
    return ServeSubscription(request, [writer](const v1::Event& e) { return writer->Write(e); });
  }

  // One event per batch: the clients must not depend on how events are
  // grouped.
  grpc::Status SubscribeBatched(grpc::ServerContext*, const v1::SubscribeRequest* request,
                                grpc::ServerWriter<v1::EventBatch>* writer) override {
    v1::SubscribeRequest rest = *request;
    v1::EventBatch replay;
    {
      absl::MutexLock l(&mu_);
      if (replay_in_one_message_) {
        for (const v1::Event& e : log_) {
          if (e.seq() > request->after_seq() && !e.has_text_delta() && !e.has_resync()) {
            *replay.add_events() = e;
          }
        }
      }
    }
    if (replay.events_size() > 0) {
      if (!writer->Write(replay)) return grpc::Status::OK;
      rest.set_after_seq(replay.events(replay.events_size() - 1).seq());
    }
    return ServeSubscription(&rest, [writer](const v1::Event& e) {
      v1::EventBatch batch;
      *batch.add_events() = e;
      return writer->Write(batch);
    });
  }

  grpc::Status ServeSubscription(const v1::SubscribeRequest* request,
                                 const std::function<bool(const v1::Event&)>& write) {
    absl::MutexLock l(&mu_);
    calls_.push_back("Subscribe");
    subscribe_after_.push_back(request->after_seq());
    ++subscribers_;
    size_t next = 0;
    // Replay: stored events only, of those there when the subscription
    // began; what is appended meanwhile (while a write is unlocked) is live.
    for (const size_t replayed = log_.size(); next < replayed; ++next) {
      v1::Event e = log_[next];  // a copy: the log may grow while unlocked
      // Deltas and resyncs are live only.
      if (e.seq() <= request->after_seq() || e.has_text_delta() || e.has_resync()) continue;
      if (!WriteUnlocked(write, e)) return Detach();
    }
    for (;;) {
      auto ready = [this, next]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closed_ || log_.size() > next; };
      mu_.Await(absl::Condition(&ready));
      if (log_.size() > next) {
        v1::Event e = log_[next++];
        if (!e.has_resync() && e.seq() <= request->after_seq()) continue;
        if (!WriteUnlocked(write, e)) return Detach();
        continue;
      }
      Detach();
      return grpc::Status::OK;
    }
  }

  grpc::Status GetHistory(grpc::ServerContext*, const v1::GetHistoryRequest* request,
                          v1::GetHistoryResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("GetHistory:" + request->cursor());
    size_t page = static_cast<size_t>(history_page_size_);
    if (request->limit() > 0) page = std::min(page, static_cast<size_t>(request->limit()));
    if (request->direction() == v1::HISTORY_DIRECTION_BACKWARD) {
      // Newest first; the cursor is the index after the oldest not yet read.
      size_t end = request->cursor().empty() ? history_.size() : std::stoul(request->cursor());
      size_t start = end > page ? end - page : 0;
      for (size_t i = end; i > start; --i) *response->add_events() = history_[i - 1];
      if (start > 0) response->set_next_cursor(std::to_string(start));
      return grpc::Status::OK;
    }
    size_t start = request->cursor().empty() ? 0 : std::stoul(request->cursor());
    size_t end = std::min(history_.size(), start + page);
    for (size_t i = start; i < end; ++i) *response->add_events() = history_[i];
    if (end < history_.size()) response->set_next_cursor(std::to_string(end));
    return grpc::Status::OK;
  }

  // Records "RespondToApproval:REQUEST:DECISION" and resolves the request
  // with an ApprovalResolved event.
  grpc::Status RespondToApproval(grpc::ServerContext*, const v1::RespondToApprovalRequest* request,
                                 v1::RespondToApprovalResponse*) override {
    absl::MutexLock l(&mu_);
    calls_.push_back(absl::StrCat("RespondToApproval:", request->request_id(), ":",
                                  v1::ApprovalDecision_Name(request->all())));
    write_leases_.push_back("RespondToApproval=" + request->lease_id());
    if (grpc::Status s = CheckLease(request->session_id(), request->lease_id()); !s.ok()) return s;
    v1::Event resolved;
    resolved.set_session_id(request->session_id());
    resolved.mutable_approval_resolved()->set_request_id(request->request_id());
    AppendLocked(std::move(resolved));
    return grpc::Status::OK;
  }

  grpc::Status ListAgents(grpc::ServerContext*, const v1::ListAgentsRequest*,
                          v1::ListAgentsResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("ListAgents");
    if (agents_) {
      *response = *agents_;
      return grpc::Status::OK;
    }
    for (const char* name : {"coder", "reviewer"}) response->add_agents()->set_name(name);
    return grpc::Status::OK;
  }

  grpc::Status ListMcpServers(grpc::ServerContext*, const v1::ListMcpServersRequest*,
                              v1::ListMcpServersResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("ListMcpServers");
    *response = mcp_servers_;
    return grpc::Status::OK;
  }

  grpc::Status CheckConfig(grpc::ServerContext*, const v1::CheckConfigRequest* request,
                           v1::CheckConfigResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("CheckConfig");
    last_check_path_ = request->path();
    *response = check_;
    if (!request->path().empty()) response->set_path(request->path());
    return grpc::Status::OK;
  }

  grpc::Status GetConfigTemplate(grpc::ServerContext*, const v1::GetConfigTemplateRequest*,
                                 v1::GetConfigTemplateResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("GetConfigTemplate");
    *response = template_;
    return grpc::Status::OK;
  }

  grpc::Status Shutdown(grpc::ServerContext*, const v1::ShutdownRequest*,
                        v1::ShutdownResponse*) override {
    std::function<void()> fn;
    {
      absl::MutexLock l(&mu_);
      calls_.push_back("Shutdown");
      fn = on_shutdown_;
    }
    if (fn) fn();
    return grpc::Status::OK;
  }

  grpc::Status AcquireLease(grpc::ServerContext* ctx, const v1::AcquireLeaseRequest* request,
                            grpc::ServerWriter<v1::LeaseEvent>* writer) override {
    absl::MutexLock l(&mu_);
    calls_.push_back(absl::StrCat("AcquireLease:", request->client_kind(),
                                  request->request_handover() ? ":handover" : "",
                                  request->rejoin_following() ? ":rejoin" : ""));
    LeaseSlot& slot = leases_[request->session_id()];
    v1::LeaseHolder me;
    me.set_client_name(request->client_name());
    me.set_client_kind(request->client_kind());
    me.set_client_pid(request->client_pid());
    if (!slot.lease_id.empty() && request->wait_for_release() && !request->request_handover() &&
        quiet_waits_) {
      // Waits unasked for the holder to let go; handover requests go first.
      // Told again when another client takes the lease meanwhile.
      std::string seen;
      auto changed = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return closed_ || (slot.lease_id.empty() && slot.asking == 0) ||
               (!slot.lease_id.empty() && slot.lease_id != seen);
      };
      while (!closed_ && !(slot.lease_id.empty() && slot.asking == 0)) {
        if (!slot.lease_id.empty() && slot.lease_id != seen) {
          seen = slot.lease_id;
          v1::LeaseEvent waiting;
          *waiting.mutable_waiting()->mutable_holder() = slot.holder;
          if (!WriteUnlocked(writer, waiting)) return grpc::Status::CANCELLED;
          continue;
        }
        if (!mu_.AwaitWithTimeout(absl::Condition(&changed), absl::Milliseconds(10)) &&
            ctx->IsCancelled()) {
          return grpc::Status::CANCELLED;
        }
      }
      if (closed_) return grpc::Status::OK;
    } else if (!slot.lease_id.empty()) {
      if (!request->request_handover()) {
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            HolderMessage(request->session_id(), slot.holder));
      }
      v1::LeaseEvent waiting;
      *waiting.mutable_waiting()->mutable_holder() = slot.holder;
      v1::LeaseHolder holder = slot.holder;
      slot.requests.push_back(me);
      int declines = slot.declines;
      ++slot.asking;
      if (!WriteUnlocked(writer, waiting)) {
        --slot.asking;
        return grpc::Status::CANCELLED;
      }
      auto decided = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return slot.lease_id.empty() || slot.declines != declines || closed_;
      };
      while (!mu_.AwaitWithTimeout(absl::Condition(&decided), absl::Milliseconds(10))) {
        if (ctx->IsCancelled()) {
          if (--slot.asking == 0) ++slot.withdrawals;
          return grpc::Status::CANCELLED;
        }
      }
      --slot.asking;
      if (closed_) return grpc::Status::OK;
      if (slot.declines != declines) {
        return grpc::Status(
            grpc::StatusCode::FAILED_PRECONDITION,
            absl::StrCat("\"", holder.client_name(), "\" keeps session ", request->session_id()));
      }
    }
    const std::string id = absl::StrCat("lease_", ++lease_count_);
    slot.lease_id = id;
    slot.holder = me;
    size_t delivered = slot.requests.size();
    int withdrawals_told = slot.withdrawals;
    v1::LeaseEvent granted;
    granted.mutable_granted()->set_lease_id(id);
    bool open = WriteUnlocked(writer, granted);
    while (open) {
      auto news = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return closed_ || slot.requests.size() > delivered || slot.withdrawals > withdrawals_told;
      };
      if (!mu_.AwaitWithTimeout(absl::Condition(&news), absl::Milliseconds(10))) {
        open = !ctx->IsCancelled();
        continue;
      }
      if (closed_) break;
      v1::LeaseEvent told;
      if (slot.requests.size() > delivered) {
        *told.mutable_handover_requested()->mutable_requester() = slot.requests[delivered++];
      } else {
        withdrawals_told = slot.withdrawals;
        told.mutable_handover_withdrawn();
      }
      open = WriteUnlocked(writer, told);
    }
    // The stream ended: the lease is released.
    if (slot.lease_id == id) slot.lease_id.clear();
    return grpc::Status::OK;
  }

  grpc::Status DeclineHandover(grpc::ServerContext*, const v1::DeclineHandoverRequest* request,
                               v1::DeclineHandoverResponse* response) override {
    absl::MutexLock l(&mu_);
    calls_.push_back("DeclineHandover");
    LeaseSlot& slot = leases_[request->session_id()];
    if (slot.lease_id.empty() || slot.lease_id != request->lease_id()) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "not the lease holder");
    }
    ++slot.declines;
    response->set_declined(1);
    return grpc::Status::OK;
  }

 private:
  // StartTurn's answer (it counts the answers).
  grpc::Status StartTurnLocked(const v1::StartTurnRequest* request, v1::StartTurnResponse* response)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    calls_.push_back("StartTurn:" + request->text());
    start_turn_ids_.push_back(request->turn_id());
    write_leases_.push_back("StartTurn=" + request->lease_id());
    if (grpc::Status s = CheckLease(request->session_id(), request->lease_id()); !s.ok()) return s;
    if (!start_error_.ok()) return start_error_;
    if (hold_starts_) {
      starting_ = true;
      auto go = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !hold_starts_ || start_abandoned_;
      };
      mu_.AwaitWithTimeout(absl::Condition(&go), absl::Seconds(10));
      starting_ = false;
      if (start_abandoned_) {
        start_abandoned_ = false;
        return grpc::Status(grpc::StatusCode::CANCELLED,
                            "the turn was interrupted before it started (interrupted)");
      }
    }
    // The client subscribes before it starts the turn; its Subscribe call
    // may still be on the way to a handler thread.
    auto attached = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return subscribers_ > 0; };
    subscriber_attached_at_start_ =
        mu_.AwaitWithTimeout(absl::Condition(&attached), absl::Seconds(10));
    // As rawd does: an interrupt that named this turn before it started
    // refuses it.
    if (!request->turn_id().empty() && interrupted_early_.count(request->turn_id()) > 0) {
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          "the turn was interrupted before it started (interrupted)");
    }
    ++turns_;
    std::string turn_id =
        request->turn_id().empty() ? "turn_" + std::to_string(turns_) : request->turn_id();
    current_turn_ = turn_id;
    response->set_turn_id(turn_id);
    if (start_script_) {
      for (auto& e : start_script_(turn_id)) AppendLocked(std::move(e));
    }
    if (close_after_start_) closed_ = true;
    return grpc::Status::OK;
  }

  struct LeaseSlot {
    std::string lease_id;  // empty: free
    v1::LeaseHolder holder;
    std::vector<v1::LeaseHolder> requests;  // every handover request, in order
    int declines = 0;
    int asking = 0;  // handover requests waiting now
    // Times the last waiting handover request went (its client gave up),
    // for the holder's handover_withdrawn.
    int withdrawals = 0;
  };

  static std::string HolderMessage(const std::string& session, const v1::LeaseHolder& holder) {
    return absl::StrCat("session ", session, " is open for writing in \"", holder.client_name(),
                        "\" (", holder.client_kind(), ", pid ", holder.client_pid(),
                        ", since 12:00:00)");
  }

  grpc::Status CheckLease(const std::string& session, const std::string& lease_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const LeaseSlot& slot = leases_[session];
    if (slot.lease_id.empty()) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          absl::StrCat("nobody holds the write lease of session ", session));
    }
    if (lease_id != slot.lease_id) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          HolderMessage(session, slot.holder));
    }
    return grpc::Status::OK;
  }

  void AppendLocked(v1::Event event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!event.has_resync()) event.set_seq(next_seq_++);
    if (event.session_id().empty()) event.set_session_id("sess_new");
    log_.push_back(std::move(event));
  }

  // Writes without holding the lock, so a slow reader never blocks the
  // service's other methods.
  bool WriteUnlocked(const std::function<bool(const v1::Event&)>& write, const v1::Event& e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    mu_.Unlock();
    bool ok = write(e);
    mu_.Lock();
    return ok;
  }

  template <typename Message>
  bool WriteUnlocked(grpc::ServerWriter<Message>* writer, const Message& e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    mu_.Unlock();
    bool ok = writer->Write(e);
    mu_.Lock();
    return ok;
  }

  grpc::Status Detach() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    --subscribers_;
    return grpc::Status::OK;
  }

  absl::Mutex mu_;
  v1::GetDaemonInfoResponse info_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Session> sessions_ ABSL_GUARDED_BY(mu_);
  int list_page_size_ ABSL_GUARDED_BY(mu_) = 100;
  bool quiet_waits_ ABSL_GUARDED_BY(mu_) = true;
  Script start_script_ ABSL_GUARDED_BY(mu_);
  Script interrupt_script_ ABSL_GUARDED_BY(mu_);
  grpc::Status start_error_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Event> history_ ABSL_GUARDED_BY(mu_);
  int history_page_size_ ABSL_GUARDED_BY(mu_) = 100;
  v1::CheckConfigResponse check_ ABSL_GUARDED_BY(mu_);
  v1::GetConfigTemplateResponse template_ ABSL_GUARDED_BY(mu_);
  v1::ListMcpServersResponse mcp_servers_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::ListAgentsResponse> agents_ ABSL_GUARDED_BY(mu_);
  std::function<void()> on_shutdown_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Event> log_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool close_after_start_ ABSL_GUARDED_BY(mu_) = false;
  bool hold_interrupts_ ABSL_GUARDED_BY(mu_) = false;
  bool hold_starts_ ABSL_GUARDED_BY(mu_) = false;
  bool abandon_on_interrupt_ ABSL_GUARDED_BY(mu_) = false;
  bool starting_ ABSL_GUARDED_BY(mu_) = false;         // a StartTurn is held
  bool start_abandoned_ ABSL_GUARDED_BY(mu_) = false;  // an interrupt ended it
  int subscribers_ ABSL_GUARDED_BY(mu_) = 0;
  // Turn ids an InterruptTurn named before they started.
  bool remember_early_interrupts_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::string> interrupted_early_ ABSL_GUARDED_BY(mu_);
  int turns_ ABSL_GUARDED_BY(mu_) = 0;
  std::string current_turn_ ABSL_GUARDED_BY(mu_);
  bool subscriber_attached_at_start_ ABSL_GUARDED_BY(mu_) = false;
  int start_turns_answered_ ABSL_GUARDED_BY(mu_) = 0;
  bool replay_in_one_message_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> start_turn_ids_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> interrupt_operation_ids_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> subscribe_after_ ABSL_GUARDED_BY(mu_);
  std::string last_check_path_ ABSL_GUARDED_BY(mu_);
  v1::CreateSessionRequest last_create_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, LeaseSlot> leases_ ABSL_GUARDED_BY(mu_);
  int lease_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> write_leases_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::testing
