// ProviderDraftGenerator: one variant per route, the finish inspected
// (truncated, empty, stopped for another reason, failed), a dead route a
// labelled failed variant, every route under its own deadline.
#include "daemon/raven/draft/provider_draft_generator.h"

#include <poll.h>

#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "common/thread_start.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::raven::draft {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Streams a fixed list of events; with `block`, waits for cancellation
// first (as a route that never answers).
class ScriptedProvider : public providers::Provider {
 public:
  ScriptedProvider(std::vector<providers::ProviderEvent> events, bool block,
                   providers::ModelRequest* seen)
      : events_(std::move(events)), block_(block), seen_(seen) {}
  absl::Status Stream(const providers::ModelRequest& request, providers::ProviderEventSink& sink,
                      const CancelToken& cancel) override {
    if (seen_ != nullptr) *seen_ = request;
    if (block_) {
      pollfd p{cancel.fd(), POLLIN, 0};
      poll(&p, 1, -1);
      providers::ErrorEvent e;
      e.kind = providers::ErrorKind::kCancelled;
      sink.OnEvent(e);
      return absl::CancelledError("cancelled");
    }
    for (const auto& e : events_) sink.OnEvent(e);
    return absl::OkStatus();
  }

 private:
  std::vector<providers::ProviderEvent> events_;
  bool block_;
  providers::ModelRequest* seen_;
};

class MutableSettings : public config::RavenSettingsSource {
 public:
  config::RavenSettings Current() const override { return settings; }
  config::RavenSettings settings;
};

providers::FinishEvent Finish(providers::FinishReason reason, std::string raw = "") {
  return providers::FinishEvent{reason, std::move(raw)};
}

TEST(JudgeDraftTest, OnlyANormallyFinishedNonEmptyDraftIsACandidate) {
  using providers::FinishReason;
  DraftVariant ok = JudgeDraft("p/m", "  Tides rise.\n", Finish(FinishReason::kStop), std::nullopt);
  EXPECT_TRUE(ok.drafted);
  EXPECT_EQ(ok.text, "Tides rise.");
  DraftVariant cut = JudgeDraft("p/m", "Tides ri", Finish(FinishReason::kLength), std::nullopt);
  EXPECT_FALSE(cut.drafted);
  EXPECT_THAT(cut.detail, HasSubstr("truncated"));
  DraftVariant empty = JudgeDraft("p/m", " \n", Finish(FinishReason::kStop), std::nullopt);
  EXPECT_FALSE(empty.drafted);
  EXPECT_EQ(empty.detail, "the route returned no prose");
  DraftVariant filtered =
      JudgeDraft("p/m", "x", Finish(FinishReason::kContentFilter, "content_filter"), std::nullopt);
  EXPECT_FALSE(filtered.drafted);
  EXPECT_THAT(filtered.detail, HasSubstr("\"content_filter\""));
  DraftVariant unfinished = JudgeDraft("p/m", "x", std::nullopt, std::nullopt);
  EXPECT_FALSE(unfinished.drafted);
  DraftVariant failed = JudgeDraft("p/m", "x", std::nullopt, std::string("HTTP 500: boom"));
  EXPECT_FALSE(failed.drafted);
  EXPECT_EQ(failed.detail, "the route failed: HTTP 500: boom");
}

TEST(DraftRequestTest, AsksForProseOnlyWithTheTaskContext) {
  providers::ModelRequest r = DraftRequest("Outcome: research\nRequest: tides", "Write an intro.");
  EXPECT_THAT(r.system_prompt, HasSubstr("Never invent a citation"));
  EXPECT_TRUE(r.tools.empty());
  ASSERT_EQ(r.messages.size(), 1u);
  const auto* user = std::get_if<events::UserText>(&r.messages[0]);
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(user->text, "Outcome: research\nRequest: tides\n\nWrite this now:\nWrite an intro.");
}

