// The gateway's shared session feeds (clients/dashboard/session_feeds.h)
// against a real rawd and the fake provider, with recording connections as
// tabs: one daemon stream per session whatever the number of tabs, each
// tab's events complete, once and in order, and the stream's end with the
// last tab.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/dashboard/session_feeds.h"
#include "gtest/gtest.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/e2e/dashboard/recording_connection.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using dashboard::FeedTab;
using dashboard::SessionFeed;
using dashboard::SessionFeeds;

class SessionFeedTest : public ContractTest {
 protected:
  void SetUp() override {
    ContractTest::SetUp();
    StartDaemon("");
    client::ConnectOptions options;
    options.socket_path = daemon_->socket_path();
    options.autostart = client::Autostart::kNever;
    absl::StatusOr<client::RawClient> raw = client::Connect(options);
    ASSERT_TRUE(raw.ok()) << raw.status();
    client_ = std::make_shared<client::RawClient>(*std::move(raw));
    feeds_ = std::make_unique<SessionFeeds>(client_);
    session_ = daemon_->CreateSession();
  }

  struct Tab {
    std::shared_ptr<RecordingConnection> connection = std::make_shared<RecordingConnection>();
    std::unique_ptr<SessionFeed::Membership> membership;
  };

  // A tab whose writer_is calls show as {"type":"writer_check","writer":...}
  // frames among its events.
  std::unique_ptr<Tab> OpenTab(uint64_t after_seq = 0) {
    auto tab = std::make_unique<Tab>();
    FeedTab feed_tab;
    feed_tab.connection = tab->connection;
    feed_tab.writer_is = [c = tab->connection.get()](const std::string& writer) {
      c->Send(DumpJson(Json{{"type", "writer_check"}, {"writer", writer}}));
    };
    tab->membership = feeds_->Join(session_, after_seq, std::move(feed_tab));
    return tab;
  }

  // WordsAnswer(words), parked before word `gate` when set.
  static testing::ScriptedResponse Answer(int words, std::optional<size_t> gate = std::nullopt) {
    testing::ScriptedResponse answer = chat::WordsAnswer(words);
    if (gate) answer.gate_before_chunk = 1 + *gate;  // after the role chunk
    return answer;
  }

  static bool TurnEnded(const Json& frame, const std::string& turn) {
    return frame.value("type", "") == "event" && frame["event"].contains("turnEnded") &&
           frame["event"].value("turnId", "") == turn;
  }

  // `events` up to and with the TurnEnded of `turn` (events may follow it).
  static std::vector<Json> ThroughTurnEnd(std::vector<Json> events, const std::string& turn) {
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].contains("turnEnded") && events[i].value("turnId", "") == turn) {
        events.resize(i + 1);
        return events;
      }
    }
    ADD_FAILURE() << "no end of turn " << turn;
    return events;
  }

  static bool IsDelta(const Json& frame, const std::string& text) {
    return frame.value("type", "") == "event" && frame["event"].contains("textDelta") &&
           frame["event"]["textDelta"].value("text", "") == text;
  }

  // The seqs of `events`, checked to increase strictly.
  static std::vector<std::string> Seqs(const std::vector<Json>& events) {
    std::vector<std::string> seqs;
    uint64_t last = 0;
    for (const Json& e : events) {
      const uint64_t seq = std::stoull(e.value("seq", "0"));
      EXPECT_GT(seq, last) << e.dump();
      last = seq;
      seqs.push_back(e.value("seq", "0"));
    }
    return seqs;
  }

  std::shared_ptr<client::RawClient> client_;
  std::unique_ptr<SessionFeeds> feeds_;
  std::string session_;
};

