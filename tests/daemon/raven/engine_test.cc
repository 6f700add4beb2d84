// The Task engine's rules, one by one, through the action protocol.
#include "daemon/raven/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/daemon/raven/raven_test_support.h"

namespace raw::raven {
namespace {

using testing::ClaimArg;
using ::testing::HasSubstr;
using testing::IssueLines;
using ::testing::Not;
using testing::RavenSession;
using testing::SourceArg;

class EngineTest : public ::testing::Test {
 protected:
  std::string Start(const std::string& outcome = "research") {
    auto r = s.Call({{"action", "start"}, {"outcome", outcome}, {"request", "How do X and Y differ?"}});
    EXPECT_TRUE(r.ok()) << r.status();
    return r->state.task_id;
  }
  absl::StatusOr<ActionResult> Checkpoint(const std::string& id, const std::string& artifact,
                                          Json sources = Json::array(), Json claims = Json::array()) {
    Json a = {{"action", "checkpoint"}, {"taskId", id},     {"stage", "draft"},
              {"summary", "A draft."},  {"artifact", artifact}};
    if (!sources.empty()) a["sources"] = sources;
    if (!claims.empty()) a["claims"] = claims;
    return s.Call(a);
  }
  absl::StatusOr<ActionResult> Complete(const std::string& id, const std::string& artifact) {
    return s.Call({{"action", "complete"}, {"taskId", id}, {"artifact", artifact}});
  }
  // A grounded Checkpoint: Source a reachable, material Claim c1 cites it.
  void Grounded(const std::string& id) {
    s.verifier.Reachable("a");
    auto r = Checkpoint(id, "X differs from Y [@a].", Json::array({SourceArg("a", "https://a.test/x")}),
                        Json::array({ClaimArg("c1", {"a"})}));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->status, "active") << IssueLines(*r);
  }
  RavenSession s;
};

TEST_F(EngineTest, TaskIdIsHashOfSessionAndOrdinal) {
  std::string id = Start();
  // SHA-256("session-1") begins with these 12 hex digits.
  EXPECT_EQ(id, MakeTaskId("session-1", 1));
  EXPECT_EQ(id.substr(0, 4), "rvn-");
  EXPECT_EQ(id.size(), 4u + 12u + 2u);
  EXPECT_EQ(Sha256Hex("session-1").substr(0, 12), id.substr(4, 12));
  EXPECT_EQ(MakeCheckpointId(id, 3), id + "-cp-3");
}

TEST_F(EngineTest, Sha256MatchesKnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Tagged(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_F(EngineTest, StartDefaultsAndEvidenceFloor) {
  auto r = s.Call({{"action", "start"}, {"outcome", "research"}, {"request", "q"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state.grounding, Grounding::kRequired);
  EXPECT_EQ(r->state.revision, 1);
  EXPECT_EQ(r->state.phase, Phase::kActive);
  ASSERT_TRUE(s.Call({{"action", "stop"}, {"taskId", r->state.task_id}}).ok());
  for (std::string outcome : {"research", "academic-writing"}) {
    auto none = s.Call({{"action", "start"}, {"outcome", outcome}, {"request", "q"}, {"grounding", "none"}});
    ASSERT_FALSE(none.ok());
    EXPECT_THAT(none.status().message(), HasSubstr("cannot disable its evidence floor"));
  }
  auto optional = s.Call({{"action", "start"}, {"outcome", "academic-writing"}, {"request", "q"},
                          {"grounding", "optional"}});
  ASSERT_TRUE(optional.ok());
  EXPECT_EQ(optional->state.grounding, Grounding::kOptional);
  ASSERT_TRUE(s.Call({{"action", "stop"}, {"taskId", optional->state.task_id}}).ok());
  auto learning = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", "q"}});
  ASSERT_TRUE(learning.ok());
  EXPECT_EQ(learning->state.grounding, Grounding::kOptional);
  EXPECT_EQ(learning->state.ordinal, 3);
}

TEST_F(EngineTest, UnknownFieldsAreRefusedPerAction) {
  auto r = s.Call({{"action", "start"}, {"outcome", "research"}, {"request", "q"}, {"taskId", "x"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("unknown field(s): taskId"));
  EXPECT_THAT(r.status().message(), HasSubstr("Accepted field(s): action, outcome, request, grounding"));
  std::string id = Start();
  Json extra = SourceArg("a", "https://a.test/");
  extra["extra"] = 1;
  auto nested = Checkpoint(id, "Text.", Json::array({extra}));
  ASSERT_FALSE(nested.ok());
  EXPECT_THAT(nested.status().message(), HasSubstr("sources[0]: contains unknown field(s): extra"));
}

TEST_F(EngineTest, OneActiveTaskAtATimeAndOrdinalsAreSessionWide) {
  std::string first = Start();
  auto again = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", "q"}});
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("still active"));
  ASSERT_TRUE(s.Call({{"action", "stop"}, {"taskId", first}}).ok());
  std::string second = Start("learning");
  EXPECT_EQ(second, MakeTaskId("session-1", 2));
  auto resume = s.Call({{"action", "resume"}, {"taskId", first}});
  ASSERT_FALSE(resume.ok());
  EXPECT_THAT(resume.status().message(), HasSubstr("stop it before resuming"));
  // Status of an older Task does not change the current Task.
  auto status = s.Call({{"action", "status"}, {"taskId", first}});
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->current_task_id, second);
  auto current = s.Call({{"action", "status"}});
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current->state.task_id, second);
}

TEST_F(EngineTest, StopAndResumeKeepTheTask) {
  std::string id = Start();
  Grounded(id);
  auto stop = s.Call({{"action", "stop"}, {"taskId", id}, {"reason", "user paused"}});
  ASSERT_TRUE(stop.ok());
  EXPECT_EQ(stop->state.phase, Phase::kStopped);
  EXPECT_EQ(stop->state.revision, 3);
  auto again = s.Call({{"action", "stop"}, {"taskId", id}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->state.revision, 3) << "a no-op stop keeps the revision";
  auto steer = s.Call({{"action", "steer"}, {"taskId", id}, {"correction", "x"}});
  ASSERT_FALSE(steer.ok());
  EXPECT_THAT(steer.status().message(), HasSubstr("call resume first"));
  auto resume = s.Call({{"action", "resume"}, {"taskId", id}});
  ASSERT_TRUE(resume.ok());
  EXPECT_EQ(resume->state.phase, Phase::kActive);
  EXPECT_EQ(resume->state.revision, 4);
  EXPECT_EQ(resume->state.checkpoints.size(), 1u);
  auto noop = s.Call({{"action", "resume"}, {"taskId", id}});
  EXPECT_EQ(noop->state.revision, 4);
}

TEST_F(EngineTest, SourceResubmissionIsIdempotentAndChangedEvidenceNeedsNewId) {
  std::string id = Start();
  Grounded(id);
  int checks = s.verifier.checked();
  // Exact resubmission keeps the recorded check.
  auto same = Checkpoint(id, "X differs from Y [@a]. More.", Json::array({SourceArg("a", "https://a.test/x")}));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->status, "active");
  EXPECT_EQ(same->state.sources.size(), 1u);
  EXPECT_GT(s.verifier.checked(), checks) << "relevant Sources are reopened on every Checkpoint";
  Json changed = SourceArg("a", "https://a.test/x");
  changed["excerpt"] = "another passage of the same page, copied verbatim";
  auto rewrite = Checkpoint(id, "X differs from Y [@a].", Json::array({changed}));
  ASSERT_TRUE(rewrite.ok());
  EXPECT_EQ(rewrite->status, "needs-revision");
  EXPECT_FALSE(rewrite->mutated);
  EXPECT_THAT(IssueLines(*rewrite), HasSubstr("sources[0]: Source a cannot be rewritten"));
  auto dup_url = Checkpoint(id, "T [@b].", Json::array({SourceArg("b", "https://A.test:443/x")}));
  EXPECT_THAT(IssueLines(*dup_url), HasSubstr("already registered as Source a"));
  auto fragment =
      Checkpoint(id, "T [@b].", Json::array({SourceArg("b", "https://a.test/x#r", "other")}));
  EXPECT_THAT(IssueLines(*fragment), HasSubstr("already registered as Source a"))
      << "one page, one Source";
}

// A page that changed after its Source failed takes the new text under a new
// Source id; the failed Source is superseded (no longer citable, never
// reopened), and the page still cannot be registered a third time.
TEST_F(EngineTest, ADriftedSourcesPageCanBeCitedAgainWithItsNewText) {
  std::string id = Start();
  Grounded(id);
  s.verifier.Failed("a", "absent");
  ASSERT_EQ(Checkpoint(id, "X differs from Y [@a].")->status, "needs-revision");
  Json fresh = SourceArg("a2", "https://a.test/x");
  fresh["excerpt"] = "the updated passage of the page, copied verbatim";
  s.verifier.Reachable("a2");
  int checks = s.verifier.checked();
  auto r = Checkpoint(id, "X differs from Y [@a2].", Json::array({fresh}),
                      Json::array({ClaimArg("c1", {"a2"})}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, "active") << IssueLines(*r);
  EXPECT_EQ(s.verifier.checked(), checks + 1) << "only a2 is reopened";
  EXPECT_EQ(s.Replayed(id), r->state);
  auto old = Checkpoint(id, "X differs from Y [@a].");
  EXPECT_THAT(IssueLines(*old), HasSubstr("cites Source a, superseded by Source a2"));
  auto claim =
      Checkpoint(id, "X differs [@a2].", Json::array(), Json::array({ClaimArg("c2", {"a", "a2"})}));
  EXPECT_THAT(IssueLines(*claim), HasSubstr("names Source a, superseded by Source a2"));
  auto dup = Checkpoint(id, "T.", Json::array({SourceArg("b", "https://a.test/x#copy", "other")}));
  EXPECT_THAT(IssueLines(*dup), HasSubstr("already registered as Source a2"));
}

// An excerpt short enough to be found on almost any page proves nothing: it
// is refused at the Checkpoint, counted on the key the verifier matches.
TEST_F(EngineTest, ATrivialExcerptIsRefused) {
  std::string id = Start();
  s.verifier.Reachable("a");
  for (std::string excerpt : {std::string("."), std::string("the"),
                              // 38 characters once the white space (a no-break space, a tab) folds.
                              std::string("   Tides\u00A0rise and fall\ttwice a lunar day.\n\n   "),
                              std::string(39, 'x')}) {
    Json src = SourceArg("a", "https://a.test/x");
    src["excerpt"] = excerpt;
    auto r = Checkpoint(id, "X differs from Y [@a].", Json::array({src}),
                        Json::array({ClaimArg("c1", {"a"})}));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, "needs-revision") << excerpt;
    EXPECT_FALSE(r->mutated);
    EXPECT_THAT(IssueLines(*r), HasSubstr("sources[0].excerpt: Source a: the excerpt is "));
    EXPECT_THAT(IssueLines(*r), HasSubstr("at least 40 are needed"));
  }
  EXPECT_EQ(s.verifier.checked(), 0) << "a refused Checkpoint reopens nothing";
  // 40 once the soft hyphen is dropped.
  Json enough = SourceArg("a", "https://a.test/x");
  enough["excerpt"] = "Tides rise and fall twice in a lu\u00ADnar day";
  auto r = Checkpoint(id, "X differs from Y [@a].", Json::array({enough}),
                      Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, "active") << IssueLines(*r);
}

TEST_F(EngineTest, CredentialAndNonHttpUrlsAreRefused) {
  std::string id = Start();
  auto cred = Checkpoint(id, "T.", Json::array({SourceArg("a", "https://user:pw@a.test/x")}));
  ASSERT_TRUE(cred.ok());
  EXPECT_EQ(cred->status, "needs-revision");
  EXPECT_THAT(IssueLines(*cred), HasSubstr("sources[0].url: credential-bearing URL refused"));
  auto js = Checkpoint(id, "T.", Json::array({SourceArg("a", "javascript:alert(1)")}));
  EXPECT_THAT(IssueLines(*js), HasSubstr("sources[0].url: invalid external URL"));
}

TEST_F(EngineTest, ClaimRules) {
  std::string id = Start();
  Grounded(id);
  Json reused = ClaimArg("c1", {"a"});
  reused["text"] = "Different text";
  auto r = Checkpoint(id, "T [@a].", Json::array(), Json::array({reused}));
  EXPECT_THAT(IssueLines(*r), HasSubstr("claims[0].text: Claim c1 already has different text"));
  auto empty = Checkpoint(id, "T [@a].", Json::array(), Json::array({ClaimArg("c2", {})}));
  EXPECT_THAT(IssueLines(*empty),
              HasSubstr("claims[0].sourceIds: a supported external Claim needs"));
  auto unknown = Checkpoint(id, "T [@a].", Json::array(), Json::array({ClaimArg("c2", {"zz"})}));
  EXPECT_THAT(IssueLines(*unknown), HasSubstr("names unregistered Source zz"));
  // A deferred external Claim needs no Source.
  auto deferred = Checkpoint(id, "T [@a].", Json::array(), Json::array({ClaimArg("c3", {}, "deferred")}));
  EXPECT_EQ(deferred->status, "active") << IssueLines(*deferred);
}

TEST_F(EngineTest, ContradictionLinksAreValidatedAfterTheBatch) {
  std::string id = Start();
  s.verifier.Reachable("a");
  s.verifier.Reachable("b");
  Json c1 = ClaimArg("c1", {"a"}), c2 = ClaimArg("c2", {"b"});
  c1["contradicts"] = {"c2"};
  c2["contradicts"] = {"c1"};
  auto pair = Checkpoint(id, "One [@a]. Other [@b].",
                         Json::array({SourceArg("a", "https://a.test/"), SourceArg("b", "https://b.test/")}),
                         Json::array({c1, c2}));
  ASSERT_EQ(pair->status, "active") << IssueLines(*pair);
  std::string rendered = RenderArtifact(pair->state, *pair->state.latest_artifact);
  EXPECT_THAT(rendered, HasSubstr("`c1` (external, supported)"));
  EXPECT_THAT(rendered, HasSubstr("contested with `c2`"));
  EXPECT_THAT(rendered, HasSubstr("contested with `c1`"));
  Json self = ClaimArg("c3", {"a"});
  self["contradicts"] = {"c3"};
  auto bad = Checkpoint(id, "One [@a]. Other [@b].", Json::array(), Json::array({self}));
  EXPECT_THAT(IssueLines(*bad), HasSubstr("cannot contradict itself"));
  Json dangling = ClaimArg("c4", {"a"});
  dangling["contradicts"] = {"nope"};
  auto bad2 = Checkpoint(id, "One [@a]. Other [@b].", Json::array(), Json::array({dangling}));
  EXPECT_THAT(IssueLines(*bad2), HasSubstr("names unknown Claim nope"));
}

// An analysis Claim: it needs no Source.
Json AnalysisClaimArg(const std::string& id) {
  return {{"claimId", id},           {"text", "Analysis " + id},   {"kind", "analysis"},
          {"importance", "context"}, {"disposition", "supported"}, {"sourceIds", Json::array()}};
}

// The Claim ceiling holds for the whole batch: a Checkpoint that would take
// the Task past it is refused as a whole, with or without contradiction
// links, and records nothing.
TEST_F(EngineTest, ABatchPastTheClaimCeilingIsRefusedWhole) {
  std::string id = Start();
  Json full = Json::array();
  for (size_t i = 0; i < Limits::kClaims; ++i) {
    full.push_back(AnalysisClaimArg("a" + std::to_string(i)));
  }
  auto filled = Checkpoint(id, "Text.", Json::array(), full);
  ASSERT_TRUE(filled.ok()) << filled.status();
  ASSERT_EQ(filled->status, "active") << IssueLines(*filled);
  ASSERT_EQ(filled->state.claims.size(), Limits::kClaims);
  const int revision = filled->state.revision;

  Json linked = AnalysisClaimArg("extra");
  linked["contradicts"] = {"a0"};
  for (const Json& extra : {AnalysisClaimArg("extra"), linked}) {
    auto r = Checkpoint(id, "Text.", Json::array(), Json::array({extra}));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, "needs-revision");
    EXPECT_FALSE(r->mutated);
    EXPECT_THAT(IssueLines(*r), HasSubstr("claims: this Checkpoint adds 1 new Claim to the Task's "
                                          "512; a Task holds at most 512 Claims, so none of the "
                                          "batch was recorded"));
    EXPECT_EQ(s.Replayed(id).claims.size(), Limits::kClaims);
    EXPECT_EQ(s.Replayed(id).revision, revision);
  }
  // Updating Claims the Task already has is not an addition.
  Json update = AnalysisClaimArg("a1");
  update["disposition"] = "qualified";
  auto updated = Checkpoint(id, "Text.", Json::array(), Json::array({update}));
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->status, "active") << IssueLines(*updated);
  EXPECT_EQ(updated->state.claims.size(), Limits::kClaims);
}

TEST_F(EngineTest, ABatchThatOnlyPartlyFitsUnderTheClaimCeilingRecordsNothing) {
  std::string id = Start();
  Json most = Json::array();
  for (size_t i = 0; i + 1 < Limits::kClaims; ++i) {
    most.push_back(AnalysisClaimArg("a" + std::to_string(i)));
  }
  ASSERT_EQ(Checkpoint(id, "Text.", Json::array(), most)->status, "active");
  Json second = AnalysisClaimArg("y");
  second["contradicts"] = {"x"};
  auto r = Checkpoint(id, "Text.", Json::array(), Json::array({AnalysisClaimArg("x"), second}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, "needs-revision");
  EXPECT_THAT(IssueLines(*r), HasSubstr("adds 2 new Claims to the Task's 511"));
  TaskState kept = s.Replayed(id);
  EXPECT_EQ(kept.claims.size(), Limits::kClaims - 1);
  EXPECT_EQ(kept.FindClaim("x"), nullptr);
}

TEST_F(EngineTest, CitationsAreValidatedAtCheckpoint) {
  std::string id = Start();
  s.verifier.Reachable("a");
  auto unknown = Checkpoint(id, "See [@ghost].", Json::array({SourceArg("a", "https://a.test/")}));
  EXPECT_THAT(IssueLines(*unknown), HasSubstr("artifact: cites unknown Source [@ghost]"));
  auto raw = Checkpoint(id, "See https://evil.test/page.", Json::array({SourceArg("a", "https://a.test/")}));
  EXPECT_THAT(IssueLines(*raw), HasSubstr("unregistered external URL https://evil.test/page"));
  auto upper = Checkpoint(id, "See [NOAA](HTTPS://evil.test/phish) [@a].",
                          Json::array({SourceArg("a", "https://a.test/")}));
  EXPECT_THAT(IssueLines(*upper), HasSubstr("unregistered external URL HTTPS://evil.test/phish"));
  auto fake_fence = Checkpoint(id, "See [@a].\n    ```\nSee [@ghost].\n    ```",
                               Json::array({SourceArg("a", "https://a.test/")}));
  EXPECT_THAT(IssueLines(*fake_fence), HasSubstr("artifact: cites unknown Source [@ghost]"));
  auto registered = Checkpoint(id, "See https://a.test/ or [@a].", Json::array({SourceArg("a", "https://a.test/")}));
  EXPECT_EQ(registered->status, "active") << IssueLines(*registered);
  auto uncited = Checkpoint(id, "No citation here.", Json::array(), Json::array({ClaimArg("c1", {"a"})}));
  EXPECT_THAT(IssueLines(*uncited),
              HasSubstr("does not cite any Source of material supported Claim c1"));
  auto code = Checkpoint(id, "Example: `https://example.test/x` and [@a].");
  EXPECT_EQ(code->status, "active") << "a URL in code is an example, not a citation";
}

TEST_F(EngineTest, FailedVerificationDiscardsTheContributionAndDefersKnownClaims) {
  std::string id = Start();
  Grounded(id);
  s.verifier.Failed("b", "no part of the recorded excerpt occurs");
  auto r = Checkpoint(id, "X [@a] and [@b].", Json::array({SourceArg("b", "https://b.test/")}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, "needs-revision");
  EXPECT_FALSE(r->mutated) << "only new evidence failed";
  EXPECT_THAT(IssueLines(*r), HasSubstr("source b failed evidence verification"));
  EXPECT_EQ(r->state.sources.size(), 1u);
  // Now the already registered Source fails: its Claim is deferred.
  s.verifier.Failed("a", "HTTP 404");
  auto known = Checkpoint(id, "X [@a].");
  EXPECT_EQ(known->status, "needs-revision");
  EXPECT_TRUE(known->mutated);
  EXPECT_EQ(known->state.claims[0].disposition, Disposition::kDeferred);
  ASSERT_EQ(known->state.limitations.size(), 1u);
  EXPECT_EQ(known->state.limitations[0].limitation_id, "source-1");
  EXPECT_EQ(known->state.checkpoints.size(), 1u);
}

TEST_F(EngineTest, VerifierProtocolViolationsMakeSourcesUnavailable) {
  std::string id = Start();
  s.verifier.ReplyVerbatim(
      {{"a", CheckStatus::kReachable, 0, 200, "https://other.test/", std::nullopt, std::nullopt}});
  auto cross = Checkpoint(id, "X [@a].", Json::array({SourceArg("a", "https://a.test/")}));
  EXPECT_EQ(cross->status, "needs-revision");
  EXPECT_THAT(IssueLines(*cross), HasSubstr("source verifier protocol error"));
  s.verifier.ReplyVerbatim({});
  auto missing = Checkpoint(id, "X [@a].", Json::array({SourceArg("a", "https://a.test/")}));
  EXPECT_THAT(IssueLines(*missing), HasSubstr("a requested Source is missing"));
}

// A redirect within the same site (another case, an explicit default port)
// is accepted and recorded canonically; an observation that breaks the
// protocol makes every Source of the request unavailable: the verifier is
// not believed about the others either.
TEST_F(EngineTest, AMalformedObservationMakesEveryRequestedSourceUnavailable) {
  std::string id = Start();
  Grounded(id);
  SourceObservation moved{"b",          CheckStatus::kReachable, 0, 200, "HTTPS://B.Test:443/moved",
                          std::nullopt, CheckOutcome::kVerified};
  s.verifier.Set("b", moved);
  auto second = Checkpoint(id, "X differs [@a].\nY agrees [@b].",
                           Json::array({SourceArg("b", "https://b.test/")}),
                           Json::array({ClaimArg("c2", {"b"})}));
  ASSERT_EQ(second->status, "active") << IssueLines(*second);
  EXPECT_EQ(second->state.FindSource("b")->check.resolved_url, "https://b.test/moved");

  moved.resolved_url = "https://b.test:8443/moved";  // another port: another site
  s.verifier.Set("b", moved);
  auto done = Complete(id, "X differs [@a].\nY agrees [@b].");
  EXPECT_EQ(done->status, "needs-revision");
  EXPECT_THAT(IssueLines(*done), HasSubstr("another host or port (b.test:8443, not b.test)"));
  EXPECT_EQ(done->state.FindSource("a")->check.status, CheckStatus::kUnavailable);
  EXPECT_EQ(done->state.FindSource("b")->check.status, CheckStatus::kUnavailable);
  EXPECT_THAT(done->state.FindSource("a")->check.detail,
              ::testing::Optional(HasSubstr("source verifier protocol error: reachable b")));
  EXPECT_EQ(done->state.claims[0].disposition, Disposition::kDeferred);
  EXPECT_EQ(done->state.claims[1].disposition, Disposition::kDeferred);
  ASSERT_EQ(done->state.limitations.size(), 2u);
}

// A Source that could not be checked (unavailable) is not accused: its
// Claim may be resubmitted on it, and the Checkpoint that does so reopens it.
// A failed Source cannot support a Claim again.
TEST_F(EngineTest, AnUnavailableSourceMaySupportItsClaimAgainAFailedOneMayNot) {
  std::string id = Start();
  Grounded(id);
  s.verifier.Unavailable("a", "HTTP 429: too many requests");
  auto limited = Complete(id, "X differs from Y [@a].");
  EXPECT_EQ(limited->status, "needs-revision");
  EXPECT_THAT(IssueLines(*limited), HasSubstr("source a could not be checked at Completion "
                                              "(unavailable): HTTP 429"));
  EXPECT_THAT(IssueLines(*limited), Not(HasSubstr("failed")));
  EXPECT_EQ(limited->state.claims[0].disposition, Disposition::kDeferred);
  ASSERT_EQ(limited->state.limitations.size(), 1u);
  EXPECT_EQ(limited->state.limitations[0].detail,
            "Source a could not be checked (unavailable): HTTP 429: too many requests");

  s.verifier.Unavailable("a", "the per-fetch deadline ran out");
  auto still =
      Checkpoint(id, "X differs from Y [@a].", Json::array(), Json::array({ClaimArg("c1", {"a"})}));
  EXPECT_EQ(still->status, "needs-revision");
  EXPECT_THAT(IssueLines(*still), HasSubstr("source a could not be checked (unavailable; it is "
                                            "reopened when a Checkpoint cites it again)"));
  s.verifier.Reachable("a");
  auto again =
      Checkpoint(id, "X differs from Y [@a].", Json::array(), Json::array({ClaimArg("c1", {"a"})}));
  ASSERT_EQ(again->status, "active") << IssueLines(*again);
  EXPECT_EQ(again->state.claims[0].disposition, Disposition::kSupported);
  EXPECT_EQ(again->state.FindSource("a")->check.status, CheckStatus::kReachable);

  s.verifier.Failed("a", "HTTP 404");
  auto failed = Checkpoint(id, "X differs from Y [@a].");
  EXPECT_THAT(IssueLines(*failed), HasSubstr("source a failed evidence verification: HTTP 404"));
  EXPECT_EQ(failed->state.claims[0].disposition, Disposition::kDeferred);
  s.verifier.Reachable("a");
  auto refused =
      Checkpoint(id, "X differs from Y [@a].", Json::array(), Json::array({ClaimArg("c1", {"a"})}));
  EXPECT_THAT(IssueLines(*refused), HasSubstr("every Source of this Claim failed verification"));
}

TEST_F(EngineTest, ProgressiveCheckpointsThenCompletion) {
  std::string id = Start();
  Grounded(id);
  s.verifier.Reachable("b");
  auto second = Checkpoint(id, "X differs [@a].\nY agrees [@b].", Json::array({SourceArg("b", "https://b.test/", "fam")}),
                           Json::array({ClaimArg("c2", {"b"})}));
  ASSERT_EQ(second->status, "active") << IssueLines(*second);
  ASSERT_EQ(second->state.checkpoints.size(), 2u);
  EXPECT_EQ(second->state.checkpoints[1].checkpoint_id, id + "-cp-2");
  auto done = Complete(id, "X differs [@a]. Y agrees [@b].");  // re-laid to the same bytes
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->status, "completed") << IssueLines(*done);
  EXPECT_EQ(done->state.phase, Phase::kCompleted);
  EXPECT_EQ(done->state.checkpoints.back().stage, Stage::kVerify);
  EXPECT_EQ(done->state.final_artifact_sha256, done->state.checkpoints[1].artifact_sha256);
  EXPECT_EQ(done->state.verification->mode, "remote");
  EXPECT_EQ(done->state.verification->reachable, 2);
  auto after = Checkpoint(id, "More.");
  EXPECT_FALSE(after.ok()) << "a completed Task takes no Checkpoint";
}

// What Raven shows of the latest Checkpoint (its citations as links, the
// Sources, the Claim trace) completes it as well as the packed text does;
// anything else is still refused.
TEST_F(EngineTest, TheBytesRavenReturnedCompleteTheCheckpointTheyShow) {
  std::string id = Start();
  Grounded(id);
  auto status = s.Call({{"action", "status"}, {"taskId", id}});
  ASSERT_TRUE(status.ok()) << status.status();
  const std::string shown_result = RenderResult(*status);
  const size_t rule = shown_result.rfind("\n---\n");
  ASSERT_NE(rule, std::string::npos) << shown_result;
  const std::string shown = shown_result.substr(rule + 5);
  EXPECT_THAT(shown, HasSubstr("https://a.test/x"));
  EXPECT_THAT(shown, Not(HasSubstr("[@a]")));

  auto changed = Complete(id, shown + "\nOne more line.");
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->status, "needs-revision");
  EXPECT_THAT(IssueLines(*changed), HasSubstr("differs from Checkpoint"));

  auto done = Complete(id, shown);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status, "completed") << IssueLines(*done);
  EXPECT_EQ(done->state.final_artifact_sha256, done->state.checkpoints[0].artifact_sha256);
}

TEST_F(EngineTest, CompletionRefusals) {
  std::string id = Start();
  auto none = Complete(id, "Anything.");
  EXPECT_EQ(none->status, "needs-revision");
  EXPECT_THAT(IssueLines(*none), HasSubstr("no Checkpoint exists"));
  EXPECT_THAT(IssueLines(*none), HasSubstr("grounding-required Completion needs"));
  EXPECT_FALSE(none->mutated);
  // Ungrounded Checkpoint: the evidence floor refuses.
  ASSERT_EQ(Checkpoint(id, "Prose without evidence.")->status, "active");
  auto floor = Complete(id, "Prose without evidence.");
  EXPECT_THAT(IssueLines(*floor), HasSubstr("grounding-required Completion needs"));
  Grounded(id);
  // Different bytes.
  auto edited = Complete(id, "X differs from Y [@a]. Edited.");
  EXPECT_THAT(IssueLines(*edited),
              HasSubstr("the exact latest Checkpoint Artifact must be completed"));
  // Unknown citation and unregistered URL in the final Artifact.
  auto cites = Complete(id, "X [@ghost] https://evil.test/");
  EXPECT_THAT(IssueLines(*cites), HasSubstr("cites unknown Source [@ghost]"));
  EXPECT_THAT(IssueLines(*cites), HasSubstr("unregistered external URL"));
  // Material Claim without a citation in the final Artifact.
  ASSERT_EQ(Checkpoint(id, "No cite.")->status, "needs-revision");
  // Steering without a later Checkpoint.
  ASSERT_TRUE(s.Call({{"action", "steer"}, {"taskId", id}, {"correction", "Shorter."}}).ok());
  auto steer = Complete(id, "X differs from Y [@a].");
  EXPECT_THAT(IssueLines(*steer), HasSubstr("Steering Revision 1 has no later Checkpoint"));
  EXPECT_EQ(s.Replayed(id).phase, Phase::kActive);
  // A cited Source broken at Completion: Claims deferred, Limitation kept.
  ASSERT_EQ(Checkpoint(id, "X differs from Y [@a].")->status, "active");
  s.verifier.Failed("a", "HTTP 410");
  auto broken = Complete(id, "X differs from Y [@a].");
  EXPECT_EQ(broken->status, "needs-revision");
  EXPECT_THAT(IssueLines(*broken), HasSubstr("source a failed remote verification: HTTP 410"));
  EXPECT_EQ(broken->state.claims[0].disposition, Disposition::kDeferred);
  EXPECT_EQ(broken->state.phase, Phase::kActive);
}

TEST_F(EngineTest, MaterialClaimCitationRefusedAtCompletion) {
  std::string id = Start("general-writing");
  s.verifier.Reachable("a");
  ASSERT_EQ(Checkpoint(id, "Text [@a].", Json::array({SourceArg("a", "https://a.test/")}))->status, "active");
  auto r = Complete(id, "Text [@a].");
  EXPECT_EQ(r->status, "completed");
  // Compare: a Task whose Artifact drops the citation of a material Claim.
  RavenSession other("session-2");
  other.verifier.Reachable("a");
  auto t = other.Call({{"action", "start"}, {"outcome", "research"}, {"request", "q"}});
  std::string tid = t->state.task_id;
  auto cp = other.Call({{"action", "checkpoint"}, {"taskId", tid}, {"stage", "draft"}, {"summary", "s"},
                        {"artifact", "A [@a]."}, {"sources", Json::array({SourceArg("a", "https://a.test/")})},
                        {"claims", Json::array({ClaimArg("c1", {"a"})})}});
  ASSERT_EQ(cp->status, "active");
  EXPECT_NE(Sha256Tagged("A."), cp->state.checkpoints[0].artifact_sha256);
}

TEST_F(EngineTest, CompletedWithLimits) {
  std::string id = Start();
  s.verifier.Reachable("a");
  Json failures = Json::array({{{"kind", "coverage"}, {"detail", "No data after 2024."}}});
  auto cp = s.Call({{"action", "checkpoint"}, {"taskId", id}, {"stage", "analyze"}, {"summary", "s"},
                    {"artifact", "X [@a]."}, {"sources", Json::array({SourceArg("a", "https://a.test/")})},
                    {"claims", {ClaimArg("c1", {"a"}), ClaimArg("c2", {}, "deferred")}},
                    {"failures", failures}});
  ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
  EXPECT_EQ(cp->state.limitations[0].limitation_id, "coverage-1");
  auto done = Complete(id, "X [@a].");
  EXPECT_EQ(done->status, "completed-with-limits");
  EXPECT_THAT(IssueLines(*done), HasSubstr("No data after 2024."));
  EXPECT_THAT(IssueLines(*done), HasSubstr("one or more Claims remain deferred"));
  EXPECT_EQ(done->state.checkpoints.back().summary, "Final Artifact with verification limits.");
}

TEST_F(EngineTest, SteeringInvalidatesVerificationAndNeedsANewCheckpoint) {
  std::string id = Start();
  Grounded(id);
  auto steer = s.Call({{"action", "steer"}, {"taskId", id}, {"correction", "Focus on Y."}});
  ASSERT_TRUE(steer.ok());
  EXPECT_EQ(steer->state.steering_revision, 1);
  EXPECT_FALSE(steer->state.verification.has_value());
  ASSERT_EQ(Checkpoint(id, "Y differs from X [@a].")->status, "active");
  EXPECT_EQ(s.Replayed(id).checkpoints.back().steering_revision, 1);
  EXPECT_EQ(Complete(id, "Y differs from X [@a].")->status, "completed");
}

TEST_F(EngineTest, FourOutcomesThroughOneTaskIdentity) {
  int ordinal = 0;
  for (std::string outcome : {"research", "general-writing", "academic-writing", "learning"}) {
    auto t = s.Call({{"action", "start"}, {"outcome", outcome}, {"request", "about " + outcome}});
    ASSERT_TRUE(t.ok()) << t.status();
    std::string id = t->state.task_id;
    EXPECT_EQ(id, MakeTaskId("session-1", ++ordinal));
    s.verifier.Reachable("s" + std::to_string(ordinal));
    std::string src = "s" + std::to_string(ordinal);
    auto cp = Checkpoint(id, "Finding [@" + src + "].", Json::array({SourceArg(src, "https://x.test/" + src)}),
                         Json::array({ClaimArg("c", {src})}));
    ASSERT_EQ(cp->status, "active") << IssueLines(*cp);
    auto done = Complete(id, "Finding [@" + src + "].");
    EXPECT_EQ(done->status, "completed") << outcome << IssueLines(*done);
    EXPECT_EQ(done->state.task_id, id);
    EXPECT_EQ(done->state.outcome, *Parse<Outcome>(outcome));
  }
}

TEST_F(EngineTest, OptionalGroundingCompletesStructurally) {
  std::string id = Start("learning");
  ASSERT_EQ(Checkpoint(id, "An explanation.")->status, "active");
  auto done = Complete(id, "An explanation.");
  EXPECT_EQ(done->status, "completed");
  EXPECT_EQ(done->state.verification->mode, "structural-only");
}

TEST_F(EngineTest, DiscoverReturnsLeadsAndRecordsFailedQueries) {
  std::string id = Start();
  s.searcher.Set("alpha", {{"https://a.test/1", "A1", "snip", {}}, {"https://b.test/2", "B2", "", {}}});
  s.searcher.Set("beta", {{"https://B.test/2", "B2 again", "", {}}});
  auto r = s.Call({{"action", "discover"}, {"taskId", id}, {"queries", {"alpha", "beta", "gamma", "alpha"}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->extra, HasSubstr("uninspected candidates, not Sources"));
  EXPECT_THAT(r->extra, HasSubstr("queries: beta \\| alpha"));
  EXPECT_TRUE(r->mutated);
  ASSERT_EQ(r->state.limitations.size(), 1u);
  EXPECT_THAT(r->state.limitations[0].detail, HasSubstr("\"gamma\" failed"));
  EXPECT_TRUE(r->state.sources.empty()) << "Leads never become Sources";
  auto many = s.Call({{"action", "discover"}, {"taskId", id}, {"queries", {"1", "2", "3", "4", "5"}}});
  EXPECT_FALSE(many.ok());
}

TEST_F(EngineTest, DiscoverMergesRoundRobinByRankAndFoldsExactUrls) {
  std::string id = Start();
  s.searcher.Set("one", {{"https://a.test/1", "A1", "", {}, "2024-01-02"},
                         {"https://shared.test/", "S", "", {}},
                         {"https://a.test/3", "A3", "", {}}});
  s.searcher.Set("two", {{"https://shared.test/", "S again", "", {}},
                         {"https://b.test/2", "B2", "", {}}});
  auto r = s.Call({{"action", "discover"}, {"taskId", id}, {"queries", {"one", "two"}}});
  ASSERT_TRUE(r.ok()) << r.status();
  // Rank 1 of each query, then rank 2 of each, then rank 3: the shared URL
  // is one Lead recording both queries, not corroboration.
  const std::string& text = r->extra;
  size_t a1 = text.find("A1"), s1 = text.find("S again"), b2 = text.find("B2"),
         a3 = text.find("A3");
  ASSERT_NE(a1, std::string::npos);
  ASSERT_NE(a3, std::string::npos);
  EXPECT_LT(a1, s1);
  EXPECT_LT(s1, b2);
  EXPECT_LT(b2, a3);
  EXPECT_EQ(text.find("https://shared.test/"), text.rfind("https://shared.test/"));
  EXPECT_THAT(text, HasSubstr("queries: two \\| one"));
  EXPECT_THAT(text, HasSubstr("published: 2024\\-01\\-02"));
  EXPECT_THAT(r->message, HasSubstr("4 Lead(s)"));
  EXPECT_FALSE(r->mutated) << "no query failed: the Task is unchanged";
}

TEST_F(EngineTest, DiscoverBoundsWhatABackendSays) {
  std::string id = Start();
  std::string long_title(600, 'T');
  std::string long_snippet;
  for (int i = 0; i < 600; ++i) long_snippet += "é";
  s.searcher.Set("q", {{"https://a.test/1", long_title, long_snippet, {}}});
  auto r = s.Call({{"action", "discover"}, {"taskId", id}, {"queries", {"q"}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->extra, HasSubstr(std::string(Limits::kLeadTitleChars, 'T') + "…"));
  EXPECT_EQ(r->extra.find(std::string(Limits::kLeadTitleChars + 1, 'T')), std::string::npos);
  std::string cut;
  for (size_t i = 0; i < Limits::kLeadSnippetChars; ++i) cut += "é";
  EXPECT_THAT(r->extra, HasSubstr(cut + "…"));
}

TEST_F(EngineTest, DiscoverUnavailableIsReportedNotEmpty) {
  RavenSession u;
  u.searcher = DeterministicSourceSearcher("no search backend is composed");
  auto t = u.Call({{"action", "start"}, {"outcome", "research"}, {"request", "q"}});
  auto r = u.Call({{"action", "discover"}, {"taskId", t->state.task_id}, {"queries", {"x"}}});
  EXPECT_EQ(r->status, "unavailable");
  EXPECT_THAT(r->state.limitations.at(0).detail, HasSubstr("no search backend is composed"));
}

TEST_F(EngineTest, DraftVariantsAreCandidatesNeverEvidence) {
  std::string id = Start();
  auto off = s.Call({{"action", "draft"}, {"taskId", id}, {"instruction", "Write an intro."}});
  EXPECT_EQ(off->status, "unavailable");
  s.drafter = DeterministicDraftGenerator({"p/m1", "p/m2"}, {"p/m2"});
  auto bad = s.Call({{"action", "draft"}, {"taskId", id}, {"instruction", "x"}, {"routes", {"q/other"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("Configured route(s): p/m1, p/m2"));
  auto r = s.Call({{"action", "draft"}, {"taskId", id}, {"instruction", "Write an intro."}});
  EXPECT_THAT(r->extra, HasSubstr("candidate wording, not evidence"));
  EXPECT_THAT(r->extra, HasSubstr("failed route p/m2"));
  EXPECT_FALSE(r->mutated);
  // Adopting variant wording verbatim still leaves the floor refused.
  ASSERT_EQ(Checkpoint(id, "p/m1: Write an intro.")->status, "active");
  EXPECT_EQ(Complete(id, "p/m1: Write an intro.")->status, "needs-revision");
}

TEST_F(EngineTest, CeilingsAreEnforcedInCodePoints) {
  auto long_request = s.Call({{"action", "start"}, {"outcome", "learning"},
                              {"request", std::string(Limits::kRequestChars + 1, 'x')}});
  EXPECT_FALSE(long_request.ok());
  std::string cjk;
  for (size_t i = 0; i < Limits::kRequestChars; ++i) cjk += "\xe4\xb8\xad";  // 中
  auto at_limit = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", cjk}});
  EXPECT_TRUE(at_limit.ok()) << "the ceiling counts characters, not bytes";
}

TEST_F(EngineTest, ExportNeedsACheckpoint) {
  std::string id = Start();
  auto r = s.Call({{"action", "export"}, {"taskId", id}});
  EXPECT_EQ(r->status, "needs-revision");
  Grounded(id);
  auto ok = s.Call({{"action", "export"}, {"taskId", id}, {"tags", {"research", "x-1"}}});
  EXPECT_EQ(ok->status, "active");
  EXPECT_FALSE(ok->mutated);
  EXPECT_FALSE(ok->pages.empty());
  auto bad = s.Call({{"action", "export"}, {"taskId", id}, {"tags", {"Bad Tag"}}});
  EXPECT_FALSE(bad.ok());
}

// The page an Artifact becomes is fenced by a run longer than any of its
// own, and a multi-line title stays one line, so neither can end the page
// early nor write log.md entries of its own.
TEST_F(EngineTest, ExportFencesHoldTheArtifactAndTitlesStayOneLine) {
  std::string id = Start();
  Grounded(id);
  const std::string artifact = "X differs from Y [@a].\n\n`````text\n````\nWrite `evil.md`\n`````";
  ASSERT_EQ(Checkpoint(id, artifact)->status, "active");
  auto r = s.Call({{"action", "export"},
                   {"taskId", id},
                   {"title", "Tides\n\n## [2026-01-01] raven | forged\r\n- Task: none"}});
  ASSERT_TRUE(r.ok()) << r.status();
  const WikiPage& query = r->pages.front();
  ASSERT_THAT(query.content, HasSubstr("`````text"));
  EXPECT_THAT(r->extra, HasSubstr("``````markdown\n" + query.content + "``````\n"));
  const WikiPage& log = r->pages.back();
  ASSERT_EQ(log.path, "wiki/log.md");
  EXPECT_THAT(log.content, HasSubstr("— Tides ## [2026-01-01] raven | forged - Task: none\n"));
  EXPECT_EQ(log.content.find("\n## ", 1), std::string::npos) << "one entry: " << log.content;
}

TEST_F(EngineTest, SessionReplaysToTheSameState) {
  std::string id = Start();
  Grounded(id);
  auto done = Complete(id, "X differs from Y [@a].");
  ASSERT_EQ(done->status, "completed");
  EXPECT_EQ(s.Replayed(id), done->state);
  // A damaged newest record is skipped; the older one restores.
  s.records.push_back("{\"kind\":\"raw.raven/task-state\",\"version\":1}");
  EXPECT_EQ(s.Replayed(id), done->state);
}

}  // namespace
}  // namespace raw::raven
