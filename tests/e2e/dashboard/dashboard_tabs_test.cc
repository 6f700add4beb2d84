// Several tabs on one session through raw-dashboard, which serves them from
// one shared subscription (clients/dashboard/session_feed.h): each tab
// gets every event after its own after_seq, once and in order, whenever
// it joins and whichever tab leaves. Deltas that queue up behind a tab's
// socket leave as one (web::ExtendableFrame), so tabs are compared by their
// events with consecutive deltas joined.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;

class DashboardTabsTest : public DashboardTest {
 protected:
  // WordsAnswer(words), parked before word `gate` when set.
  static testing::ScriptedResponse Answer(int words, std::optional<size_t> gate = std::nullopt) {
    testing::ScriptedResponse answer = chat::WordsAnswer(words);
    if (gate) answer.gate_before_chunk = 1 + *gate;  // after the role chunk
    return answer;
  }

  // The tab's events up to and with the TurnEnded of `turn`, appended to
  // `events`; each seq is checked to be above the one before.
  void ReadTurn(web::testing::WsTestClient& ws, const std::string& turn, std::vector<Json>& events) {
    ReadUntil(ws, [&](const Json& f) {
      if (f["type"] != "event") return false;
      const Json& e = f["event"];
      if (!events.empty()) {
        EXPECT_GT(std::stoull(e.value("seq", "0")), std::stoull(events.back().value("seq", "0")))
            << e.dump();
      }
      events.push_back(e);
      return e.contains("turnEnded") && e.value("turnId", "") == turn;
    });
  }

  // The events with each run of text deltas of one turn joined into one
  // delta, as the gateway joins them: the text concatenated, the last
  // one's seq and time.
  static std::vector<Json> Joined(const std::vector<Json>& events) {
    std::vector<Json> out;
    for (const Json& e : events) {
      if (e.contains("textDelta") && !out.empty() && out.back().contains("textDelta") &&
          out.back()["turnId"] == e["turnId"]) {
        Json joined = e;
        joined["textDelta"]["text"] = out.back()["textDelta"]["text"].get<std::string>() +
                                      e["textDelta"]["text"].get<std::string>();
        out.back() = std::move(joined);
      } else {
        out.push_back(e);
      }
    }
    return out;
  }

  // The words the answer's deltas carried ("w0 w1 …" has two).
  static int Words(const std::vector<Json>& events) {
    int n = 0;
    for (const Json& e : events) {
      if (!e.contains("textDelta")) continue;
      const std::string text = e["textDelta"]["text"];
      n += static_cast<int>(std::count(text.begin(), text.end(), ' '));
    }
    return n;
  }
};

TEST_F(DashboardTabsTest, EveryTabGetsTheSameEventsAndALeavingTabDisturbsNone) {
  const std::string id = CreateSessionOverHttp();
  std::vector<std::unique_ptr<web::testing::WsTestClient>> tabs;
  for (int i = 0; i < 3; ++i) {
    tabs.push_back(OpenLive(id));
    ASSERT_NE(tabs.back(), nullptr);
  }
  // The gateway answers a tab's commands only after the tab joined the feed
  // (OnOpen comes before every OnText), so once each tab has answered one,
  // all of them are on the feed before the first prompt and get the same
  // live events. (Without this a tab that joined late caught up from the
  // store, which holds no live-only events, and differed from the others.)
  for (size_t t = 1; t < tabs.size(); ++t) {
    ASSERT_EQ(Command(*tabs[t], "release_lease")["ok"], true);
  }
  ASSERT_EQ(Command(*tabs[0], "acquire_lease")["ok"], true);
  // Three turns: the first one's deltas may precede the daemon stream's
  // start (they are live only); the middle tab leaves after the second.
  for (int words : {1, 200, 100}) {
    fake_.Enqueue(Answer(words));
    Json started = Command(*tabs[0], "prompt", {{"text", "stream"}});
    ASSERT_EQ(started["ok"], true) << started.dump();
    const std::string turn = started["result"]["turnId"];
    std::vector<std::vector<Json>> seen(tabs.size());
    for (size_t t = 0; t < tabs.size(); ++t) ReadTurn(*tabs[t], turn, seen[t]);
    if (words > 1) {
      EXPECT_EQ(Words(seen[0]), words);
    }
    for (size_t t = 1; t < tabs.size(); ++t) {
      EXPECT_EQ(Joined(seen[t]), Joined(seen[0])) << "tab " << t;
    }
    if (words == 200) {
      ASSERT_TRUE(tabs[1]->Close().ok());
      tabs.erase(tabs.begin() + 1);
    }
  }
}

TEST_F(DashboardTabsTest, ATabOpenedMidAnswerGetsTheWholeAnswerOnce) {
  const std::string id = CreateSessionOverHttp();
  auto writer = OpenLive(id);
  auto watcher = OpenLive(id);
  ASSERT_TRUE(writer && watcher);
  ASSERT_EQ(Command(*writer, "acquire_lease")["ok"], true);
  fake_.Enqueue(Answer(80, 40));
  Json started = Command(*writer, "prompt", {{"text", "stream"}});
  ASSERT_EQ(started["ok"], true) << started.dump();
  const std::string turn = started["result"]["turnId"];
  ASSERT_TRUE(fake_.WaitForGate());
  // The frame that carries the last word before the gate.
  auto is_w39 = [](const Json& f) {
    if (f["type"] != "event" || !f["event"].contains("textDelta")) return false;
    const std::string text = f["event"]["textDelta"]["text"];
    return text == "w39 " || absl::EndsWith(text, " w39 ");
  };
  std::vector<Json> first;
  ReadUntil(*watcher, [&](const Json& f) {
    if (f["type"] == "event") first.push_back(f["event"]);
    return is_w39(f);
  });
  // From the start, while the shared stream is 40 deltas in.
  auto late = OpenLive(id, 0);
  ASSERT_NE(late, nullptr);
  std::vector<Json> replayed;
  ReadUntil(*late, [&](const Json& f) {
    if (f["type"] == "event") replayed.push_back(f["event"]);
    return is_w39(f);
  });
  fake_.ReleaseGate();
  ReadTurn(*watcher, turn, first);
  ReadTurn(*late, turn, replayed);
  EXPECT_EQ(Words(first), 80);
  EXPECT_EQ(Joined(replayed), Joined(first));

  // A tab that has seen the first half (its after_seq in the middle) gets
  // the stored events after it, each one the others saw.
  const uint64_t middle = std::stoull(first[first.size() / 2].value("seq", "0"));
  auto resumed = OpenLive(id, middle);
  ASSERT_NE(resumed, nullptr);
  std::vector<Json> rest;
  ReadTurn(*resumed, turn, rest);
  ASSERT_FALSE(rest.empty());
  EXPECT_GT(std::stoull(rest.front().value("seq", "0")), middle);
  for (const Json& e : rest) {
    EXPECT_NE(std::find_if(first.begin(), first.end(),
                           [&](const Json& f) { return f["seq"] == e["seq"]; }),
              first.end())
        << e.dump();
  }
}

}  // namespace
}  // namespace raw::e2e
