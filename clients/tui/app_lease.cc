// TuiApp: the session's write lease (one writer per session; followers
// read only and may take over).
#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"

namespace raw::tui {
namespace {

// The holder named in the daemon's refusal: 'session S is open for writing
// in "NAME" (since ...)'; empty when the message has another form.
std::string HolderFrom(absl::string_view message) {
  constexpr absl::string_view kIn = "in \"";
  size_t start = message.find(kIn);
  if (start == absl::string_view::npos) return "";
  start += kIn.size();
  size_t end = message.find('"', start);
  if (end == absl::string_view::npos) return "";
  return std::string(message.substr(start, end - start));
}

}  // namespace

void TuiApp::StartLease(bool take_over) {
  lease_.reset();
  v1::AcquireLeaseRequest request;
  request.set_session_id(session_.id());
  request.set_client_name(options_.client_name);
  request.set_request_handover(take_over);
  write_ = Write::kAcquiring;
  LeaseHolder::Callbacks callbacks;
  callbacks.granted = [this, take_over](const std::string& id) {
    bool was_read_only = write_ == Write::kReadOnly || take_over;
    write_ = Write::kHeld;
    want_write_ = true;
    lease_id_ = id;
    holder_.clear();
    if (was_read_only) transcript_.AddInfoText("You hold this session now: your messages go to the agent.");
  };
  callbacks.lost = [this](const std::string& by) {
    write_ = Write::kReadOnly;
    want_write_ = false;
    lease_id_.clear();
    holder_ = by;
    transcript_.AddInfoText(
        absl::StrCat(by.empty() ? "Another client" : by,
                     " took over this session; following it read-only (Ctrl-T takes it back)."),
        Level::kWarning);
  };
  callbacks.ended = [this](const absl::Status& status) {
    if (status.ok() || absl::IsCancelled(status)) {
      if (write_ == Write::kHeld) write_ = Write::kReadOnly;
      return;
    }
    if (absl::IsUnimplemented(status)) {
      // A daemon without leases accepts writes without one.
      write_ = Write::kNoLeases;
      return;
    }
    if (absl::IsFailedPrecondition(status)) {
      write_ = Write::kReadOnly;
      want_write_ = false;
      holder_ = HolderFrom(status.message());
      if (holder_.empty()) holder_ = session_.writer();
      transcript_.AddInfoText(
          holder_.empty()
              ? absl::StrCat(status.message(), ". Following it read-only; Ctrl-T takes it over.")
              : absl::StrCat("This session is open for writing in ", holder_,
                             ". Following it read-only; Ctrl-T takes it over."),
          Level::kWarning);
      RefreshSession();
      return;
    }
    // Otherwise the daemon went away: the event stream reports it, and the
    // lease is asked for again after reconnecting (want_write_).
  };
  lease_ = std::make_unique<LeaseHolder>(client_, ui_, request, std::move(callbacks));
}

}  // namespace raw::tui
