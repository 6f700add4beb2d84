// A tab's prompts and compactions waiting on rawd are capped: SlowCallQuota
// on its own, and a tab (the real LiveSession) against a fake daemon that
// holds StartTurn, as rawd does while it prepares a turn.
#include "clients/dashboard/slow_calls.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "clients/dashboard/gateway.h"
#include "clients/dashboard/live_session.h"
#include "clients/dashboard/session_feeds.h"
#include "clients/lib/raw_client.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_daemon.h"
#include "tests/clients/temp_dir.h"
#include "tests/e2e/dashboard/recording_connection.h"

namespace raw::dashboard {
namespace {

TEST(SlowCallQuota, TakesUpToItsLimitAndFreesASlotOnce) {
  std::shared_ptr<SlowCallQuota> quota = SlowCallQuota::Create(2);
  absl::StatusOr<std::shared_ptr<SlowCallQuota::Slot>> a = quota->Take();
  absl::StatusOr<std::shared_ptr<SlowCallQuota::Slot>> b = quota->Take();
  ASSERT_TRUE(a.ok() && b.ok());
  absl::StatusOr<std::shared_ptr<SlowCallQuota::Slot>> c = quota->Take();
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  (*a)->Release();
  (*a)->Release();  // once only
  EXPECT_EQ(quota->taken(), 1);
  c = quota->Take();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(quota->Take().status().code(), absl::StatusCode::kResourceExhausted);
  b->reset();  // a slot dropped unreleased frees itself
  c->reset();
  EXPECT_EQ(quota->taken(), 0);
}

bool IsReply(const Json& frame, int64_t id) {
  return frame.is_object() && frame.value("type", "") == "reply" &&
         frame.value("id", int64_t{-1}) == id;
}
bool IsOkReply(const Json& frame, int64_t id) {
  return IsReply(frame, id) && frame.value("ok", false);
}

int StartTurnCalls(testing::FakeRawService& service) {
  std::vector<std::string> calls = service.calls();
  return static_cast<int>(std::count_if(calls.begin(), calls.end(), [](const std::string& c) {
    return c.rfind("StartTurn:", 0) == 0;
  }));
}

// While rawd prepares two prompts of a tab, a third prompt and a
// compaction are answered RESOURCE_EXHAUSTED at once and never reach rawd;
// once the two are answered the tab may prompt again.
TEST(LiveSessionSlowCalls, ATabHasAtMostTwoPromptsOrCompactionsWaitingOnRawd) {
  testing::TempDir dir;
  testing::FakeDaemon daemon(dir.path() + "/raw.sock");
  v1::Session session;
  session.set_id("sess_1");
  session.set_agent("coder");
  daemon.service().AddSession(session);
  daemon.service().HoldStartTurns(/*abandon_on_interrupt=*/false);
  client::ConnectOptions options;
  options.socket_path = daemon.socket_path();
  options.autostart = client::Autostart::kNever;
  absl::StatusOr<client::RawClient> raw = client::Connect(options);
  ASSERT_TRUE(raw.ok()) << raw.status();
  auto gateway = std::make_shared<Gateway>();
  gateway->client = std::make_shared<client::RawClient>(*std::move(raw));
  gateway->feeds = std::make_shared<SessionFeeds>(gateway->client);
  gateway->client_name = "raw-dashboard (pid 1)";
  gateway->pid = 1;

  auto connection = std::make_shared<e2e::RecordingConnection>();
  std::unique_ptr<web::WebSocketHandler> tab = MakeLiveSession(gateway, "sess_1", 0);
  tab->OnOpen(connection);
  tab->OnText(R"({"id":1,"op":"acquire_lease"})");
  ASSERT_TRUE(connection->WaitFor([](const Json& f) { return IsOkReply(f, 1); }));

  tab->OnText(R"({"id":2,"op":"prompt","text":"one"})");
  tab->OnText(R"({"id":3,"op":"prompt","text":"two"})");
  // Both are held in rawd now; these two are refused before any call.
  tab->OnText(R"({"id":4,"op":"prompt","text":"three"})");
  tab->OnText(R"({"id":5,"op":"compact"})");
  for (int64_t id : {4, 5}) {
    EXPECT_TRUE(connection->WaitFor(
        [id](const Json& f) {
          return IsReply(f, id) && !f.value("ok", true) && f.contains("error") &&
                 f.at("error").value("code", "") == "RESOURCE_EXHAUSTED";
        },
        1, absl::ZeroDuration()))
        << "reply " << id;
  }
  EXPECT_FALSE(connection->WaitFor([](const Json& f) { return IsReply(f, 2) || IsReply(f, 3); }, 1,
                                   absl::ZeroDuration()));

  daemon.service().ReleaseStartTurns();
  for (int64_t id : {2, 3}) {
    EXPECT_TRUE(connection->WaitFor([id](const Json& f) { return IsOkReply(f, id); }))
        << "reply " << id;
  }
  EXPECT_EQ(StartTurnCalls(daemon.service()), 2);
  // The slots are free as soon as the replies are sent.
  tab->OnText(R"({"id":6,"op":"prompt","text":"four"})");
  EXPECT_TRUE(connection->WaitFor([](const Json& f) { return IsOkReply(f, 6); }));
  EXPECT_EQ(StartTurnCalls(daemon.service()), 3);

  tab->OnClose();
  tab.reset();
  EXPECT_TRUE(gateway->slow_calls->WaitIdle(absl::Seconds(30)));
}

}  // namespace
}  // namespace raw::dashboard
