// Which Sources a Checkpoint or Completion reopens, and the automatic Source
// Limitations that report their checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "daemon/raven/codec.h"
#include "daemon/raven/engine.h"
#include "tests/daemon/raven/raven_test_support.h"

namespace raw::raven {
namespace {

using testing::ClaimArg;
using ::testing::HasSubstr;
using testing::IssueLines;
using testing::RavenSession;
using testing::SourceArg;

class EvidenceTest : public ::testing::Test {
 protected:
  std::string Start() {
    auto r = s.Call(
        {{"action", "start"}, {"outcome", "research"}, {"request", "How do X and Y differ?"}});
    EXPECT_TRUE(r.ok()) << r.status();
    return r->state.task_id;
  }
  absl::StatusOr<ActionResult> Checkpoint(const std::string& id, const std::string& artifact,
                                          Json sources = Json::array(), Json claims = Json::array(),
                                          Json failures = Json::array()) {
    Json a = {{"action", "checkpoint"},
              {"taskId", id},
              {"stage", "draft"},
              {"summary", "A draft."},
              {"artifact", artifact}};
    if (!sources.empty()) a["sources"] = sources;
    if (!claims.empty()) a["claims"] = claims;
    if (!failures.empty()) a["failures"] = failures;
    return s.Call(a);
  }
  absl::StatusOr<ActionResult> Complete(const std::string& id, const std::string& artifact) {
    return s.Call({{"action", "complete"}, {"taskId", id}, {"artifact", artifact}});
  }
  RavenSession s;
};

// A registered Source the Artifact links by its URL (not by a token, in no
// Claim) is reopened like a cited one: an excerpt that is not on the page
// cannot be published behind "[the study](url)".
TEST_F(EvidenceTest, ASourceLinkedByItsUrlIsReopenedAtCheckpoint) {
  std::string id = Start();
  s.verifier.Reachable("a");
  s.verifier.Failed("b", "no part of the recorded excerpt occurs");
  auto r = Checkpoint(
      id, "X differs from Y [@a]. See [the study](https://b.test/study).",
      Json::array({SourceArg("a", "https://a.test/"), SourceArg("b", "https://b.test/study")}),
      Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, "needs-revision");
  EXPECT_THAT(IssueLines(*r), HasSubstr("source b failed evidence verification"));
  EXPECT_TRUE(r->state.checkpoints.empty());
}

// A Source that drifts after publication cannot stay in a completed
// Artifact behind a plain link: Completion reopens it and refuses.
TEST_F(EvidenceTest, ADriftedSourceLinkedByItsUrlBlocksCompletion) {
  std::string id = Start();
  s.verifier.Reachable("a");
  s.verifier.Reachable("b");
  const std::string artifact = "X differs from Y [@a]. Background: <https://b.test/study>.";
  auto cp = Checkpoint(
      id, artifact,
      Json::array({SourceArg("a", "https://a.test/"), SourceArg("b", "https://b.test/study")}),
      Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
  EXPECT_EQ(cp->state.FindSource("b")->check.status, CheckStatus::kReachable);
  s.verifier.Set("b", {"b", CheckStatus::kFailed, 0, 200, std::nullopt, "the page changed",
                       CheckOutcome::kAbsent});
  auto done = Complete(id, artifact);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status, "needs-revision");
  EXPECT_EQ(done->state.phase, Phase::kActive);
  EXPECT_EQ(done->state.FindSource("b")->check.outcome, CheckOutcome::kDrifted);
}

// A Source that could not be checked once and verifies later leaves no
// stale Limitation behind: the Completion is clean.
TEST_F(EvidenceTest, ASourceThatVerifiesLaterClearsItsAutomaticLimitation) {
  std::string id = Start();
  s.verifier.Reachable("a");
  const std::string artifact = "X differs from Y [@a].";
  auto cp = Checkpoint(id, artifact, Json::array({SourceArg("a", "https://a.test/")}),
                       Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
  s.verifier.Unavailable("a", "the per-fetch deadline ran out");
  auto timed_out = Complete(id, artifact);
  EXPECT_EQ(timed_out->status, "needs-revision");
  ASSERT_EQ(timed_out->state.limitations.size(), 1u);
  EXPECT_TRUE(timed_out->state.limitations[0].checked_at.has_value());

  s.verifier.Reachable("a");
  auto again = Checkpoint(id, artifact, Json::array(), Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_EQ(again->status, "active") << IssueLines(*again);
  EXPECT_TRUE(again->state.limitations.empty());
  auto done = Complete(id, artifact);
  EXPECT_EQ(done->status, "completed") << IssueLines(*done);
  EXPECT_EQ(s.Replayed(id).phase, Phase::kCompleted);
}

// The automatic Limitation follows the check: it is rewritten when the
// Source's check changes (unavailable, then failed), never duplicated.
TEST_F(EvidenceTest, AnAutomaticLimitationIsReplacedWhenTheCheckChanges) {
  std::string id = Start();
  s.verifier.Reachable("a");
  s.verifier.Reachable("b");
  auto cp = Checkpoint(
      id, "X [@a]. Y [@b].",
      Json::array({SourceArg("a", "https://a.test/"), SourceArg("b", "https://b.test/")}),
      Json::array({ClaimArg("c1", {"a"}), ClaimArg("c2", {"b"})}));
  ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
  s.verifier.Unavailable("b", "HTTP 429: too many requests");
  auto first = Complete(id, "X [@a]. Y [@b].");
  ASSERT_EQ(first->state.limitations.size(), 1u);
  EXPECT_THAT(first->state.limitations[0].detail, HasSubstr("could not be checked"));
  s.now_ms += 1000;
  s.verifier.Failed("b", "HTTP 404");
  auto second = Checkpoint(id, "X [@a]. Y [@b].");
  EXPECT_EQ(second->status, "needs-revision");
  ASSERT_EQ(second->state.limitations.size(), 1u);
  EXPECT_EQ(second->state.limitations[0].limitation_id, first->state.limitations[0].limitation_id);
  EXPECT_THAT(second->state.limitations[0].detail, HasSubstr("failed verification: HTTP 404"));
  EXPECT_EQ(second->state.limitations[0].checked_at, s.now_ms);
  EXPECT_EQ(s.Replayed(id).limitations, second->state.limitations);
}

// A Task recorded before automatic Limitations carried their check: its
// automatic one is still cleared once the Source verifies.
TEST_F(EvidenceTest, AnOlderRecordsAutomaticLimitationIsAdopted) {
  std::string id = Start();
  s.verifier.Reachable("a");
  auto cp = Checkpoint(id, "X [@a].", Json::array({SourceArg("a", "https://a.test/")}),
                       Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
  s.verifier.Unavailable("a", "HTTP 429: too many requests");
  auto limited = Complete(id, "X [@a].");
  ASSERT_EQ(limited->state.limitations.size(), 1u);
  TaskState older = limited->state;
  older.limitations[0].checked_at.reset();
  ++older.revision;
  s.records.push_back(EncodeRecord(older, id));
  s.verifier.Reachable("a");
  auto again = Checkpoint(id, "X [@a].", Json::array(), Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_EQ(again->status, "active") << IssueLines(*again);
  EXPECT_TRUE(again->state.limitations.empty());
}

// A Limitation the agent wrote about a Source does not stand in for the
// automatic one, and is kept when the Source verifies.
TEST_F(EvidenceTest, AnAgentLimitationDoesNotSuppressTheAutomaticOne) {
  std::string id = Start();
  s.verifier.Reachable("a");
  s.verifier.Reachable("b");
  Json note = Json::array(
      {{{"kind", "source"}, {"detail", "Only the abstract is public."}, {"sourceId", "b"}}});
  auto cp = Checkpoint(
      id, "X [@a]. Y [@b].",
      Json::array({SourceArg("a", "https://a.test/"), SourceArg("b", "https://b.test/")}),
      Json::array({ClaimArg("c1", {"a"}), ClaimArg("c2", {"b"})}), note);
  ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
  s.verifier.Failed("b", "HTTP 404");
  auto failed = Complete(id, "X [@a]. Y [@b].");
  EXPECT_EQ(failed->status, "needs-revision");
  ASSERT_EQ(failed->state.limitations.size(), 2u);
  EXPECT_EQ(failed->state.limitations[0].detail, "Only the abstract is public.");
  EXPECT_FALSE(failed->state.limitations[0].checked_at.has_value());
  EXPECT_THAT(failed->state.limitations[1].detail, HasSubstr("Source b failed verification"));
  EXPECT_EQ(failed->state.limitations[1].limitation_id, "source-2");
  EXPECT_EQ(failed->state.claims[1].disposition, Disposition::kDeferred);
}

// One page is one Source whatever dot segments its URL is written with, and
// a link written with them reaches that Source.
TEST_F(EvidenceTest, DotSegmentsDoNotMakeAnotherPage) {
  std::string id = Start();
  s.verifier.Reachable("a");
  s.verifier.Reachable("b");
  auto cp = Checkpoint(id, "X [@a]. See <https://a.test/docs/./../report>.",
                       Json::array({SourceArg("a", "https://a.test/docs/../report")}),
                       Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
  EXPECT_EQ(cp->state.FindSource("a")->url, "https://a.test/report");
  auto again =
      Checkpoint(id, "X [@a] [@b].", Json::array({SourceArg("b", "https://a.test/report")}));
  EXPECT_EQ(again->status, "needs-revision");
  EXPECT_THAT(IssueLines(*again), HasSubstr("is already registered as Source a"));
}

// A drafter whose one route writes `text`.
class OneLongDraft : public DraftGenerator {
 public:
  explicit OneLongDraft(std::string text) : text_(std::move(text)) {}
  std::vector<std::string> Routes() const override { return {"p/m"}; }
  std::vector<DraftVariant> Generate(const std::vector<std::string>&, const std::string&,
                                     const std::string&, const CancelToken&) override {
    return {{"p/m", true, text_, ""}};
  }

 private:
  std::string text_;
};

// A Draft Variant is cut at kDraftVariantChars characters, never inside a
// UTF-8 sequence.
TEST_F(EvidenceTest, ADraftVariantIsCutOnACharacterBoundary) {
  std::string id = Start();
  std::string euros;
  for (size_t i = 0; i < Limits::kDraftVariantChars + 5; ++i) euros += "\u20AC";
  OneLongDraft drafter(euros);
  CancelToken cancel;
  EngineContext ctx{"session-1", s.now_ms, s.verifier, s.searcher, drafter, cancel};
  auto r = RunAction(ReplayBook(s.records),
                     {{"action", "draft"}, {"taskId", id}, {"instruction", "Say it."}}, ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  size_t begin = r->extra.find("\u20AC");
  size_t end = r->extra.rfind("\u20AC");
  ASSERT_NE(begin, std::string::npos);
  std::string kept = r->extra.substr(begin, end + 3 - begin);
  EXPECT_EQ(kept.size(), 3 * Limits::kDraftVariantChars);
  EXPECT_EQ(CodePoints(kept), Limits::kDraftVariantChars);
  EXPECT_NE(r->extra[end + 3] & 0xC0, 0x80) << "a partial character follows the cut";
}

}  // namespace
}  // namespace raw::raven
