// `raw run`'s question on a terminal: only what is typed after it is asked
// answers it.
#include "clients/cli/approval_prompter.h"

#include <poll.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace raw::cli {
namespace {

// A stream for the prompt that lets the test wait until the question is
// asked: the prompter flushes after each question.
class PromptSink : public std::stringbuf {
 public:
  // Waits until "Allow?" has been flushed `count` times in all.
  void WaitForQuestion(int count) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return questions_ >= count; });
  }

 protected:
  int sync() override {
    std::string text = str();
    int questions = 0;
    for (size_t at = 0; (at = text.find("Allow?", at)) != std::string::npos; ++at) ++questions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      questions_ = questions;
    }
    cv_.notify_all();
    return 0;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int questions_ = 0;
};

v1::ApprovalRequested OneCall() {
  v1::ApprovalRequested request;
  request.set_request_id("r1");
  v1::ApprovalCall* call = request.add_calls();
  call->set_call_id("c1");
  call->set_tool("builtin/bash");
  call->set_arguments(R"({"command":"rm -rf build"})");
  call->set_state(v1::APPROVAL_STATE_PENDING);
  return request;
}

void WriteAll(int fd, const std::string& text) {
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

// Asks on `prompter` (on a thread of its own, as TurnRunner does); once the
// question is the `question`-th flushed to `sink`, types `answer` on `fd`.
ApprovalChoice AskAndAnswer(ApprovalPrompter& prompter, PromptSink& sink, int question, int fd,
                            const std::string& answer) {
  CancelToken cancel;
  ApprovalChoice choice;
  std::thread asking([&] { choice = prompter.Decide(OneCall(), cancel); });
  sink.WaitForQuestion(question);
  WriteAll(fd, answer);
  asking.join();
  return choice;
}

// A line typed before the question (a "y" meant for something else, still
// in the terminal's input queue) does not answer it.
TEST(ApprovalPrompterTest, InputTypedBeforeTheQuestionIsDropped) {
  int master = -1;
  int slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  termios mode{};
  ASSERT_EQ(tcgetattr(slave, &mode), 0);
  mode.c_lflag &= ~static_cast<tcflag_t>(ECHO);  // nothing to read back on the master
  ASSERT_EQ(tcsetattr(slave, TCSANOW, &mode), 0);
  WriteAll(master, "y\n");
  // The line is in the terminal's input queue before the question.
  pollfd ready{slave, POLLIN, 0};
  ASSERT_EQ(poll(&ready, 1, -1), 1);

  PromptSink sink;
  std::ostream err(&sink);
  std::unique_ptr<ApprovalPrompter> prompter = MakeTerminalApprovalPrompter(slave, err);
  ApprovalChoice choice = AskAndAnswer(*prompter, sink, 1, master, "n\n");
  EXPECT_EQ(choice.decision, v1::APPROVAL_DECISION_DENY);
  close(slave);
  close(master);
}

// A line read along with the answer to one question (typed ahead) does not
// answer the next one.
TEST(ApprovalPrompterTest, ALineLeftFromTheLastQuestionIsDropped) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  PromptSink sink;
  std::ostream err(&sink);
  std::unique_ptr<ApprovalPrompter> prompter = MakeTerminalApprovalPrompter(fds[0], err);
  // One read takes both lines: "y" answers the first question.
  ApprovalChoice first = AskAndAnswer(*prompter, sink, 1, fds[1], "y\na\n");
  EXPECT_EQ(first.decision, v1::APPROVAL_DECISION_ALLOW_ONCE);
  ApprovalChoice second = AskAndAnswer(*prompter, sink, 2, fds[1], "n\n");
  EXPECT_EQ(second.decision, v1::APPROVAL_DECISION_DENY);
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace raw::cli
