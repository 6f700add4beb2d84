#include "clients/cli/turn_runner.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "absl/strings/str_cat.h"
#include "clients/cli/exit_codes.h"
#include "clients/present/terminal_text.h"
#include "clients/present/turn_end.h"
#include "common/ids.h"

namespace raw::cli {

TurnRunner::TurnRunner(client::RawClient& client, EventPrinter& printer,
                       ApprovalPrompter& approvals, std::ostream& err)
    : client_(client), printer_(printer), approvals_(approvals), err_(err) {}

TurnRunner::~TurnRunner() { CloseQuestion(); }

int TurnRunner::Run(const TurnRequest& request) {
  v1::Session session;
  if (!request.session_id.empty()) {
    // The lease first: taking it starts the daemon's warm-up of a long
    // history (docs/architecture.md), which then runs while the session is
    // read.
    session_id_ = request.session_id;
    if (int code = TakeLease(request); code != kExitOk) return code;
    v1::GetSessionRequest get;
    get.set_session_id(request.session_id);
    // Only the id, agent and last seq are used: the daemon need not load
    // and estimate the model context for this answer.
    get.set_without_context(true);
    auto response = client_.GetSession(get);
    if (!response.ok()) {
      err_ << "raw run: " << present::SanitizeForStream(response.status().message()) << "\n";
      return ExitCodeFor(response.status());
    }
    session = response->session();
  } else {
    v1::CreateSessionRequest create;
    create.set_agent(request.agent);
    create.set_cwd(request.cwd);
    auto response = client_.CreateSession(create);
    if (!response.ok()) {
      err_ << "raw run: cannot create a session: "
           << present::SanitizeForStream(response.status().message()) << "\n";
      return ExitCodeFor(response.status());
    }
    session = response->session();
    created_seq_ = session.last_seq();
  }
  session_id_ = session.id();
  prompt_ = request.prompt;
  images_ = request.images;
  if (lease_ == nullptr) {
    if (int code = TakeLease(request); code != kExitOk) return code;
  }
  after_seq_ = session.last_seq();
  if (printer_.format() == OutputFormat::kText) {
    err_ << "session " << session.id() << " (agent " << session.agent() << ")\n";
    err_.flush();
  }

  for (;;) {
    absl::Status status = client_.Subscribe(session_id_, after_seq_, *this);
    // A question outlives a resync (the request is still open), nothing else.
    if (!resync_after_) CloseQuestion();
    if (ended_) return Finish(*ended_);
    if (cancelled_before_start_) {
      err_ << "raw run: interrupted before the turn started\n";
      DropEmptySession();
      return kExitCancelled;
    }
    if (!start_error_.ok()) {
      err_ << "raw run: cannot start the turn: "
           << present::SanitizeForStream(start_error_.message()) << "\n";
      DropEmptySession();
      return ExitCodeFor(start_error_);
    }
    if (resync_after_) {
      // The stream fell behind; continue from the last event it delivered.
      after_seq_ = *resync_after_;
      resync_after_.reset();
      continue;
    }
    printer_.EndText();
    if (!status.ok()) {
      err_ << "raw run: the event stream failed before the turn ended: "
           << present::SanitizeForStream(status.message()) << "\n";
    } else {
      err_ << "raw run: the daemon ended the event stream before the turn "
              "ended\n";
    }
    return kExitError;
  }
}

void TurnRunner::DropEmptySession() {
  if (!created_seq_.has_value() || lease_id_.empty()) return;
  v1::GetSessionRequest get;
  get.set_session_id(session_id_);
  get.set_without_context(true);
  auto now = client_.GetSession(get);
  // Anything recorded since (another client may have written): it stays.
  if (!now.ok() || now->session().last_seq() != *created_seq_) return;
  v1::DeleteSessionRequest remove;
  remove.set_session_id(session_id_);
  remove.set_lease_id(lease_id_);
  (void)client_.DeleteSession(remove);
}

int TurnRunner::TakeLease(const TurnRequest& request) {
  v1::AcquireLeaseRequest acquire;
  acquire.set_session_id(session_id_);
  acquire.set_client_name(request.client_name);
  acquire.set_client_kind("raw run");
  acquire.set_client_pid(request.client_pid);
  acquire.set_request_handover(false);
  lease_ = std::make_unique<client::WriteLease>(client_, acquire);
  absl::StatusOr<std::string> id = lease_->WaitGranted();
  if (absl::IsFailedPrecondition(id.status()) && HolderHasExited()) {
    // A client that has exited (the previous `raw run` of a script) holds
    // the lease until rawd sees its connection close, which may be a moment
    // after the process is gone: wait for that release, as a handover,
    // instead of refusing.
    lease_.reset();
    acquire.set_request_handover(true);
    lease_ = std::make_unique<client::WriteLease>(client_, acquire);
    id = lease_->WaitGranted();
  }
  if (id.ok()) {
    lease_id_ = *id;
    return kExitOk;
  }
  lease_.reset();
  err_ << "raw run: " << present::SanitizeForStream(id.status().message()) << "\n";
  // FAILED_PRECONDITION is the daemon naming the client that holds the
  // session.
  return absl::IsFailedPrecondition(id.status()) ? kExitHeld : ExitCodeFor(id.status());
}

bool TurnRunner::HolderHasExited() {
  v1::GetSessionRequest get;
  get.set_session_id(session_id_);
  get.set_without_context(true);
  absl::StatusOr<v1::GetSessionResponse> response = client_.GetSession(get);
  if (!response.ok() || !response->session().has_writer_holder()) return false;
  const int64_t pid = response->session().writer_holder().client_pid();
  // Signal 0 checks that the process exists; ESRCH: it does not (EPERM: it
  // does, as another user's).
  return pid > 0 && pid <= std::numeric_limits<pid_t>::max() &&
         kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

client::EventHandler::Next TurnRunner::OnOpen() {
  if (start_sent_) return Next::kContinue;  // re-subscribed after a resync
  v1::StartTurnRequest start;
  {
    absl::MutexLock lock(&mu_);
    if (interrupt_requested_) {
      cancelled_before_start_ = true;
      return Next::kStop;
    }
    // The turn's id is chosen here, so that an interrupt can name it while
    // StartTurn waits for the turn to be prepared (MCP servers starting, a
    // secret read by a command): rawd then abandons the preparation.
    turn_id_ = NewId("turn_");
    start.set_turn_id(turn_id_);
  }
  start_sent_ = true;
  start.set_session_id(session_id_);
  start.set_text(prompt_);
  for (const v1::Image& image : images_) *start.add_images() = image;
  start.set_lease_id(lease_id_);
  auto response = client_.StartTurn(start);
  if (!response.ok()) {
    absl::MutexLock lock(&mu_);
    if (response.status().code() == absl::StatusCode::kCancelled && interrupt_requested_) {
      cancelled_before_start_ = true;
    } else {
      start_error_ = response.status();
    }
    return Next::kStop;
  }
  absl::MutexLock lock(&mu_);
  turn_id_ = response->turn_id();
  return Next::kContinue;
}

client::EventHandler::Next TurnRunner::OnEvent(const v1::Event& event) {
  if (event.has_resync()) {
    printer_.Print(event);
    resync_after_ = event.resync().last_delivered_seq();
    return Next::kStop;
  }
  after_seq_ = std::max(after_seq_, event.seq());
  std::string turn_id;
  {
    absl::MutexLock lock(&mu_);
    turn_id = turn_id_;
  }
  // Events of other turns (one that ended before ours started) are skipped.
  if (!event.turn_id().empty() && event.turn_id() != turn_id) return Next::kContinue;
  // Resolved (by this runner's answer or otherwise): the question closes
  // before the resolution is printed.
  if (event.has_approval_resolved() && question_ != nullptr &&
      question_->request_id == event.approval_resolved().request_id()) {
    CloseQuestion();
  }
  printer_.Print(event);
  if (event.has_approval_requested()) Answer(event.approval_requested());
  if (event.has_turn_ended() && event.turn_id() == turn_id) {
    ended_ = event.turn_ended();
    return Next::kStop;
  }
  return Next::kContinue;
}

void TurnRunner::Answer(const v1::ApprovalRequested& request) {
  bool pending = false;
  for (const v1::ApprovalCall& call : request.calls()) {
    pending = pending || call.state() == v1::APPROVAL_STATE_PENDING;
  }
  if (!pending) return;
  printer_.EndText();
  CloseQuestion();
  question_ = std::make_unique<Question>();
  Question* question = question_.get();
  question->request_id = request.request_id();
  // Ctrl-C answers the question (as a denial), as it always has.
  question->interrupt_callback =
      interrupted_.OnCancel([question] { question->withdrawn.Cancel("interrupted"); });
  if (interrupted_.cancelled()) question->withdrawn.Cancel("interrupted");
  question->thread = std::thread([this, question, request] {
    ApprovalChoice choice = approvals_.Decide(request, question->withdrawn);
    if (question->withdrawn.cancelled() && !interrupted_.cancelled()) {
      // Resolved without us: nothing to answer.
      err_ << "\n";
      err_.flush();
      return;
    }
    Respond(request, choice);
  });
}

void TurnRunner::CloseQuestion() {
  if (question_ == nullptr) return;
  question_->withdrawn.Cancel("resolved");
  if (question_->thread.joinable()) question_->thread.join();
  interrupted_.RemoveCallback(question_->interrupt_callback);
  question_.reset();
}

void TurnRunner::Respond(const v1::ApprovalRequested& request, const ApprovalChoice& choice) {
  v1::RespondToApprovalRequest respond;
  respond.set_session_id(session_id_);
  respond.set_request_id(request.request_id());
  respond.set_all(choice.decision);
  respond.set_all_message(choice.message);
  respond.set_all_session_rule(choice.session_rule);
  respond.set_all_unattended(choice.unattended);
  respond.set_lease_id(lease_id_);
  auto response = client_.RespondToApproval(respond);
  // NotFound: the request was already resolved (another client answered,
  // it timed out, or the turn was interrupted); the events say which.
  if (!response.ok() && response.status().code() != absl::StatusCode::kNotFound) {
    err_ << "raw run: could not answer the approval request: "
         << present::SanitizeForStream(response.status().message()) << "\n";
  }
}

void TurnRunner::Interrupt() {
  interrupted_.Cancel("interrupted");
  {
    absl::MutexLock lock(&mu_);
    if (interrupt_requested_) return;
    interrupt_requested_ = true;
    if (turn_id_.empty()) return;  // OnOpen sees the request
  }
  SendInterrupt();
}

void TurnRunner::SendInterrupt() {
  v1::InterruptTurnRequest request;
  request.set_session_id(session_id_);
  request.set_lease_id(lease_id_);
  {
    // This turn only, even while StartTurn is on its way.
    absl::MutexLock lock(&mu_);
    request.set_operation_id(turn_id_);
  }
  auto response = client_.InterruptTurn(request);
  absl::MutexLock lock(&mu_);
  if (!response.ok()) interrupt_error_ = response.status();
}

int TurnRunner::Finish(const v1::TurnEnded& ended) {
  printer_.EndText();
  {
    absl::MutexLock lock(&mu_);
    if (!interrupt_error_.ok()) {
      err_ << "raw run: could not interrupt the turn: "
           << present::SanitizeForStream(interrupt_error_.message()) << "\n";
    }
  }
  if (ended.reason() != v1::TURN_END_REASON_COMPLETED) {
    err_ << "raw run: " << present::SanitizeForStream(present::TurnEndText(ended)) << "\n";
  }
  switch (ended.reason()) {
    case v1::TURN_END_REASON_COMPLETED:
      return kExitOk;
    case v1::TURN_END_REASON_MAX_STEPS:
      return kExitMaxSteps;
    case v1::TURN_END_REASON_CANCELLED:
      return kExitCancelled;
    default:
      return kExitError;
  }
}

}  // namespace raw::cli
