// The dashboard's layout, focus and live updates in a real browser (see
// dashboard_browser_test.cc for the fixture): the page never scrolls, a
// phone-sized window, sections that stay open while an answer streams,
// keys typed while a session opens, the session list's times, count and
// focus, a long approval, and the Details panel during a turn.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/events/session_event.h"
#include "daemon/store/database_files.h"
#include "daemon/store/session_store.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard_browser/browser_fixture.h"
#include "tests/e2e/dashboard_browser/seeded_turns.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

// Writes sessions into rawd's database before it starts: session k
// ("Session k", last active `now - k` minutes) holds `turns` turns of a
// question and a three-paragraph answer. Returns their ids, newest first.
std::vector<std::string> SeedSessions(const TestDaemon& daemon, int sessions, int turns,
                                      int64_t now_ms) {
  std::filesystem::create_directories(daemon.state_dir());
  auto opened =
      store::SessionStore::Open(absl::StrCat(daemon.state_dir(), "/", store::DatabaseFileName()));
  EXPECT_TRUE(opened.ok()) << opened.status();
  if (!opened.ok()) return {};
  std::vector<std::string> ids;
  for (int s = 0; s < sessions; ++s) {
    const std::string id = absl::StrCat("sess_layout", 100000 + s);
    const int64_t at_ms = now_ms - int64_t{s} * 60'000;
    store::SessionRecord record;
    record.id = id;
    record.agent = "coder";
    record.cwd = daemon.workdir();
    record.created_at_unix_ms = at_ms;
    record.last_activity_unix_ms = at_ms;
    EXPECT_TRUE((*opened)->CreateSession(record).ok());
    store::CommitBatch batch;
    batch.title = absl::StrCat("Session ", s);
    AppendSeededTurns(
        id, turns, at_ms,
        [](int k) {
          return absl::StrCat("answer number ", k, "\n\nA second paragraph.\n\nA third one.");
        },
        batch);
    absl::Status status = (*opened)->Commit(id, batch);
    EXPECT_TRUE(status.ok()) << status;
    ids.push_back(id);
  }
  return ids;
}

// Each user message has a heading only screen readers read; absolutely
// placed, it once escaped the transcript and made the page 70,000 px high.
TEST_F(DashboardBrowserTest, ALongConversationNeverScrollsThePage) {
  std::vector<std::string> ids = SeedSessions(*daemon_, 1, 50, absl::ToUnixMillis(absl::Now()));
  ASSERT_EQ(ids.size(), 1u);
  StartAll();
  if (IsSkipped()) return;
  Json r = Drive("long_page", {{"SESSION", ids[0]}, {"SCREENSHOT_DIR", ""}});
  EXPECT_EQ(r.value("userItems", 0), 50);
  EXPECT_TRUE(r.value("transcriptScrolls", false));
  for (const char* when : {"opened", "afterScrollIntoView"}) {
    const Json page = r.value(when, Json::object());
    EXPECT_LE(page.value("scrollHeight", 1e9), page.value("innerHeight", 0))
        << when << ": " << r.dump();
    EXPECT_LE(page.value("scrollWidth", 1e9), page.value("innerWidth", 0)) << when;
    EXPECT_EQ(page.value("topbarTop", -1.0), 0.0) << when;
  }
}

