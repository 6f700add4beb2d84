// SessionLog's redactor: every text that comes from outside Raw is cleaned
// before it is stored or published; what the user typed is not touched.
#include <filesystem>

#include "absl/strings/str_replace.h"
#include "common/time.h"
#include "daemon/loop/session_log.h"
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
    log_ = std::make_shared<SessionLog>(record.id, 0, *store_, clock_, [](const std::string& t) {
      return absl::StrReplaceAll(t, {{kSecret, "[redacted]"}});
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
                                                     with_secret},
                                  events::TurnEnded{events::TurnEndReason::kError, with_secret, 1}})
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
    // The user's own words stay as typed.
    EXPECT_EQ(std::get<events::TurnStarted>(e[0].payload).user_text, with_secret);
    EXPECT_EQ(std::get<events::Notice>(e[1].payload).text, "value: [redacted]");
    EXPECT_EQ(std::get<events::ToolResult>(e[2].payload).content, "value: [redacted]");
    EXPECT_EQ(std::get<events::ToolResult>(e[2].payload).display, "value: [redacted]");
    EXPECT_EQ(std::get<events::TurnEnded>(e[3].payload).message, "value: [redacted]");
  }
  EXPECT_EQ(std::get<events::ToolProgress>(seen[4].payload).message, "value: [redacted]");
}

}  // namespace
}  // namespace raw::loop