TEST_F(SessionFeedTest, TabsOnASessionShareOneDaemonStream) {
  auto a = OpenTab();
  auto b = OpenTab();
  auto c = OpenTab();
  EXPECT_EQ(feeds_->OpenStreams(session_), 1);
  // A first turn seen whole by every tab: the daemon stream is live after
  // it (the deltas of a step committed before a subscription began are
  // gone for it).
  fake_.Enqueue(chat::TextAnswer("ready"));
  const std::string ready = StartTurn(stub(), session_, "ready?");
  for (Tab* tab : {a.get(), b.get(), c.get()}) {
    ASSERT_TRUE(tab->connection->WaitFor([&](const Json& f) { return TurnEnded(f, ready); }));
  }
  fake_.Enqueue(Answer(50));
  const std::string turn = StartTurn(stub(), session_, "stream");
  for (Tab* tab : {a.get(), b.get(), c.get()}) {
    ASSERT_TRUE(tab->connection->WaitFor([&](const Json& f) { return TurnEnded(f, turn); }));
  }
  EXPECT_EQ(feeds_->OpenStreams(session_), 1);
  const std::vector<Json> events = ThroughTurnEnd(a->connection->Events(), turn);
  int deltas = 0;
  for (const Json& e : events) {
    deltas += e.contains("textDelta") && e.value("turnId", "") == turn ? 1 : 0;
  }
  EXPECT_EQ(deltas, 50);
  Seqs(events);
  // The same events, for every tab, and the writer (the test's own lease,
  // which StartTurn takes) told after the turn's end. Checks are made for all the tabs at
  // once: at most one daemon call per turn start and end of the two turns,
  // where one call per tab would be twelve.
  for (Tab* tab : {a.get(), b.get(), c.get()}) {
    EXPECT_EQ(ThroughTurnEnd(tab->connection->Events(), turn), events);
    EXPECT_TRUE(tab->connection->WaitForAfter(
        [&](const Json& f) { return TurnEnded(f, turn); },
        [](const Json& f) {
          return f.value("type", "") == "writer_check" &&
                 f.value("writer", "").find("e2e test") != std::string::npos;
        }));
  }
  EXPECT_GE(feeds_->WriterChecks(session_), 1);
  EXPECT_LE(feeds_->WriterChecks(session_), 4);

  // A tab leaving does not disturb the others.
  b.reset();
  fake_.Enqueue(Answer(20));
  const std::string second = StartTurn(stub(), session_, "again");
  for (Tab* tab : {a.get(), c.get()}) {
    ASSERT_TRUE(tab->connection->WaitFor([&](const Json& f) { return TurnEnded(f, second); }));
  }
  EXPECT_EQ(feeds_->OpenStreams(session_), 1);
  const std::vector<Json> a_events = ThroughTurnEnd(a->connection->Events(), second);
  EXPECT_GE(a_events.size(), events.size() + 20);
  Seqs(a_events);
  EXPECT_EQ(ThroughTurnEnd(c->connection->Events(), second), a_events);

  // The last tab leaving ends the daemon stream.
  a.reset();
  EXPECT_EQ(feeds_->OpenStreams(session_), 1);
  c.reset();
  EXPECT_EQ(feeds_->OpenStreams(session_), 0);
}

