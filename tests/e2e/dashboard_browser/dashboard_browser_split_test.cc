// Scrolling back over a page boundary that falls inside a tool batch and
// between an approval and its answer (see dashboard_browser_test.cc for the
// fixture): the call shows once, with its arguments and its result, and the
// approval as answered.
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/events/session_event.h"
#include "daemon/store/database_files.h"
#include "daemon/store/session_store.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard_browser/browser_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A session of 204 events, so that the newest page (200 events) starts at
// event 5: events 1-4 (the first turn's start, its question, a batch of
// one bash call and the approval it asked for) are on the older page; the
// answer, the call's start and result, and the rest on the newest.
std::string SeedSplitBatch(const TestDaemon& daemon) {
  const std::string id = "sess_splitbatch000001";
  std::filesystem::create_directories(daemon.state_dir());
  auto opened =
      store::SessionStore::Open(absl::StrCat(daemon.state_dir(), "/", store::DatabaseFileName()));
  EXPECT_TRUE(opened.ok()) << opened.status();
  if (!opened.ok()) return "";
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  store::SessionRecord record;
  record.id = id;
  record.agent = "coder";
  record.cwd = daemon.workdir();
  record.created_at_unix_ms = now_ms;
  record.last_activity_unix_ms = now_ms;
  EXPECT_TRUE((*opened)->CreateSession(record).ok());
  const std::string args = R"({"command":"echo split-batch"})";
  std::vector<std::pair<std::string, events::EventPayload>> payloads = {
      {"turn_1", events::TurnStarted{"run it"}},
      {"turn_1", events::UserMessage{"run it"}},
      {"turn_1", events::ToolCallBatch{{{"c1", "bash", "builtin/bash", args}}}},
      {"turn_1",
       events::ApprovalRequested{
           "r1",
           {{"c1", "bash", "builtin/bash", args, events::ApprovalState::kPending, "bash asks", {}}},
           300000}},
      {"turn_1", events::ApprovalResolved{"r1",
                                          {{"c1", events::ApprovalDecision::kAllowOnce, "", 0}},
                                          events::ApprovalResolution::kAnswered}},
      {"turn_1", events::ToolStarted{"c1", "bash", "builtin/bash"}},
      {"turn_1", events::ToolResult{"c1", "bash", "builtin/bash", events::ToolStatus::kOk,
                                    "split-batch\n", 3, "", ""}},
      {"turn_1", events::AssistantMessage{"It ran.", "", 1}},
      // Three notices make the count come out at 204 with whole turns.
      {"turn_1", events::Notice{events::NoticeLevel::kInfo, "note 1"}},
      {"turn_1", events::Notice{events::NoticeLevel::kInfo, "note 2"}},
      {"turn_1", events::Notice{events::NoticeLevel::kInfo, "note 3"}},
      {"turn_1", events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, std::nullopt}},
  };
  for (int k = 2; k <= 49; ++k) {
    const std::string turn = absl::StrCat("turn_", k);
    const std::string question = absl::StrCat("question number ", k);
    payloads.push_back({turn, events::TurnStarted{question}});
    payloads.push_back({turn, events::UserMessage{question}});
    payloads.push_back({turn, events::AssistantMessage{absl::StrCat("answer ", k), "", 1}});
    payloads.push_back(
        {turn, events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, std::nullopt}});
  }
  EXPECT_EQ(payloads.size(), 204u);
  store::CommitBatch batch;
  batch.title = "Split batch";
  uint64_t seq = 0;
  for (auto& [turn, payload] : payloads) {
    events::SessionEvent e;
    e.session_id = id;
    e.seq = ++seq;
    e.turn_id = turn;
    e.time_unix_ms = now_ms;
    e.payload = std::move(payload);
    batch.events.push_back(std::move(e));
  }
  absl::Status s = (*opened)->Commit(id, batch);
  EXPECT_TRUE(s.ok()) << s;
  return id;
}

TEST_F(DashboardBrowserTest, ScrollBackJoinsACallAndItsResultAcrossAPageBoundary) {
  std::string session = SeedSplitBatch(*daemon_);
  StartAll();
  if (IsSkipped()) return;
  // No screenshot: the documentation's is the long history's.
  Json r = Drive("history", {{"SESSION", session}, {"FIRST_SEQ", "2"}, {"SCREENSHOT_DIR", ""}});
  EXPECT_THAT(r.value("firstText", ""), HasSubstr("run it"));
  EXPECT_EQ(r.value("pages", 0), 2);
  const Json cards = r.value("cards", Json::array());
  ASSERT_EQ(cards.size(), 1u) << r.dump();
  EXPECT_EQ(cards[0].value("callId", ""), "c1");
  EXPECT_EQ(cards[0].value("status", ""), "ok");
  EXPECT_THAT(cards[0].value("text", ""), HasSubstr("echo split-batch"));
  EXPECT_THAT(cards[0].value("text", ""), HasSubstr("split-batch"));
  const Json approvals = r.value("approvals", Json::array());
  ASSERT_EQ(approvals.size(), 1u) << r.dump();
  EXPECT_THAT(approvals[0].get<std::string>(), HasSubstr("Approval answered"));
  EXPECT_THAT(approvals[0].get<std::string>(), Not(HasSubstr("Waiting")));
}

}  // namespace
}  // namespace raw::e2e
