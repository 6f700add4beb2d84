// What the engine records is what replay restores: every published state
// decodes back to itself, and a call the caller cancelled records nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "daemon/raven/engine.h"
#include "tests/daemon/raven/raven_test_support.h"

namespace raw::raven {
namespace {

using testing::ClaimArg;
using ::testing::HasSubstr;
using testing::IssueLines;
using testing::RavenSession;
using testing::SourceArg;

class EngineIntegrityTest : public ::testing::Test {
 protected:
  std::string Start(const std::string& outcome = "research") {
    auto r =
        s.Call({{"action", "start"}, {"outcome", outcome}, {"request", "How do X and Y differ?"}});
    EXPECT_TRUE(r.ok()) << r.status();
    return r->state.task_id;
  }
  absl::StatusOr<ActionResult> Checkpoint(const std::string& id, const std::string& artifact,
                                          Json sources = Json::array(),
                                          Json claims = Json::array()) {
    Json a = {{"action", "checkpoint"},
              {"taskId", id},
              {"stage", "draft"},
              {"summary", "A draft."},
              {"artifact", artifact}};
    if (!sources.empty()) a["sources"] = sources;
    if (!claims.empty()) a["claims"] = claims;
    return s.Call(a);
  }
  // A grounded Checkpoint: Source a reachable, material Claim c1 cites it.
  void Grounded(const std::string& id) {
    s.verifier.Reachable("a");
    auto r = Checkpoint(id, kArtifact, Json::array({SourceArg("a", "https://a.test/x")}),
                        Json::array({ClaimArg("c1", {"a"})}));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->status, "active") << IssueLines(*r);
  }
  static constexpr char kArtifact[] = "X differs from Y [@a].";
  RavenSession s;
};

// A Source URL whose canonical form would not be its own canonical form (a
// doubled port) is refused at registration, and one that canonicalizes
// stably (a doubled trailing dot) is stored in a form replay accepts: the
// Checkpoint Raven reports is the one the next call sees.
TEST_F(EngineIntegrityTest, EveryPublishedStateReplays) {
  std::string id = Start("learning");  // optional grounding: nothing is fetched
  auto refused =
      Checkpoint(id, "Notes.", Json::array({SourceArg("b", "https://b.test:443:443/y")}));
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->status, "needs-revision");
  EXPECT_THAT(IssueLines(*refused), HasSubstr("sources[0].url: invalid external URL"));
  auto r = Checkpoint(id, "Notes.", Json::array({SourceArg("c", "https://C.test../z")}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->status, "active") << IssueLines(*r);
  ASSERT_EQ(r->state.sources.size(), 1u);
  EXPECT_EQ(r->state.sources[0].url, "https://c.test/z");
  EXPECT_EQ(s.Replayed(id), r->state);
}

// The user interrupts a Completion while Source a is being reopened: the
// check the verifier reports ("cancelled") is no evidence about a, so the
// call fails and the Task keeps its supported Claim and has no Limitation.
TEST_F(EngineIntegrityTest, AnInterruptedCompletionRecordsNothing) {
  std::string id = Start();
  Grounded(id);
  const TaskState before = s.Replayed(id);
  s.verifier.Unavailable("a", "the check was cancelled before it finished");
  s.Cancel();
  auto r = s.Call({{"action", "complete"}, {"taskId", id}, {"artifact", kArtifact}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsCancelled(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("nothing was recorded"));
  EXPECT_EQ(s.Replayed(id), before);
  EXPECT_TRUE(before.limitations.empty());
  EXPECT_EQ(before.claims[0].disposition, Disposition::kSupported);
}

TEST_F(EngineIntegrityTest, AnInterruptedCheckpointRecordsNothing) {
  std::string id = Start();
  Grounded(id);
  const TaskState before = s.Replayed(id);
  s.verifier.Unavailable("a", "the check was cancelled before it finished");
  s.Cancel();
  auto r = Checkpoint(id, "X differs from Y, revised [@a].");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsCancelled(r.status())) << r.status();
  EXPECT_EQ(s.Replayed(id), before);
}

// A search batch the caller cancels: the failed queries are not recorded as
// tool Limitations (only caller cancellation aborts the whole batch).
TEST_F(EngineIntegrityTest, AnInterruptedDiscoverRecordsNoLimitation) {
  std::string id = Start();
  s.Cancel();
  auto r = s.Call({{"action", "discover"}, {"taskId", id}, {"queries", {"unscripted"}}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsCancelled(r.status())) << r.status();
  EXPECT_TRUE(s.Replayed(id).limitations.empty());
  EXPECT_EQ(s.Replayed(id).revision, 1);
}

// A Source verified at one Checkpoint, unavailable at the next, and then
// gone from its page is drifted (Raven found it before), never "absent from
// the page entirely", the fabrication signal.
TEST_F(EngineIntegrityTest, DriftSurvivesAnUnavailableCheckInBetween) {
  std::string id = Start();
  Grounded(id);
  s.verifier.Unavailable("a", "timeout");
  auto unavailable = Checkpoint(id, "X differs from Y, again [@a].");
  ASSERT_TRUE(unavailable.ok()) << unavailable.status();
  ASSERT_EQ(unavailable->state.FindSource("a")->check.status, CheckStatus::kUnavailable);
  s.verifier.Set("a", {"a", CheckStatus::kFailed, 0, 200, std::nullopt,
                       "absent from the page entirely", CheckOutcome::kAbsent});
  auto gone = Checkpoint(id, "X differs from Y, once more [@a].", Json::array(),
                         Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_TRUE(gone.ok()) << gone.status();
  const SourceCheck check = s.Replayed(id).FindSource("a")->check;
  EXPECT_EQ(check.outcome, CheckOutcome::kDrifted);
  EXPECT_THAT(check.detail, ::testing::Optional(HasSubstr("was on the page when checked at")));
  EXPECT_EQ(check.last_verified_at, s.now_ms);
}

}  // namespace
}  // namespace raw::raven
