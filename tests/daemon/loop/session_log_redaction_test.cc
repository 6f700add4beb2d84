// SessionLog's redactor: every text that comes from outside Raw is cleaned
// before it is stored or published; what the user typed is not touched.
#include <filesystem>

#include "absl/strings/str_replace.h"
#include "common/time.h"
#include "daemon/loop/session_log.h"

#include "daemon/events/event_codec.h"
#include "gtest/gtest.h"

namespace raw::loop {
namespace {

constexpr char kSecret[] = "s3cret-value";

class SessionLogRedactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/raw-log-redaction-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto store = store::SessionStore::Open(dir_ + "/sessions-v1.sqlite3");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    store::SessionRecord record;
    record.id = "sess_redact";
    record.agent = "coder";
    record.cwd = dir_;
    ASSERT_TRUE(store_->CreateSession(record).ok());
    log_ = std::make_shared<SessionLog>(record.id, 0, *store_, clock_, [] {
      return std::vector<std::string>{kSecret};
    });
  }
  void TearDown() override {
    log_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string dir_;
  SystemClock clock_;
  std::unique_ptr<store::SessionStore> store_;
  std::shared_ptr<SessionLog> log_;
};

TEST_F(SessionLogRedactionTest, OutsideTextIsRedactedBeforeItIsStoredOrPublished) {
  std::unique_ptr<Subscription> sub = log_->Subscribe(0);
  const std::string with_secret = std::string("value: ") + kSecret;
  ASSERT_TRUE(log_->Commit("t1", {events::TurnStarted{with_secret},
                                  events::Notice{events::NoticeLevel::kWarning, with_secret},
                                  events::ToolResult{"c1", "bash", "builtin/bash",
                                                     events::ToolStatus::kOk, with_secret, 0,
                                                     with_secret, {}},
                                  events::TurnEnded{events::TurnEndReason::kError, with_secret,
                                                    1, {}}})
                  .ok());
  log_->PublishLive("t1", events::ToolProgress{"c1", 1, 2, with_secret});

  std::vector<events::SessionEvent> seen;
  for (;;) {
    auto next = sub->TryNext();
    ASSERT_TRUE(next.ok()) << next.status();
    if (!next->has_value()) break;
    seen.push_back(**next);
  }
  sub->Close();
  ASSERT_EQ(seen.size(), 5u);
  auto stored = store_->ReadEvents("sess_redact", 0, 100);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 4u);
  for (const auto* events : {&seen, &*stored}) {
    const auto& e = *events;
    // Even what the user typed: a pasted key is not kept.
    EXPECT_EQ(std::get<events::TurnStarted>(e[0].payload).user_text, "value: [redacted]");
    EXPECT_EQ(std::get<events::Notice>(e[1].payload).text, "value: [redacted]");
    EXPECT_EQ(std::get<events::ToolResult>(e[2].payload).content, "value: [redacted]");
    EXPECT_EQ(std::get<events::ToolResult>(e[2].payload).display, "value: [redacted]");
    EXPECT_EQ(std::get<events::TurnEnded>(e[3].payload).message, "value: [redacted]");
  }
  EXPECT_EQ(std::get<events::ToolProgress>(seen[4].payload).message, "value: [redacted]");
}

TEST_F(SessionLogRedactionTest, WhatTheModelWroteIsRedactedInEventsAndTheContext) {
  const std::string with_secret = std::string("value: ") + kSecret;
  events::AssistantTurn turn{with_secret, with_secret, {{"c1", "bash", with_secret}}, {}};
  CommitExtras extras;
  extras.context_appends = {turn, events::UserText{with_secret}};
  extras.replace_context = std::vector<events::ContextItem>{
      events::UserText{with_secret, events::UserTextKind::kSummary}};
  extras.title = with_secret;
  ASSERT_TRUE(log_->Commit("t1",
                           {events::AssistantMessage{with_secret, with_secret, 1},
                            events::ToolCallBatch{{{"c1", "bash", "builtin/bash", with_secret}}},
                            events::ApprovalRequested{
                                "r1",
                                {{"c1", "bash", "builtin/bash", with_secret,
                                  events::ApprovalState::kPending, with_secret}},
                                1000},
                            events::CompactionEnded{events::CompactionTrigger::kManual,
                                                    events::CompactionOutcome::kAccepted,
                                                    with_secret, 1, 1, 1, 1, with_secret}},
                           std::move(extras))
                  .ok());
  auto stored = store_->ReadEvents("sess_redact", 0, 100);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 4u);
  for (const auto& e : *stored) {
    EXPECT_EQ(events::EncodePayload(e.payload).find(kSecret), std::string::npos)
        << events::EncodePayload(e.payload);
  }
  auto context = store_->LoadContext("sess_redact");
  ASSERT_TRUE(context.ok()) << context.status();
  ASSERT_EQ(context->size(), 3u);
  for (const auto& item : *context) {
    EXPECT_EQ(events::EncodeContextItem(item).find(kSecret), std::string::npos)
        << events::EncodeContextItem(item);
  }
  auto record = store_->GetSession("sess_redact");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->title, "value: [redacted]");
}

TEST_F(SessionLogRedactionTest, ASecretSplitAcrossDeltasIsNeverShown) {
  std::unique_ptr<Subscription> sub = log_->Subscribe(0);
  // What StepCollector publishes for a streamed answer that spells the
  // secret out over several deltas.
  const std::string text = std::string("key ") + kSecret + " end";
  for (size_t i = 0; i < text.size(); i += 3) {
    log_->PublishLive("t1", events::TextDelta{text.substr(i, 3)});
  }
  std::string shown;
  for (;;) {
    auto next = sub->TryNext();
    ASSERT_TRUE(next.ok()) << next.status();
    if (!next->has_value()) break;
    shown += std::get<events::TextDelta>((**next).payload).text;
  }
  sub->Close();
  EXPECT_EQ(shown.find("s3c"), std::string::npos) << shown;
}

}  // namespace
}  // namespace raw::loop
