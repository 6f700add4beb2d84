// ApprovalPrompter: how `raw run` answers an approval request of its turn.
//
// - With --yes: every pending call is allowed once (deny rules were already
//   applied by the daemon, so they still deny).
// - On a terminal (stdin and stderr are terminals): the batch is shown on
//   stderr, each call with its tool, every argument in full, why it asks and
//   the rules "allow for this session" would add, and one answer read from
//   stdin covers the whole batch: y (allow once), a (allow for this session:
//   the exact rules), p (allow for this session: the program patterns; only
//   offered when a call has them), n (deny), m (deny with a message, read
//   next). Only what is typed after a question is asked answers it: what
//   was typed ahead is dropped when it is asked.
// - Otherwise: every pending call is denied with a message saying that
//   there was no terminal to ask and that --yes approves.
// Threading: Decide runs on a thread of its own (TurnRunner's question
// thread) while the event stream is read, and returns early (as a denial)
// when `cancel` is cancelled: Ctrl-C, or the request was resolved without
// this answer (timed out, answered elsewhere).
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "common/cancel_token.h"
#include "raw/v1/event.pb.h"

namespace raw::cli {

struct ApprovalChoice {
  v1::ApprovalDecision decision = v1::APPROVAL_DECISION_DENY;
  std::string message;
  int session_rule = 0;  // with ALLOW_SESSION: which session_rules option
  // A denial because no one could be asked; `message` says why.
  bool unattended = false;
};

class ApprovalPrompter {
 public:
  virtual ~ApprovalPrompter() = default;
  virtual ApprovalChoice Decide(const v1::ApprovalRequested& request,
                                const CancelToken& cancel) = 0;
};

// `input_fd` is read on a terminal; `err` receives the prompt.
std::unique_ptr<ApprovalPrompter> MakeApprovalPrompter(bool yes, int input_fd, std::ostream& err);

// What MakeApprovalPrompter returns on a terminal, whatever `input_fd` is.
std::unique_ptr<ApprovalPrompter> MakeTerminalApprovalPrompter(int input_fd, std::ostream& err);

}  // namespace raw::cli
