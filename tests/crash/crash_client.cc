#include "tests/crash/crash_client.h"

#include <unistd.h>

#include "gtest/gtest.h"
#include "tests/crash/crash_model.h"

namespace raw::crash {
namespace {

// Long enough for any operation of a live daemon under the sanitizers; a
// dead one ends the event stream, which ends every wait at once.
constexpr std::chrono::seconds kOperationTimeout{60};

}  // namespace

CrashClient::CrashClient(raw::v1::Raw::Stub& stub, const std::string& session_id,
                         uint64_t after_seq)
    : stub_(stub), session_id_(session_id) {
  events_ = std::make_unique<e2e::EventStream>(stub, session_id, after_seq);
  raw::v1::AcquireLeaseRequest request;
  request.set_session_id(session_id);
  request.set_client_name("crash harness");
  request.set_client_kind("crash harness");
  request.set_client_pid(getpid());
  lease_ = stub.AcquireLease(&lease_ctx_, request);
  raw::v1::LeaseEvent first;
  if (lease_->Read(&first) && first.has_granted()) lease_id_ = first.granted().lease_id();
  // Reads on until the stream ends (the daemon died, or the destructor).
  lease_reader_ = std::thread([this] {
    raw::v1::LeaseEvent ignored;
    while (lease_->Read(&ignored)) {
    }
  });
}

CrashClient::~CrashClient() {
  lease_ctx_.TryCancel();
  lease_reader_.join();
  lease_->Finish().IgnoreError();
  events_.reset();
}

bool CrashClient::SetApprovalMode(const std::string& mode) {
  if (mode == approval_mode_) return true;
  grpc::ClientContext ctx;
  raw::v1::ConfigureSessionRequest request;
  request.set_session_id(session_id_);
  request.set_lease_id(lease_id_);
  request.set_approval_mode(mode);
  raw::v1::ConfigureSessionResponse response;
  if (!stub_.ConfigureSession(&ctx, request, &response).ok()) return false;
  approval_mode_ = mode;
  return true;
}

bool CrashClient::SetModel(const std::string& model) {
  grpc::ClientContext ctx;
  raw::v1::ConfigureSessionRequest request;
  request.set_session_id(session_id_);
  request.set_lease_id(lease_id_);
  request.set_model(model);
  raw::v1::ConfigureSessionResponse response;
  grpc::Status status = stub_.ConfigureSession(&ctx, request, &response);
  EXPECT_TRUE(status.ok()) << "model " << model << ": " << status.error_message();
  return status.ok();
}

std::optional<raw::v1::Event> CrashClient::FinishTurn(const std::string& turn_id) {
  size_t from = 0;
  while (true) {
    std::optional<raw::v1::Event> e = events_->WaitFor(
        [&](const raw::v1::Event& ev) {
          return ev.turn_id() == turn_id && (ev.has_turn_ended() || ev.has_approval_requested());
        },
        kOperationTimeout, from);
    if (!e || e->has_turn_ended()) return e;
    // Allow the whole batch, then look past this request.
    grpc::ClientContext ctx;
    raw::v1::RespondToApprovalRequest answer;
    answer.set_session_id(session_id_);
    answer.set_request_id(e->approval_requested().request_id());
    answer.set_all(raw::v1::APPROVAL_DECISION_ALLOW_ONCE);
    answer.set_lease_id(lease_id_);
    raw::v1::RespondToApprovalResponse response;
    if (!stub_.RespondToApproval(&ctx, answer, &response).ok()) return std::nullopt;
    const std::vector<raw::v1::Event> seen = events_->events();
    for (size_t i = from; i < seen.size(); ++i) {
      if (seen[i].seq() == e->seq()) from = i + 1;
    }
  }
}

std::string CrashClient::StartTurn(const std::string& text) {
  grpc::ClientContext ctx;
  raw::v1::StartTurnRequest request;
  request.set_session_id(session_id_);
  request.set_text(text);
  request.set_lease_id(lease_id_);
  raw::v1::StartTurnResponse response;
  if (!stub_.StartTurn(&ctx, request, &response).ok()) return "";
  return response.turn_id();
}

bool CrashClient::ToolTurn(int op, int steps, bool ask) {
  if (!SetApprovalMode(ask ? "ask_all" : "")) return false;
  const std::string turn = StartTurn(ToolPrompt(op, steps));
  return !turn.empty() && FinishTurn(turn).has_value();
}

bool CrashClient::Compact() {
  grpc::ClientContext ctx;
  raw::v1::CompactRequest request;
  request.set_session_id(session_id_);
  request.set_lease_id(lease_id_);
  raw::v1::CompactResponse response;
  if (!stub_.Compact(&ctx, request, &response).ok()) return false;
  return events_
      ->WaitFor(
          [&](const raw::v1::Event& e) {
            return e.turn_id() == response.operation_id() && e.has_compaction_ended();
          },
          kOperationTimeout)
      .has_value();
}

std::optional<raw::v1::Event> CrashClient::CheckTurn(const std::string& text) {
  const std::string turn = StartTurn(text);
  if (turn.empty()) return std::nullopt;
  return FinishTurn(turn);
}

std::vector<raw::v1::Event> CrashClient::CommittedSeen() const {
  std::vector<raw::v1::Event> out;
  for (const raw::v1::Event& e : events_->events()) {
    // Deltas, resets and progress are live only (event.proto).
    const bool live_only = e.has_text_delta() || e.has_reasoning_delta() ||
                           e.has_stream_reset() || e.has_resync() ||
                           e.has_compaction_progress() || e.has_context_estimate() ||
                           e.has_tool_progress();
    if (e.seq() > 0 && !live_only) out.push_back(e);
  }
  return out;
}

}  // namespace raw::crash