TEST_F(SessionFeedTest, ATabJoiningMidAnswerGetsEveryEventOnceAndInOrder) {
  auto first = OpenTab();
  // The answer parks after 30 of its 60 deltas.
  fake_.Enqueue(Answer(60, 30));
  const std::string turn = StartTurn(stub(), session_, "stream");
  ASSERT_TRUE(fake_.WaitForGate());
  ASSERT_TRUE(first->connection->WaitFor([](const Json& f) { return IsDelta(f, "w29 "); }));
  // Behind the feed: it catches up on a stream of its own, then joins.
  auto late = OpenTab(0);
  ASSERT_TRUE(late->connection->WaitFor([](const Json& f) { return IsDelta(f, "w29 "); }));
  fake_.ReleaseGate();
  for (Tab* tab : {first.get(), late.get()}) {
    ASSERT_TRUE(tab->connection->WaitFor([&](const Json& f) { return TurnEnded(f, turn); }));
  }
  // Once caught up, the late tab is on the shared stream.
  ASSERT_TRUE(feeds_->AwaitOpenStreams(session_, 1, absl::Seconds(30)));
  const std::vector<Json> expected = ThroughTurnEnd(first->connection->Events(), turn);
  ASSERT_GT(expected.size(), 60u);
  // Everything up to the turn's end, identical: no gap, no repeat.
  EXPECT_EQ(ThroughTurnEnd(late->connection->Events(), turn), expected);
  Seqs(late->connection->Events());

  // A tab at an older position, after the answer: the stored events after
  // it, once, then the next turn with the others.
  const std::vector<Json> all = first->connection->Events();
  const uint64_t middle = std::stoull(all[all.size() / 2].value("seq", "0"));
  auto older = OpenTab(middle);
  fake_.Enqueue(Answer(10));
  const std::string next = StartTurn(stub(), session_, "more");
  for (Tab* tab : {first.get(), late.get(), older.get()}) {
    ASSERT_TRUE(tab->connection->WaitFor([&](const Json& f) { return TurnEnded(f, next); }));
  }
  // While a subscriber still reads the store, rawd may skip the live-only
  // events of a step it commits meanwhile; the stored ones all come.
  std::vector<Json> older_events = older->connection->Events();
  Seqs(older_events);
  ASSERT_FALSE(older_events.empty());
  EXPECT_GT(std::stoull(older_events.front().value("seq", "0")), middle);
  std::vector<std::string> first_seqs = Seqs(first->connection->Events());
  for (const std::string& seq : Seqs(older_events)) {
    EXPECT_NE(std::find(first_seqs.begin(), first_seqs.end(), seq), first_seqs.end()) << seq;
  }
  int ends = 0;
  int messages = 0;
  for (const Json& e : older_events) {
    ends += e.contains("turnEnded") ? 1 : 0;
    messages += e.contains("assistantMessage") && e.value("turnId", "") == next ? 1 : 0;
  }
  EXPECT_EQ(ends, 2);  // the first turn's stored end, and the second turn's
  EXPECT_EQ(messages, 1);
}

// While rawd is away a tab hears "disconnected" once and nothing more,
// however often the feed tries again; "reconnected" comes once rawd is
// back, and the feed delivers again.
TEST_F(SessionFeedTest, ReconnectedIsSaidOnlyOnceRawdIsBack) {
  auto tab = OpenTab();
  auto is = [](const char* type) {
    return [type](const Json& f) { return f.value("type", "") == type; };
  };
  EXPECT_EQ(daemon_->Stop(), 0);
  ASSERT_TRUE(tab->connection->WaitFor(is("disconnected")));
  ASSERT_TRUE(feeds_->AwaitFailedAttempts(session_, 4, absl::Seconds(30)));
  EXPECT_FALSE(tab->connection->WaitFor(is("reconnected"), 1, absl::ZeroDuration()));
  ASSERT_TRUE(daemon_->Start().ok());
  ASSERT_TRUE(tab->connection->WaitFor(is("reconnected")));
  fake_.Enqueue(chat::TextAnswer("back"));
  const std::string turn = StartTurn(stub(), session_, "back?");
  ASSERT_TRUE(tab->connection->WaitFor([&](const Json& f) { return TurnEnded(f, turn); }));
  EXPECT_FALSE(tab->connection->WaitFor(is("disconnected"), 2, absl::ZeroDuration()));
  EXPECT_FALSE(tab->connection->WaitFor(is("reconnected"), 2, absl::ZeroDuration()));
}

TEST_F(SessionFeedTest, AMissingSessionClosesItsTabsWith4404) {
  session_ = "no-such-session";
  auto tab = OpenTab();
  ASSERT_EQ(tab->connection->WaitForClose(), std::optional<uint16_t>(4404));
  EXPECT_TRUE(tab->connection->WaitFor(
      [](const Json& f) { return f.value("type", "") == "disconnected"; }));
  // A new tab on it gets a new feed, which finds it missing too.
  auto again = OpenTab();
  EXPECT_EQ(again->connection->WaitForClose(), std::optional<uint16_t>(4404));
}

}  // namespace
}  // namespace raw::e2e
