// The dashboard's prompts in a real browser (see dashboard_browser_test.cc):
// what an approval prompt offers for each call of a batch, a handover
// request arriving while the user types, and a prompt whose turn is still
// being prepared.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard_browser/browser_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

// In the "default" mode read_file runs without asking and bash asks: the
// prompt lists both, but only bash waits for an answer, with the rules
// "allow for this session" adds. Its program option (session_rule 1) makes
// the next "touch" run without a prompt.
TEST_F(DashboardBrowserTest, ApprovalPromptOffersAnswersOnlyForWaitingCalls) {
  StartAll();
  if (IsSkipped()) return;
  fake_.Enqueue(chat::ToolCallsAnswer({{"call_r", "read_file", R"({"path":"README.md"})"},
                                       {"call_b", "bash", R"({"command":"touch x"})"}}));
  fake_.Enqueue(chat::TextAnswer("Touched."));
  fake_.Enqueue(chat::ToolCallsAnswer({{"call_c", "bash", R"({"command":"touch y"})"}}));
  fake_.Enqueue(chat::TextAnswer("Touched again."));
  Json r = Drive("approval_states");
  EXPECT_EQ(r.value("title", ""), "1 of 2 calls needs approval");
  // Nothing left out of the panel shows as "null".
  EXPECT_THAT(r.value("panelStart", ""), Not(HasSubstr("null"))) << r.dump();
  const Json calls = r.value("calls", Json::array());
  ASSERT_EQ(calls.size(), 2u) << r.dump();
  EXPECT_EQ(calls[0].value("state", ""), "decided");
  EXPECT_EQ(calls[0].value("enabledButtons", -1), 0);
  EXPECT_THAT(calls[0].value("text", ""), HasSubstr("allowed without asking"));
  EXPECT_EQ(calls[1].value("state", ""), "pending");
  EXPECT_THAT(calls[1].value("text", ""), HasSubstr("needs your approval"));
  EXPECT_THAT(calls[1].value("text", ""), HasSubstr(R"(allow builtin/bash command "touch x")"));
  EXPECT_THAT(calls[1].value("text", ""), HasSubstr(R"(allow builtin/bash command "touch *")"));
  EXPECT_EQ(calls[1].value("enabledButtons", -1), 4);  // allow, session, program, deny
  EXPECT_THAT(r.value("batchButtons", Json::array()).dump(), HasSubstr("Allow the 1 waiting"));
  // One answer, for bash only, with the program option.
  EXPECT_EQ(r["approves"],
            Json::parse(R"([{"call_ids":["call_b"],"decision":"allow_session","session_rule":1}])"))
      << r.dump();
  EXPECT_EQ(r.value("approvalRecords", -1), 1);
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/x"));
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/y"));
  ASSERT_EQ(fake_.requests().size(), 4u);
}

// Another tab asks to write while the writer types in the message box: the
// focus stays there, the typed keys land in the box, nothing hands over.
// When the writer's tab then closes, the follower writes.
TEST_F(DashboardBrowserTest, AHandoverRequestLeavesTheTypingInTheMessageBox) {
  StartAll();
  if (IsSkipped()) return;
  Json r = Drive("handover");
  EXPECT_EQ(r.value("focusedOnRequest", ""), "compose");
  EXPECT_EQ(r.value("focused", ""), "compose");
  EXPECT_EQ(r.value("compose", ""), "fix the tests more");
  EXPECT_EQ(r.value("lease", ""), "holding");
  EXPECT_EQ(r.value("releases", -1), 0);
  EXPECT_EQ(r.value("otherAfterDecline", ""), "follower");
  // The writer's tab closed: the follower took the session by itself.
  EXPECT_EQ(r.value("otherAfterWriterLeft", ""), "holding");
}

// The model needs a variable whose command blocks: StartTurn waits while
// rawd prepares the turn. The page shows the turn as starting, keeps a
// second prompt back, and Interrupt ends the preparation.
TEST_F(DashboardBrowserTest, APromptBeingPreparedCanBeInterrupted) {
  char dir_template[] = "/tmp/raw-preparing-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string started = dir + "/started", release = dir + "/release";
  ASSERT_EQ(mkfifo(started.c_str(), 0600), 0);
  ASSERT_EQ(mkfifo(release.c_str(), 0600), 0);
  const int started_fd = open(started.c_str(), O_RDONLY | O_NONBLOCK);
  const std::string variable = dir + "/slow-variable";
  std::ofstream(variable) << "#!/bin/sh\necho up > " << started << "\ncat " << release
                          << " >/dev/null\necho v\n";
  chmod(variable.c_str(), 0755);
  daemon_ = std::make_unique<TestDaemon>(absl::StrReplaceAll(
      kBrowserTestConfig,
      {{"${BASE_URL}", fake_.base_url()},
       {R"("default_agent": "coder",)",
        absl::StrCat(R"("default_agent": "coder", "variables": {"SLOW": {"command": [")", variable,
                     R"("], "timeout_seconds": 120}},)")},
       {R"("context_window_tokens": 100000})",
        R"("context_window_tokens": 100000, "headers": {"X-Slow": "${SLOW}"}})"}}));
  StartAll();
  if (IsSkipped()) return;
  Json r = Drive("preparing", {}, [&](const std::string& step) {
    if (step != "sent") return;
    struct pollfd pfd = {started_fd, POLLIN, 0};
    EXPECT_EQ(poll(&pfd, 1, 60'000), 1) << "the variable's command never ran";
  });
  // Whatever still reads the FIFO goes on; then the files go.
  if (int fd = open(release.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0) {
    (void)!write(fd, "x\n", 2);
    close(fd);
  }
  close(started_fd);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.value("footerState", ""), "starting…");
  EXPECT_TRUE(r.value("sendDisabled", false));
  EXPECT_THAT(r.value("hintOnResend", ""), HasSubstr("still being prepared"));
  EXPECT_THAT(r.value("hintAfterInterrupt", ""), HasSubstr("interrupted before it started"));
  EXPECT_EQ(r.value("compose", ""), "again");
  EXPECT_TRUE(r.value("interruptDisabledAfter", false));
  EXPECT_EQ(r.value("prompts", -1), 1);
  EXPECT_TRUE(fake_.requests().empty());
}

}  // namespace
}  // namespace raw::e2e
