// TuiApp: how the session's write lease looks in the terminal. The lease
// itself, its handover rule and the calls are the session controller's
// (client::SessionLease); this file turns its changes into transcript lines
// and the status line.
#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"
#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

using Change = client::SessionLease::Change;
using State = client::SessionLease::State;

// Names other clients chose: on one line, sanitized.
std::string NameOf(const v1::LeaseHolder& holder) {
  return holder.client_name().empty() ? "another client" : SanitizeLine(holder.client_name());
}

}  // namespace

std::string TuiApp::HolderName() const {
  const client::SessionLease& lease = controller_.lease();
  return lease.holder().empty() ? "another client" : SanitizeLine(lease.holder());
}

void TuiApp::OnLeaseChange(Change change, State before) {
  const client::SessionLease& lease = controller_.lease();
  switch (change) {
    case Change::kGranted:
      if (before == State::kFollowing || before == State::kRequesting) {
        transcript_.AddInfoText("You hold this session now: your messages go to the agent.");
      }
      return;
    case Change::kFollowing:
      if (lease.rejoining()) {
        // Back after the daemon restarted, following as before: the client
        // that wrote gets the session back first.
        transcript_.AddInfoText(
            absl::StrCat("Following this session read-only, as before the daemon restarted: ",
                         lease.holder().empty() ? "the client that was writing" : HolderName(),
                         " gets it back first, else this one writes in a few seconds. Ctrl-T "
                         "asks for it."),
            Level::kWarning);
        return;
      }
      transcript_.AddInfoText(
          lease.holder().empty() && !lease.status().ok()
              ? absl::StrCat(lease.status().message(),
                             ". Following it read-only until it lets go; Ctrl-T asks for it.")
              : absl::StrCat("This session is open for writing in ", HolderName(),
                             ". Following it read-only until it lets go; Ctrl-T asks for it."),
          Level::kWarning);
      return;
    case Change::kWriterChanged:
      transcript_.AddInfoText(absl::StrCat(HolderName(),
                                           " writes to this session now; following it read-only "
                                           "until it lets go (Ctrl-T asks for it)."));
      return;
    case Change::kWaiting:
      transcript_.AddInfoText(absl::StrCat("Asked ", HolderName(),
                                           " for this session; waiting for it to hand it over",
                                           glyphs_.ellipsis));
      return;
    case Change::kDeclined:
      transcript_.AddInfoText(absl::StrCat(HolderName(),
                                           " keeps this session; following it read-only until it "
                                           "lets go (Ctrl-T asks again)."),
                              Level::kWarning);
      return;
    case Change::kHandoverRequested: {
      bool running = Busy();
      transcript_.AddInfoText(
          absl::StrCat(NameOf(lease.requester()), " asks for this session. It is handed over ",
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
    case Change::kHandoverWithdrawn:
      transcript_.AddInfoText(absl::StrCat(NameOf(lease.requester()),
                                           " no longer asks for this session; you keep it."));
      return;
    case Change::kKept:
      transcript_.AddInfoText(
          absl::StrCat("You keep this session; ", NameOf(lease.requester()), " was told so."));
      return;
    case Change::kLost:
      // The daemon went away: the event stream reports it, and the lease is
      // asked for again after reconnecting.
      return;
  }
}

void TuiApp::RequestHandover() {
  const client::SessionLease& lease = controller_.lease();
  if (lease.state() != State::kFollowing || !controller_.connected()) return;
  transcript_.AddInfoText(absl::StrCat("Asking ", HolderName(), " to hand this session over",
                                       glyphs_.ellipsis));
  controller_.RequestHandover();
}

std::string TuiApp::HandoverStatus(absl::Time now) const {
  const client::SessionLease& lease = controller_.lease();
  if (lease.state() == State::kRequesting) {
    return absl::StrCat("Waiting for ", HolderName(), " to hand this session over");
  }
  if (lease.state() != State::kHeld) return "";
  std::string requester = NameOf(lease.requester());
  switch (lease.gate().phase()) {
    case client::HandoverGate::Phase::kAfterTurn:
      return absl::StrCat(requester, " asks for this session: handed over after this turn");
    case client::HandoverGate::Phase::kUntilIdle:
      return absl::StrCat(requester, " asks for this session: handed over once you pause");
    case client::HandoverGate::Phase::kCountdown:
      return absl::StrCat("Handing this session over to ", requester, " in ",
                          lease.gate().SecondsLeft(now), " s: press any key to keep it");
    case client::HandoverGate::Phase::kNone:
      break;
  }
  return "";
}

}  // namespace raw::tui