TEST(ProviderDraftGeneratorTest, EveryRouteGivesOneVariantInRouteOrder) {
  MutableSettings settings;
  settings.settings.draft.routes = {"good/a", "cut/b", "dead/c", "slow/d", "extra/e"};
  settings.settings.draft.timeout_ms = 100;
  settings.settings.draft.max_output_tokens = 321;
  std::map<std::string, int64_t> caps;
  providers::ModelRequest seen;
  absl::Mutex mu;
  ProviderDraftGenerator generator(
      settings, [&](const std::string& route, int64_t max_tokens)
                    -> absl::StatusOr<std::unique_ptr<providers::Provider>> {
        {
          absl::MutexLock lock(&mu);
          caps[route] = max_tokens;
        }
        using providers::FinishReason;
        if (route == "good/a") {
          return std::make_unique<ScriptedProvider>(
              std::vector<providers::ProviderEvent>{providers::TextDeltaEvent{0, "Tides "},
                                                    providers::TextDeltaEvent{0, "rise."},
                                                    Finish(FinishReason::kStop)},
              false, &seen);
        }
        if (route == "cut/b") {
          return std::make_unique<ScriptedProvider>(
              std::vector<providers::ProviderEvent>{providers::TextDeltaEvent{0, "Tides ri"},
                                                    Finish(FinishReason::kLength)},
              false, nullptr);
        }
        if (route == "dead/c") return absl::FailedPreconditionError("DEAD_KEY is not set");
        return std::make_unique<ScriptedProvider>(std::vector<providers::ProviderEvent>{}, true,
                                                  nullptr);
      });
  EXPECT_EQ(generator.Routes().size(), 4u) << "at most four routes";
  CancelToken cancel;
  std::vector<DraftVariant> v = generator.Generate({"good/a", "cut/b", "dead/c", "slow/d"},
                                                   "ctx", "Write an intro.", cancel);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].route, "good/a");
  EXPECT_TRUE(v[0].drafted);
  EXPECT_EQ(v[0].text, "Tides rise.");
  EXPECT_EQ(v[1].route, "cut/b");
  EXPECT_FALSE(v[1].drafted);
  EXPECT_THAT(v[1].detail, HasSubstr("truncated"));
  EXPECT_EQ(v[2].route, "dead/c");
  EXPECT_FALSE(v[2].drafted);
  EXPECT_EQ(v[2].detail, "the route is not usable: DEAD_KEY is not set");
  EXPECT_EQ(v[3].route, "slow/d");
  EXPECT_FALSE(v[3].drafted);
  EXPECT_EQ(v[3].detail, "no complete draft within 100 ms (raven.draft.timeout_seconds)");
  EXPECT_EQ(caps["good/a"], 321);
  EXPECT_THAT(std::get<events::UserText>(seen.messages.at(0)).text, HasSubstr("Write an intro."));
}

TEST(ProviderDraftGeneratorTest, CallerCancellationEndsEveryRoute) {
  MutableSettings settings;
  settings.settings.draft.routes = {"slow/a", "slow/b"};
  settings.settings.draft.timeout_ms = 3600 * 1000;
  ProviderDraftGenerator generator(
      settings, [](const std::string&, int64_t)
                    -> absl::StatusOr<std::unique_ptr<providers::Provider>> {
        return std::make_unique<ScriptedProvider>(std::vector<providers::ProviderEvent>{}, true,
                                                  nullptr);
      });
  CancelToken cancel;
  cancel.Cancel("interrupted");
  std::vector<DraftVariant> v = generator.Generate({"slow/a", "slow/b"}, "ctx", "x", cancel);
  ASSERT_EQ(v.size(), 2u);
  for (const DraftVariant& d : v) EXPECT_EQ(d.detail, "the draft was cancelled");
}

// Without a thread for a route, or for its deadline, that route fails with
// a clear detail and the others are drafted.
TEST(ProviderDraftGeneratorTest, ARouteWithoutAThreadFailsAndTheOthersRun) {
  MutableSettings settings;
  settings.settings.draft.timeout_ms = 10000;
  ProviderDraftGenerator generator(
      settings,
      [](const std::string&, int64_t) -> absl::StatusOr<std::unique_ptr<providers::Provider>> {
        return std::make_unique<ScriptedProvider>(
            std::vector<providers::ProviderEvent>{providers::TextDeltaEvent{0, "Tides rise."},
                                                  Finish(providers::FinishReason::kStop)},
            false, nullptr);
      });
  CancelToken cancel;
  {
    RefuseThreadStartsForTesting refuse("draft route b/no-thread");
    std::vector<DraftVariant> v =
        generator.Generate({"a/ok", "b/no-thread", "c/ok"}, "ctx", "x", cancel);
    EXPECT_EQ(refuse.refused(), 1);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_TRUE(v[0].drafted) << v[0].detail;
    EXPECT_EQ(v[1].route, "b/no-thread");
    EXPECT_FALSE(v[1].drafted);
    EXPECT_THAT(v[1].detail, ::testing::StartsWith("the route could not run: could not start a "
                                                   "thread for draft route b/no-thread: "));
    EXPECT_TRUE(v[2].drafted) << v[2].detail;
  }
  {
    RefuseThreadStartsForTesting refuse("the deadline of draft route b/no-thread");
    std::vector<DraftVariant> v = generator.Generate({"a/ok", "b/no-thread"}, "ctx", "x", cancel);
    EXPECT_EQ(refuse.refused(), 1);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_TRUE(v[0].drafted) << v[0].detail;
    EXPECT_FALSE(v[1].drafted);
    EXPECT_THAT(v[1].detail, HasSubstr("could not start a thread for the deadline of draft route "
                                       "b/no-thread: "));
  }
}

TEST(ProviderDraftGeneratorTest, RoutesAreReadFromTheSettingsEachTime) {
  MutableSettings settings;
  ProviderDraftGenerator generator(settings, nullptr);
  EXPECT_TRUE(generator.Routes().empty());
  settings.settings.draft.routes = {"p/m"};
  EXPECT_THAT(generator.Routes(), ElementsAre("p/m"));
}

}  // namespace
}  // namespace raw::raven::draft
