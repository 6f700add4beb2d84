// TuiApp: how the session's write lease looks in the terminal. The lease
// itself, its handover rule and the calls are client::SessionLease's; this
// file turns its changes into transcript lines and the status line.
#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"

namespace raw::tui {
namespace {

using Change = client::SessionLease::Change;
using State = client::SessionLease::State;

std::string NameOf(const v1::LeaseHolder& holder) {
  return holder.client_name().empty() ? "another client" : holder.client_name();
}

}  // namespace

std::string TuiApp::HolderName() const {
  return lease_.holder().empty() ? "another client" : lease_.holder();
}

void TuiApp::OnLeaseChange(Change change, State before) {
  switch (change) {
    case Change::kGranted:
      if (before == State::kFollowing || before == State::kRequesting) {
        transcript_.AddInfoText("You hold this session now: your messages go to the agent.");
      }
      return;
    case Change::kFollowing:
      if (lease_.holder().empty()) lease_.set_holder(session_.writer());
      transcript_.AddInfoText(
          lease_.holder().empty()
              ? absl::StrCat(lease_.status().message(), ". Following it read-only; Ctrl-T asks for it.")
              : absl::StrCat("This session is open for writing in ", lease_.holder(),
                             ". Following it read-only; Ctrl-T asks for it."),
          Level::kWarning);
      RefreshSession();
      return;
    case Change::kWaiting:
      transcript_.AddInfoText(absl::StrCat("Asked ", HolderName(),
                                           " for this session; waiting for it to hand it over",
                                           glyphs_.ellipsis));
      return;
    case Change::kDeclined:
      transcript_.AddInfoText(
          absl::StrCat(HolderName(), " keeps this session; following it read-only (Ctrl-T asks again)."),
          Level::kWarning);
      return;
    case Change::kHandoverRequested: {
      bool running = transcript_.turn_running() || transcript_.compacting();
      transcript_.AddInfoText(
          absl::StrCat(NameOf(lease_.requester()), " asks for this session. It is handed over ",
                       running ? "when the turn ends and " : "", "once you pause typing, after a ",
                       absl::FormatDuration(options_.handover.countdown),
                       " countdown; press any key during the countdown to keep it."),
          Level::kWarning);
      return;
    }
    case Change::kHandedOver:
      transcript_.AddInfoText(absl::StrCat("Handed this session over to ", HolderName(),
                                           "; following it read-only (Ctrl-T asks for it back)."));
      return;
    case Change::kKept:
      transcript_.AddInfoText(
          absl::StrCat("You keep this session; ", NameOf(lease_.requester()), " was told so."));
      return;
    case Change::kLost:
      // The daemon went away: the event stream reports it, and the lease is
      // asked for again after reconnecting.
      return;
  }
}

void TuiApp::RequestHandover() {
  if (lease_.state() != State::kFollowing || !connected_) return;
  transcript_.AddInfoText(absl::StrCat("Asking ", HolderName(), " to hand this session over",
                                       glyphs_.ellipsis));
  lease_.RequestHandover();
}

std::string TuiApp::HandoverStatus(absl::Time now) const {
  if (lease_.state() == State::kRequesting) {
    return absl::StrCat("Waiting for ", HolderName(), " to hand this session over");
  }
  if (lease_.state() != State::kHeld) return "";
  std::string requester = NameOf(lease_.requester());
  switch (lease_.gate().phase()) {
    case client::HandoverGate::Phase::kAfterTurn:
      return absl::StrCat(requester, " asks for this session: handed over after this turn");
    case client::HandoverGate::Phase::kUntilIdle:
      return absl::StrCat(requester, " asks for this session: handed over once you pause");
    case client::HandoverGate::Phase::kCountdown:
      return absl::StrCat("Handing this session over to ", requester, " in ",
                          lease_.gate().SecondsLeft(now), " s: press any key to keep it");
    case client::HandoverGate::Phase::kNone:
      break;
  }
  return "";
}

}  // namespace raw::tui
