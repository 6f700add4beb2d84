// SessionController: the writes (under the lease) and the reads that are
// not about the open session's events.
#include <algorithm>
#include <utility>

#include "clients/lib/session_controller.h"
#include "common/ids.h"

namespace raw::client {

void SessionController::Write(std::function<absl::Status(RawClient&)> call, Done done) {
  worker_.Run(
      [post = worker_.poster(), client = client_, call = std::move(call), done = std::move(done)] {
        absl::Status status = call(*client);
        post([status, done] {
          if (done) done(status);
        });
      });
}

void SessionController::WriteStart(std::string op_id,
                                   std::function<absl::StatusOr<std::string>(RawClient&)> call,
                                   Started started) {
  if (interrupts_pending_ > 0) {
    held_starts_.push_back({std::move(op_id), std::move(call), std::move(started)});
    return;
  }
  SendStart(std::move(op_id), std::move(call), std::move(started));
}

void SessionController::SendStart(std::string op_id,
                                  std::function<absl::StatusOr<std::string>(RawClient&)> call,
                                  Started started) {
  starts_pending_.push_back(op_id);
  worker_.Run([this, post = worker_.poster(), client = client_, call = std::move(call),
               started = std::move(started), op_id] {
    auto result = std::make_shared<absl::StatusOr<std::string>>(call(*client));
    // (The poster runs nothing once the controller is gone.)
    post([this, result, started, op_id] {
      auto it = std::find(starts_pending_.begin(), starts_pending_.end(), op_id);
      if (it != starts_pending_.end()) starts_pending_.erase(it);
      if (started) started(result->status(), result->ok() ? **result : std::string());
    });
  });
}

void SessionController::SendInterrupt(std::string op_id, Interrupted done) {
  v1::InterruptTurnRequest request;
  request.set_session_id(session_.id());
  request.set_lease_id(lease_.lease_id());
  request.set_operation_id(std::move(op_id));
  ++interrupts_pending_;
  interrupt_worker_.Run([this, post = interrupt_worker_.poster(), client = client_, request,
                         done = std::move(done)] {
    auto result =
        std::make_shared<absl::StatusOr<v1::InterruptTurnResponse>>(client->InterruptTurn(request));
    // (The poster runs nothing once the controller is gone.)
    post([this, result, done] {
      --interrupts_pending_;
      if (interrupts_pending_ == 0 && !held_starts_.empty()) {
        std::vector<HeldStart> held = std::move(held_starts_);
        held_starts_.clear();
        for (HeldStart& h : held) {
          SendStart(std::move(h.op_id), std::move(h.call), std::move(h.started));
        }
      }
      if (done) done(result->status(), result->ok() && (*result)->interrupted());
    });
  });
}

absl::Status SessionController::CheckWrite() const {
  if (!has_session()) return absl::FailedPreconditionError("no session is open");
  if (!connected_) return absl::UnavailableError("not connected to the daemon");
  if (lease_.state() != SessionLease::State::kHeld) {
    return absl::FailedPreconditionError(lease_.holder().empty()
                                             ? "this client does not hold the session's write lease"
                                             : "the session is held by " + lease_.holder());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SessionController::StartTurnWithId(const std::string& text,
                                                               Started started,
                                                               std::vector<v1::Image> images) {
  if (absl::Status s = CheckWrite(); !s.ok()) return s;
  if (activity_.busy()) return absl::FailedPreconditionError("the agent is still working");
  v1::StartTurnRequest request;
  request.set_session_id(session_.id());
  request.set_text(text);
  request.set_lease_id(lease_.lease_id());
  request.set_turn_id(NewId("turn_"));
  for (v1::Image& image : images) *request.add_images() = std::move(image);
  std::string turn_id = request.turn_id();  // before the request moves
  WriteStart(
      turn_id,
      [request = std::move(request)](RawClient& c) -> absl::StatusOr<std::string> {
        absl::StatusOr<v1::StartTurnResponse> r = c.StartTurn(request);
        if (!r.ok()) return r.status();
        return r->turn_id();
      },
      std::move(started));
  return turn_id;
}

absl::Status SessionController::StartTurn(const std::string& text, Done done,
                                          std::vector<v1::Image> images) {
  Started started = [done = std::move(done)](const absl::Status& status, const std::string&) {
    if (done) done(status);
  };
  return StartTurnWithId(text, std::move(started), std::move(images)).status();
}

absl::Status SessionController::InterruptWithOutcome(Interrupted done) {
  if (absl::Status s = CheckWrite(); !s.ok()) return s;
  // Starts still waiting for an earlier interrupt's answer are not sent:
  // they end as the daemon would end them during their preparation.
  for (HeldStart& h : held_starts_) {
    Post([started = std::move(h.started)] {
      if (started) started(absl::CancelledError("interrupted before it was sent"), "");
    });
  }
  held_starts_.clear();
  // The latest start unanswered is what the user sees coming: it is
  // interrupted whether or not it reached the daemon before this.
  SendInterrupt(starts_pending_.empty() ? std::string() : starts_pending_.back(), std::move(done));
  return absl::OkStatus();
}

absl::Status SessionController::Interrupt(Done done) {
  return InterruptWithOutcome(
      Interrupted([done = std::move(done)](const absl::Status& status, bool) {
        if (done) done(status);
      }));
}

absl::Status SessionController::AnswerApproval(std::string request_id,
                                               v1::ApprovalDecision decision,
                                               const std::string& message, Done done,
                                               int session_rule) {
  if (absl::Status s = CheckWrite(); !s.ok()) return s;
  const std::optional<v1::ApprovalRequested>& pending = activity_.pending_approval();
  if (!pending || pending->request_id() != request_id) {
    return absl::NotFoundError("no approval \"" + request_id + "\" is waiting for an answer");
  }
  v1::RespondToApprovalRequest request;
  request.set_session_id(session_.id());
  request.set_request_id(request_id);
  request.set_all(decision);
  request.set_all_message(message);
  request.set_all_session_rule(session_rule);
  request.set_lease_id(lease_.lease_id());
  // Hidden until the daemon resolves it (or refuses the answer).
  answered_request_ = request_id;
  listener_.OnApprovalChanged();
  Write([request](RawClient& c) { return c.RespondToApproval(request).status(); },
        [this, request_id, done = std::move(done)](const absl::Status& status) {
          // NOT_FOUND: the request was resolved meanwhile (a timeout).
          if (!status.ok() && !absl::IsNotFound(status) && answered_request_ == request_id) {
            answered_request_.clear();
            listener_.OnApprovalChanged();
          }
          if (done) done(status);
        });
  return absl::OkStatus();
}

absl::StatusOr<std::string> SessionController::CompactWithId(Started started) {
  if (absl::Status s = CheckWrite(); !s.ok()) return s;
  if (activity_.busy()) return absl::FailedPreconditionError("the agent is still working");
  v1::CompactRequest request;
  request.set_session_id(session_.id());
  request.set_lease_id(lease_.lease_id());
  request.set_operation_id(NewId("compact_"));
  WriteStart(
      request.operation_id(),
      [request](RawClient& c) -> absl::StatusOr<std::string> {
        absl::StatusOr<v1::CompactResponse> r = c.Compact(request);
        if (!r.ok()) return r.status();
        return r->operation_id();
      },
      std::move(started));
  return request.operation_id();
}

absl::Status SessionController::Compact(Done done) {
  Started started = [done = std::move(done)](const absl::Status& status, const std::string&) {
    if (done) done(status);
  };
  return CompactWithId(std::move(started)).status();
}

absl::Status SessionController::ClearContext(Done done) {
  if (absl::Status s = CheckWrite(); !s.ok()) return s;
  v1::ClearContextRequest request;
  request.set_session_id(session_.id());
  request.set_lease_id(lease_.lease_id());
  Call<v1::ClearContextResponse>(
      [request](RawClient& c) { return c.ClearContext(request); },
      [this, id = session_.id(),
       done = std::move(done)](const absl::StatusOr<v1::ClearContextResponse>& response) {
        if (response.ok() && response->has_context() && id == session_.id()) {
          *session_.mutable_context() = response->context();
          listener_.OnSessionUpdated();
        }
        if (done) done(response.status());
      });
  return absl::OkStatus();
}

void SessionController::ListSessions(int page_size, Reply<v1::ListSessionsResponse> reply) {
  v1::ListSessionsRequest request;
  request.set_page_size(page_size);
  Call<v1::ListSessionsResponse>([request](RawClient& c) { return c.ListSessions(request); },
                                 std::move(reply));
}

void SessionController::ListAgents(Reply<v1::ListAgentsResponse> reply) {
  Call<v1::ListAgentsResponse>(
      [](RawClient& c) { return c.ListAgents(v1::ListAgentsRequest()); },
      [this, reply = std::move(reply)](const absl::StatusOr<v1::ListAgentsResponse>& response) {
        if (response.ok()) agents_.assign(response->agents().begin(), response->agents().end());
        reply(response);
      });
}

void SessionController::GetStats(Reply<v1::GetStatsResponse> reply) {
  v1::GetStatsRequest request;
  request.set_session_id(session_.id());
  Call<v1::GetStatsResponse>([request](RawClient& c) { return c.GetStats(request); },
                             std::move(reply));
}

}  // namespace raw::client
