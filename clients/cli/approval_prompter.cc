#include "clients/cli/approval_prompter.h"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "clients/present/approval_text.h"
#include "clients/present/terminal_text.h"

namespace raw::cli {
namespace {

class AutoApprove : public ApprovalPrompter {
 public:
  ApprovalChoice Decide(const v1::ApprovalRequested&, const CancelToken&) override {
    return {v1::APPROVAL_DECISION_ALLOW_ONCE, ""};
  }
};

class NoTerminal : public ApprovalPrompter {
 public:
  ApprovalChoice Decide(const v1::ApprovalRequested&, const CancelToken&) override {
    return {v1::APPROVAL_DECISION_DENY,
            "raw run had no terminal to ask the user and was not given --yes", 0,
            /*unattended=*/true};
  }
};

class TerminalPrompt : public ApprovalPrompter {
 public:
  TerminalPrompt(int fd, std::ostream& err) : fd_(fd), err_(err) {}

  ApprovalChoice Decide(const v1::ApprovalRequested& request, const CancelToken& cancel) override {
    // Only what is typed once this question is asked answers it: lines
    // typed ahead (for the prompt, or one more than an earlier question
    // took) are dropped, whether read already or still in the terminal's
    // input queue.
    pending_.clear();
    if (isatty(fd_) == 1) tcflush(fd_, TCIFLUSH);
    // The EventPrinter has shown the batch and the session rules.
    bool wider = present::SessionOptionCount(request) > 1;
    Say(absl::StrCat(present::SanitizeForStream(present::ApprovalRecap(request)), "\n"));
    for (;;) {
      // Each message is one write (std::cerr writes every << at once), so
      // nothing typed meanwhile is echoed into the middle of it.
      Say(absl::StrCat("Allow? [y] once  [a] for this session",
                       wider ? " (exact)  [p] for this session (program patterns)" : "",
                       "  [n] deny  [m] deny with a message: "));
      std::optional<std::string> line = ReadLine(cancel);
      if (!line) return {v1::APPROVAL_DECISION_DENY, "interrupted by the user"};
      std::string answer = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*line));
      if (answer == "y" || answer == "yes") return {v1::APPROVAL_DECISION_ALLOW_ONCE, ""};
      if (answer == "a") return {v1::APPROVAL_DECISION_ALLOW_SESSION, "", 0};
      if (answer == "p" && wider) return {v1::APPROVAL_DECISION_ALLOW_SESSION, "", 1};
      if (answer == "n" || answer == "no") return {v1::APPROVAL_DECISION_DENY, ""};
      if (answer == "m") {
        Say("Message for the model: ");
        std::optional<std::string> message = ReadLine(cancel);
        if (!message) return {v1::APPROVAL_DECISION_DENY, "interrupted by the user"};
        return {v1::APPROVAL_DECISION_DENY, std::string(absl::StripAsciiWhitespace(*message))};
      }
      // Anything else is asked again, saying why.
      Say(absl::StrCat("Not an answer; type ", wider ? "y, a, p, n or m" : "y, a, n or m",
                       " and press Enter.\n"));
    }
  }

 private:
  void Say(const std::string& text) {
    err_ << text;
    err_.flush();
  }

  // One line from fd_, or nullopt on end of input or cancellation.
  std::optional<std::string> ReadLine(const CancelToken& cancel) {
    std::string line;
    for (;;) {
      size_t nl = pending_.find('\n');
      if (nl != std::string::npos) {
        line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        return line;
      }
      pollfd fds[2] = {{fd_, POLLIN, 0}, {cancel.fd(), POLLIN, 0}};
      int n = poll(fds, 2, -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || (fds[1].revents & POLLIN) != 0) return std::nullopt;
      char buf[256];
      ssize_t got = read(fd_, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return std::nullopt;
      pending_.append(buf, static_cast<size_t>(got));
    }
  }

  int fd_;
  std::ostream& err_;
  std::string pending_;
};

}  // namespace

std::unique_ptr<ApprovalPrompter> MakeTerminalApprovalPrompter(int input_fd, std::ostream& err) {
  return std::make_unique<TerminalPrompt>(input_fd, err);
}

std::unique_ptr<ApprovalPrompter> MakeApprovalPrompter(bool yes, int input_fd, std::ostream& err) {
  if (yes) return std::make_unique<AutoApprove>();
  if (isatty(input_fd) == 1 && isatty(STDERR_FILENO) == 1) {
    return MakeTerminalApprovalPrompter(input_fd, err);
  }
  return std::make_unique<NoTerminal>();
}

}  // namespace raw::cli