// At 375 px the session list sits above the New-session form, the
// conversation keeps the width beside an open Details panel, which the
// Details button and its own Hide button close, and a wide table scrolls
// sideways inside its answer with its words whole.
TEST_F(DashboardBrowserTest, APhoneSizedWindowKeepsEveryPartUsable) {
  StartAll();
  if (IsSkipped()) return;
  fake_.Enqueue(chat::TextAnswer(
      "| language | setting | documentation | configuration | value | notes |\n"
      "|---|---|---|---|---|---|\n"
      "| internationalization | a | explained | everywhere | enabled | nothing to add |\n"));
  Json r = Drive("narrow", {{"SCREENSHOT_DIR", ""}});
  const Json sessions = r.value("sessionsBox", Json::object());
  const Json form = r.value("formBox", Json::object());
  EXPECT_GE(sessions.value("width", 0.0), 300.0) << r.dump();
  EXPECT_GE(form.value("top", 0.0), sessions.value("bottom", 1e9)) << r.dump();
  const Json details = r.value("withDetails", Json::object());
  EXPECT_GE(details["conversation"].value("width", 0.0), 300.0) << r.dump();
  EXPECT_LE(details["details"].value("right", 1e9), 375.0) << r.dump();
  EXPECT_TRUE(details.value("toggleReachable", false)) << r.dump();
  EXPECT_TRUE(details.value("closeReachable", false)) << r.dump();
  EXPECT_LE(details["page"].value("scrollWidth", 1e9), 375) << r.dump();
  EXPECT_EQ(r.value("hiddenByToggle", ""), "false");
  EXPECT_EQ(r.value("focusAfterHide", ""), "details-toggle");
  const Json table = r.value("table", Json::object());
  EXPECT_EQ(table.value("display", ""), "block");
  EXPECT_TRUE(table.value("scrollsSideways", false)) << r.dump();
  EXPECT_TRUE(table.value("withinAnswer", false)) << r.dump();
  // "internationalization" on one line, as tall as the cell with "a".
  EXPECT_EQ(table.value("longWordHeight", 0.0), table.value("shortWordHeight", -1.0)) << r.dump();
  EXPECT_LE(r["pageAfterTable"].value("scrollWidth", 1e9), 375) << r.dump();
}

// The reader opens Reasoning while the answer streams: the next deltas
// draw the item again, and Reasoning stays open. The transcript is no live
// region (it would read the growing answer out again at every delta); the
// turn's end is announced instead.
TEST_F(DashboardBrowserTest, ReasoningOpenedDuringAStreamStaysOpen) {
  StartAll();
  if (IsSkipped()) return;
  testing::ScriptedResponse answer =
      chat::Stream({chat::RoleChunk(), chat::ReasoningChunk("thinking it over"),
                    chat::TextChunk("part one "), chat::TextChunk("part two"),
                    chat::FinishChunk("stop"), chat::UsageChunk(20, 5), chat::Done()});
  answer.gate_before_chunk = 3;
  fake_.Enqueue(answer);
  Json r = Drive("open_sections", {{"SCREENSHOT_DIR", ""}}, [&](const std::string& step) {
    if (step == "opened") fake_.ReleaseGate();
  });
  EXPECT_TRUE(r.value("openAfterDelta", false)) << r.dump();
  EXPECT_TRUE(r.value("openAtEnd", false)) << r.dump();
  EXPECT_EQ(r.value("transcriptLive", "?"), "");
  EXPECT_EQ(r.value("announced", ""), "Turn completed");
}

// Keys typed right after "Start session", before the conversation is
// there, land in its message box: none runs as a shortcut (d would open
// Details, "g s" go back to the list, ? open the help). A command that
// fails comes back to the box; a font size out of range is brought into
// range where the reader sees it, with a note.
TEST_F(DashboardBrowserTest, KeysTypedWhileASessionOpensLandInTheMessageBox) {
  StartAll();
  if (IsSkipped()) return;
  Json r = Drive("type_ahead", {{"SCREENSHOT_DIR", ""}});
  EXPECT_EQ(r.value("compose", ""), "dogs and ideas?");
  EXPECT_EQ(r.value("focused", ""), "compose");
  EXPECT_THAT(r.value("hash", ""), HasSubstr("#/s/"));
  EXPECT_TRUE(r.value("detailsHidden", false));
  EXPECT_EQ(r.value("dialogs", -1), 0);
  EXPECT_EQ(r["failedCommand"].value("compose", ""), "/agent nosuch");
  EXPECT_THAT(r["failedCommand"].value("hint", ""), HasSubstr("nosuch"));
  EXPECT_EQ(r.value("fontField", ""), "28");
  EXPECT_THAT(r.value("fontNote", ""), HasSubstr("40 became 28 px"));
  EXPECT_EQ(r.value("fontApplied", ""), "28px");
  EXPECT_TRUE(fake_.requests().empty());
}

