// TuiApp: the session's write lease. One writer per session; followers
// read only and may ask the writer to hand the session over (Ctrl-T). The
// writer hands it over by the rule of client::HandoverGate: after the
// running turn, once the user is idle, at the end of a visible countdown
// that any key stops (the request is then declined).
#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"

namespace raw::tui {
namespace {

// The holder named in the daemon's refusal: 'session S is open for writing
// in "NAME" (...)'; empty when the message has another form.
std::string HolderFrom(absl::string_view message) {
  constexpr absl::string_view kIn = "in \"";
  size_t start = message.find(kIn);
  if (start == absl::string_view::npos) return "";
  start += kIn.size();
  size_t end = message.find('"', start);
  if (end == absl::string_view::npos) return "";
  return std::string(message.substr(start, end - start));
}

std::string NameOf(const v1::LeaseHolder& holder) {
  return holder.client_name().empty() ? "another client" : holder.client_name();
}

}  // namespace

void TuiApp::StartLease(bool request_handover) {
  lease_.reset();
  handover_.Reset();
  v1::AcquireLeaseRequest request;
  request.set_session_id(session_.id());
  request.set_client_name(options_.client_name);
  request.set_client_kind("raw");
  request.set_client_pid(options_.client_pid);
  request.set_request_handover(request_handover);
  write_ = Write::kAcquiring;
  LeaseHolder::Callbacks callbacks;
  callbacks.granted = [this, request_handover](const std::string& id) {
    bool was_following = write_ == Write::kReadOnly || write_ == Write::kRequesting ||
                         request_handover;
    write_ = Write::kHeld;
    want_write_ = true;
    lease_id_ = id;
    holder_.clear();
    if (was_following) {
      transcript_.AddInfoText("You hold this session now: your messages go to the agent.");
    }
  };
  callbacks.waiting = [this](const v1::LeaseHolder& holder) {
    write_ = Write::kRequesting;
    holder_ = NameOf(holder);
    transcript_.AddInfoText(absl::StrCat("Asked ", holder_, " for this session; waiting for it to hand it over",
                                         glyphs_.ellipsis));
  };
  callbacks.handover_requested = [this](const v1::LeaseHolder& requester) {
    if (write_ != Write::kHeld) return;
    bool running = transcript_.turn_running() || transcript_.compacting();
    handover_.Requested(requester, running);
    transcript_.AddInfoText(
        absl::StrCat(NameOf(requester), " asks for this session. It is handed over ",
                     running ? "when the turn ends and " : "", "once you pause typing, after a ",
                     absl::FormatDuration(options_.handover.countdown),
                     " countdown; press any key during the countdown to keep it."),
        Level::kWarning);
  };
  callbacks.ended = [this](const absl::Status& status) {
    bool was_requesting = write_ == Write::kRequesting;
    if (status.ok() || absl::IsCancelled(status)) {
      if (write_ == Write::kHeld || was_requesting) write_ = Write::kReadOnly;
      return;
    }
    if (absl::IsFailedPrecondition(status)) {
      write_ = Write::kReadOnly;
      want_write_ = false;
      if (was_requesting) {
        transcript_.AddInfoText(
            absl::StrCat(holder_.empty() ? "The other client" : holder_,
                         " keeps this session; following it read-only (Ctrl-T asks again)."),
            Level::kWarning);
        return;
      }
      holder_ = HolderFrom(status.message());
      if (holder_.empty()) holder_ = session_.writer();
      transcript_.AddInfoText(
          holder_.empty()
              ? absl::StrCat(status.message(), ". Following it read-only; Ctrl-T asks for it.")
              : absl::StrCat("This session is open for writing in ", holder_,
                             ". Following it read-only; Ctrl-T asks for it."),
          Level::kWarning);
      RefreshSession();
      return;
    }
    // Otherwise the daemon went away: the event stream reports it, and the
    // lease is asked for again after reconnecting (want_write_).
  };
  lease_ = std::make_unique<LeaseHolder>(client_, ui_, request, std::move(callbacks));
}

void TuiApp::RequestHandover() {
  if (write_ != Write::kReadOnly || !connected_) return;
  transcript_.AddInfoText(absl::StrCat("Asking ", holder_.empty() ? "the other client" : holder_,
                                       " to hand this session over", glyphs_.ellipsis));
  StartLease(/*request_handover=*/true);
}

void TuiApp::TickHandover(absl::Time now) {
  if (write_ != Write::kHeld || handover_.phase() == client::HandoverGate::Phase::kNone) return;
  std::string requester = NameOf(handover_.requester());
  bool running = transcript_.turn_running() || transcript_.compacting();
  if (!handover_.Tick(running, now)) return;
  // Released: the requester is granted the lease; this client follows.
  lease_.reset();
  lease_id_.clear();
  write_ = Write::kReadOnly;
  want_write_ = false;
  holder_ = requester;
  transcript_.AddInfoText(absl::StrCat("Handed this session over to ", requester,
                                       "; following it read-only (Ctrl-T asks for it back)."));
}

bool TuiApp::KeepLeaseOnKey(absl::Time now) {
  if (write_ != Write::kHeld) {
    handover_.KeyPressed(now);
    return false;
  }
  std::string requester = NameOf(handover_.requester());
  if (!handover_.KeyPressed(now)) return false;
  transcript_.AddInfoText(absl::StrCat("You keep this session; ", requester, " was told so."));
  v1::DeclineHandoverRequest request;
  request.set_session_id(session_.id());
  request.set_lease_id(lease_id_);
  worker_.Run([this, client = client_, request] {
    auto response = client->DeclineHandover(request);
    if (response.ok()) return;
    ui_.Post([this, status = response.status()] {
      AddError("Cannot decline the handover", status);
    });
  });
  return true;
}

std::string TuiApp::HandoverStatus(absl::Time now) const {
  if (write_ == Write::kRequesting) {
    return absl::StrCat("Waiting for ", holder_.empty() ? "the other client" : holder_,
                        " to hand this session over");
  }
  if (write_ != Write::kHeld) return "";
  std::string requester = NameOf(handover_.requester());
  switch (handover_.phase()) {
    case client::HandoverGate::Phase::kAfterTurn:
      return absl::StrCat(requester, " asks for this session: handed over after this turn");
    case client::HandoverGate::Phase::kUntilIdle:
      return absl::StrCat(requester, " asks for this session: handed over once you pause");
    case client::HandoverGate::Phase::kCountdown:
      return absl::StrCat("Handing this session over to ", requester, " in ",
                          handover_.SecondsLeft(now), " s: press any key to keep it");
    case client::HandoverGate::Phase::kNone:
      break;
  }
  return "";
}

}  // namespace raw::tui