// 51 sessions: the times in the browser's zone (Asia/Kolkata, UTC+05:30),
// the focus on the first row "More sessions" added, and after a delete on
// the next row's Delete, with the count of the rows shown.
TEST_F(DashboardBrowserTest, TheSessionListKeepsItsCountFocusAndLocalTimes) {
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  std::vector<std::string> ids = SeedSessions(*daemon_, 51, 1, now_ms);
  ASSERT_EQ(ids.size(), 51u);
  StartAll();
  if (IsSkipped()) return;
  Json r = Drive("session_list", {{"SCREENSHOT_DIR", ""}});
  const absl::Time at = absl::FromUnixMillis(now_ms);
  EXPECT_THAT(r.value("meta", ""),
              HasSubstr(absl::FormatTime("%Y-%m-%d %H:%M", at, absl::FixedTimeZone(19800))))
      << r.dump();
  EXPECT_THAT(r.value("meta", ""),
              Not(HasSubstr(absl::FormatTime("%Y-%m-%d %H:%M", at, absl::UTCTimeZone()))));
  EXPECT_EQ(r.value("statusBefore", ""), "50 shown");
  EXPECT_EQ(r.value("rows", 0), 51);
  EXPECT_EQ(r["focusAfterMore"].value("tag", ""), "A") << r.dump();
  EXPECT_EQ(r["focusAfterMore"].value("row", -1), 50) << r.dump();
  EXPECT_EQ(r.value("statusAfterDelete", ""), "50 shown");
  EXPECT_EQ(r.value("firstTitleAfterDelete", ""), "Session 1");
  EXPECT_EQ(r.value("focusAfterDelete", ""), "Delete session Session 1");
}

// A 3,000-character argument: the batch's buttons stay in view and the
// reason line is short (the arguments show in full). Allowing the first of
// two calls marks it allowed and the heading counts the one left.
TEST_F(DashboardBrowserTest, ALongApprovalKeepsItsButtonsInViewAndCountsAnswers) {
  StartAll();
  if (IsSkipped()) return;
  const std::string long_arg(3000, 'q');
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"call_1", "bash", R"({"command":"echo one"})"},
       {"call_2", "bash", absl::StrCat(R"({"command":"echo )", long_arg, R"("})")}}));
  fake_.Enqueue(chat::TextAnswer("Done."));
  Json r = Drive("approval_long", {{"SCREENSHOT_DIR", ""}});
  const Json reachable = r.value("batchReachable", Json::array());
  ASSERT_FALSE(reachable.empty()) << r.dump();
  for (const Json& b : reachable) EXPECT_TRUE(b.get<bool>()) << r.dump();
  for (const Json& reason : r.value("reasons", Json::array())) {
    EXPECT_LE(reason.get<std::string>().size(), 200u) << r.dump();
  }
  EXPECT_GT(r.value("longestArgs", 0), 3000);
  const Json after = r.value("afterFirst", Json::object());
  EXPECT_EQ(after.value("title", ""), "1 of 2 calls needs approval");
  EXPECT_THAT(after.value("first", ""), HasSubstr("allowed"));
  EXPECT_EQ(after.value("firstButtons", -1), 0);
  EXPECT_EQ(after.value("focused", ""), "approval-title");
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[1].body, HasSubstr("one\\n"));
}

// Details open while a turn runs: after its first model request, before
// the turn ends, it counts that request (in the singular) and shows the
// footer's context estimate.
TEST_F(DashboardBrowserTest, DetailsKeepUpWithTheFooterDuringATurn) {
  StartAll();
  if (IsSkipped()) return;
  fake_.Enqueue(chat::ToolCallsAnswer({{"call_1", "bash", R"({"command":"echo hi"})"}}));
  testing::ScriptedResponse rest =
      chat::Stream({chat::RoleChunk(), chat::TextChunk("halfway "), chat::TextChunk("there"),
                    chat::FinishChunk("stop"), chat::UsageChunk(40, 6), chat::Done()});
  rest.gate_before_chunk = 2;
  fake_.Enqueue(rest);
  Json r = Drive("details_live", {{"SCREENSHOT_DIR", ""}}, [&](const std::string& step) {
    if (step == "mid") fake_.ReleaseGate();
  });
  EXPECT_EQ(r.value("before", ""), "0 model requests");
  const Json mid = r.value("mid", Json::object());
  EXPECT_EQ(mid.value("requests", ""), "1 model request");
  EXPECT_EQ(mid.value("turnState", ""), "running");
  EXPECT_THAT(mid.value("details", ""), HasSubstr("~"));
  EXPECT_EQ(mid.value("details", "").substr(sizeof("Context ") - 1),
            mid.value("footer", "").substr(sizeof("context ") - 1))
      << r.dump();
}

}  // namespace
}  // namespace raw::e2e
