// HttpSourceVerifier over the real libcurl client against a local HTTP
// server on 127.0.0.1 (the only fake: it stands in for the web), and wired
// into the Task engine through its verifier seam.
#include "daemon/raven/web/http_source_verifier.h"

#include <atomic>
#include <string>
#include <vector>

#include "common/time.h"
#include "daemon/http/curl_http_client.h"
#include "daemon/raven/codec.h"
#include "daemon/raven/engine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_http_client.h"
#include "tests/fakes/fake_provider_server.h"

namespace raw::raven::web {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

constexpr char kArticle[] =
    "<!DOCTYPE html><html><head><title>Study</title></head><body><main><h1>Findings</h1>"
    "<p>The <em>trial</em> enrolled 1,204&nbsp;patients across <b>nine</b> sites.</p>"
    "</main></body></html>";
constexpr char kExcerpt[] = "The trial enrolled 1,204 patients across nine sites.";

::raw::testing::ScriptedResponse Html(std::string body, int status = 200) {
  ::raw::testing::ScriptedResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "text/html; charset=utf-8"}};
  r.chunks = {std::move(body)};
  return r;
}

class HttpSourceVerifierTest : public ::testing::Test {
 protected:
  HttpSourceVerifierTest() {
    settings_.allow_private_addresses = true;
    settings_.fetch_timeout_ms = 10000;
    settings_.total_timeout_ms = 30000;
  }
  void SetUp() override { ASSERT_TRUE(site_.status().ok()) << site_.status(); }

  std::string Url(const std::string& path) {
    return "http://127.0.0.1:" + std::to_string(site_.port()) + path;
  }
  Source MakeSource(const std::string& id, const std::string& path,
                    const std::string& excerpt = kExcerpt) {
    Source s;
    s.source_id = id;
    s.url = Url(path);
    s.title = "Study";
    s.locator = "Findings";
    s.excerpt = excerpt;
    return s;
  }
  SourceObservation VerifyOne(const Source& s) {
    FixedVerifierSettings fixed(settings_);
    HttpSourceVerifier verifier(client_, fixed);
    std::vector<SourceObservation> out = verifier.Verify({s}, cancel_);
    EXPECT_EQ(out.size(), 1u);
    return out.empty() ? SourceObservation{} : out[0];
  }

  ::raw::testing::FakeProviderServer site_;
  http::CurlHttpClient client_;
  VerifierSettings settings_;
  CancelToken cancel_;
};

TEST_F(HttpSourceVerifierTest, AnHonestExcerptIsVerified) {
  site_.Enqueue(Html(kArticle));
  SourceObservation o = VerifyOne(MakeSource("s1", "/study"));
  EXPECT_EQ(o.status, CheckStatus::kReachable) << o.detail.value_or("");
  EXPECT_EQ(o.outcome, CheckOutcome::kVerified);
  EXPECT_EQ(o.status_code, 200);
  EXPECT_EQ(o.resolved_url, Url("/study"));
  ASSERT_EQ(site_.requests().size(), 1u);
  EXPECT_EQ(site_.requests()[0].Header("Cookie"), "");
  EXPECT_EQ(site_.requests()[0].Header("Authorization"), "");
}

TEST_F(HttpSourceVerifierTest, ADoctoredExcerptIsAbsentWithThePassage) {
  site_.Enqueue(Html(kArticle));
  SourceObservation o =
      VerifyOne(MakeSource("s1", "/study", "The trial enrolled 1,204 patients across ten sites."));
  EXPECT_EQ(o.status, CheckStatus::kFailed);
  EXPECT_EQ(o.outcome, CheckOutcome::kAbsent);
  EXPECT_THAT(o.detail, Optional(HasSubstr("partial divergence")));
  EXPECT_THAT(o.detail, Optional(HasSubstr("across nine sites")));
}

TEST_F(HttpSourceVerifierTest, SameHostRedirectsAreFollowedCrossHostOnesRefused) {
  ::raw::testing::ScriptedResponse moved;
  moved.status = 301;
  moved.headers = {{"Location", "/new-home"}};
  site_.Enqueue(moved);
  site_.Enqueue(Html(kArticle));
  SourceObservation same = VerifyOne(MakeSource("s1", "/old-home"));
  EXPECT_EQ(same.outcome, CheckOutcome::kVerified) << same.detail.value_or("");
  EXPECT_EQ(same.resolved_url, Url("/new-home"));

  ::raw::testing::ScriptedResponse away;
  away.status = 302;
  away.headers = {{"Location", "http://localhost:" + std::to_string(site_.port()) + "/elsewhere"}};
  site_.Enqueue(away);
  SourceObservation cross = VerifyOne(MakeSource("s2", "/jump"));
  EXPECT_EQ(cross.status, CheckStatus::kFailed);
  EXPECT_EQ(cross.outcome, CheckOutcome::kUnreachable);
  EXPECT_THAT(cross.detail, Optional(HasSubstr("another host or port (localhost:" +
                                               std::to_string(site_.port()))));
  EXPECT_EQ(site_.requests().size(), 3u);  // the other host was never asked
}

// A URL the agent's rules deny is never requested, neither a Source's own
// nor one a same-host redirect leads to: the Source is unavailable
// (unchecked), and the detail names the rule.
TEST_F(HttpSourceVerifierTest, AUrlTheRulesDenyIsNeverRequested) {
  UrlRefusal refuse = [](const std::string& url) -> std::optional<std::string> {
    if (url.find("/private") == std::string::npos) return std::nullopt;
    return "agents.coder.rules[0] (deny builtin/web_fetch url \"*/private*\") for " + url;
  };
  FixedVerifierSettings fixed(settings_);
  HttpSourceVerifier verifier(client_, fixed, refuse);
  std::vector<SourceObservation> denied =
      verifier.Verify({MakeSource("s1", "/private?d=secret")}, cancel_);
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0].status, CheckStatus::kUnavailable);
  EXPECT_EQ(denied[0].outcome, CheckOutcome::kUnchecked);
  EXPECT_THAT(denied[0].detail,
              Optional(HasSubstr("not requested: the agent's rules deny " +
                                 Url("/private?d=secret") + " (agents.coder.rules[0]")));
  EXPECT_TRUE(site_.requests().empty());

  ::raw::testing::ScriptedResponse moved;
  moved.status = 302;
  moved.headers = {{"Location", "/private/next"}};
  site_.Enqueue(moved);
  std::vector<SourceObservation> redirected = verifier.Verify({MakeSource("s2", "/open")}, cancel_);
  ASSERT_EQ(redirected.size(), 1u);
  EXPECT_EQ(redirected[0].outcome, CheckOutcome::kUnchecked);
  EXPECT_THAT(redirected[0].detail, Optional(HasSubstr(Url("/private/next"))));
  EXPECT_EQ(site_.requests().size(), 1u);  // the redirect's target was never asked

  site_.Enqueue(Html(kArticle));
  std::vector<SourceObservation> allowed = verifier.Verify({MakeSource("s3", "/study")}, cancel_);
  ASSERT_EQ(allowed.size(), 1u);
  EXPECT_EQ(allowed[0].outcome, CheckOutcome::kVerified) << allowed[0].detail.value_or("");
}

// The site is compared the way Source identity is: a host in capitals is the
// same host (and the answering URL is reported canonical), another port on
// the same host is another site and is not asked.
TEST_F(HttpSourceVerifierTest, RedirectsAreJudgedByHostAndPort) {
  const std::string port = std::to_string(site_.port());
  ::raw::testing::ScriptedResponse upper;
  upper.status = 302;
  upper.headers = {{"Location", "http://LOCALHOST:" + port + "/article"}};
  site_.Enqueue(upper);
  site_.Enqueue(Html(kArticle));
  Source s1 = MakeSource("s1", "/old");
  s1.url = "http://localhost:" + port + "/old";
  SourceObservation same = VerifyOne(s1);
  EXPECT_EQ(same.outcome, CheckOutcome::kVerified) << same.detail.value_or("");
  EXPECT_EQ(same.resolved_url, "http://localhost:" + port + "/article");

  ::raw::testing::FakeProviderServer other;
  ASSERT_TRUE(other.status().ok()) << other.status();
  other.Enqueue(Html(kArticle));
  ::raw::testing::ScriptedResponse away;
  away.status = 302;
  away.headers = {{"Location", "http://127.0.0.1:" + std::to_string(other.port()) + "/article"}};
  site_.Enqueue(away);
  SourceObservation cross = VerifyOne(MakeSource("s2", "/jump"));
  EXPECT_EQ(cross.status, CheckStatus::kFailed);
  EXPECT_EQ(cross.outcome, CheckOutcome::kUnreachable);
  EXPECT_THAT(
      cross.detail,
      Optional(HasSubstr("another host or port (127.0.0.1:" + std::to_string(other.port()) + ")")));
  EXPECT_TRUE(other.requests().empty()) << "the other port was asked";
}

TEST_F(HttpSourceVerifierTest, ATruncatedBodyIsUncheckedNeverAbsent) {
  ::raw::testing::ScriptedResponse cut = Html("<p>The trial enrolled");
  cut.end = ::raw::testing::ScriptedResponse::End::kCut;
  site_.Enqueue(cut);
  SourceObservation o = VerifyOne(MakeSource("s1", "/cut"));
  EXPECT_EQ(o.status, CheckStatus::kUnavailable);
  EXPECT_EQ(o.outcome, CheckOutcome::kUnchecked);
  EXPECT_THAT(o.detail, Optional(HasSubstr("cut the body off")));

  settings_.max_bytes = 64;
  site_.Enqueue(Html(kArticle));
  SourceObservation capped = VerifyOne(MakeSource("s2", "/big"));
  EXPECT_EQ(capped.status, CheckStatus::kUnavailable);
  EXPECT_EQ(capped.outcome, CheckOutcome::kUnchecked);
  EXPECT_THAT(capped.detail, Optional(HasSubstr("longer than 64 bytes")));
}

TEST_F(HttpSourceVerifierTest, BlockPagesAreBlockedAndErrorsUnreachable) {
  site_.Enqueue(Html("<html><head><title>Just a moment...</title></head><body>"
                     "<form id='challenge-form' action='/?__cf_chl_f_tk=x'></form></body></html>",
                     200));
  site_.Enqueue(Html("<p>Forbidden</p>", 403));
  site_.Enqueue(Html("<p>Not found</p>", 404));
  site_.Enqueue(Html("<p>Oops</p>", 500));
  SourceObservation challenge = VerifyOne(MakeSource("s1", "/a"));
  SourceObservation forbidden = VerifyOne(MakeSource("s2", "/b"));
  SourceObservation missing = VerifyOne(MakeSource("s3", "/c"));
  SourceObservation broken = VerifyOne(MakeSource("s4", "/d"));
  EXPECT_EQ(challenge.outcome, CheckOutcome::kBlocked);
  EXPECT_EQ(challenge.status, CheckStatus::kUnavailable);
  EXPECT_EQ(forbidden.outcome, CheckOutcome::kBlocked);
  EXPECT_EQ(missing.outcome, CheckOutcome::kUnreachable);
  EXPECT_EQ(missing.status, CheckStatus::kFailed);
  EXPECT_THAT(missing.detail, Optional(HasSubstr("HTTP 404")));
  EXPECT_EQ(broken.outcome, CheckOutcome::kUnreachable);
}

TEST_F(HttpSourceVerifierTest, LoopbackIsRefusedUnlessAllowed) {
  settings_.allow_private_addresses = false;
  SourceObservation o = VerifyOne(MakeSource("s1", "/internal"));
  EXPECT_EQ(o.status, CheckStatus::kUnavailable);
  EXPECT_EQ(o.outcome, CheckOutcome::kUnchecked);
  EXPECT_THAT(o.detail, Optional(HasSubstr("loopback")));
  EXPECT_TRUE(site_.requests().empty());
}

TEST_F(HttpSourceVerifierTest, ASlowPagePastTheDeadlineIsUnreachable) {
  ::raw::testing::ScriptedResponse slow = Html(kArticle);
  slow.gate_before_chunk = 0;  // headers sent, the body never comes
  site_.Enqueue(slow);
  settings_.fetch_timeout_ms = 300;
  SourceObservation o = VerifyOne(MakeSource("s1", "/slow"));
  EXPECT_EQ(o.status, CheckStatus::kUnavailable);
  EXPECT_EQ(o.outcome, CheckOutcome::kUnreachable);
  EXPECT_THAT(o.detail, Optional(HasSubstr("within 300 ms")));
  site_.ReleaseGate();
}

// A client each of whose fetches takes a second of the test's clock.
class SecondPerFetchClient : public http::HttpClient {
 public:
  SecondPerFetchClient(http::HttpClient& inner, std::atomic<int64_t>& clock)
      : inner_(inner), clock_(clock) {}
  absl::Status Send(const http::HttpRequest& request, http::HttpResponseHandler& handler,
                    const CancelToken& cancel) override {
    clock_ += 1000;
    return inner_.Send(request, handler, cancel);
  }

 private:
  http::HttpClient& inner_;
  std::atomic<int64_t>& clock_;
};

// Sources the total time ran out before are reported not reached (nothing
// was observed of them); the ones fetched before are judged. One page at a
// time, so each fetch's second has passed before the next one starts
// (http_source_verifier_parallel_test.cc has the deadline with several).
TEST_F(HttpSourceVerifierTest, SourcesPastTheTotalDeadlineAreNotReached) {
  ::raw::testing::FakeHttpClient pages;
  for (int i = 0; i < 2; ++i) {
    pages.Enqueue({200, {{"Content-Type", "text/html"}}, {kArticle}, std::nullopt, {}});
  }
  std::atomic<int64_t> clock{0};
  SecondPerFetchClient client(pages, clock);
  settings_.total_timeout_ms = 1500;
  settings_.max_parallel_fetches = 1;
  FixedVerifierSettings fixed(settings_);
  HttpSourceVerifier verifier(client, fixed, nullptr, [&] { return clock.load(); });
  std::vector<SourceObservation> out = verifier.Verify(
      {MakeSource("a", "/a"), MakeSource("b", "/b"), MakeSource("c", "/c")}, cancel_);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, CheckStatus::kReachable);
  EXPECT_FALSE(out[0].not_reached);
  EXPECT_EQ(out[1].status, CheckStatus::kReachable);
  EXPECT_FALSE(out[1].not_reached);
  EXPECT_EQ(out[2].status, CheckStatus::kUnavailable);
  EXPECT_TRUE(out[2].not_reached);
  EXPECT_THAT(out[2].detail, Optional(HasSubstr("ran out before this Source was reopened")));
  EXPECT_EQ(pages.requests().size(), 2u);
}

TEST_F(HttpSourceVerifierTest, ACancelledCheckReportsEverySourceUnchecked) {
  cancel_.Cancel();
  SourceObservation o = VerifyOne(MakeSource("s1", "/x"));
  EXPECT_EQ(o.outcome, CheckOutcome::kUnchecked);
  EXPECT_THAT(o.detail, Optional(HasSubstr("cancelled")));
  EXPECT_TRUE(site_.requests().empty());
}

// The engine through its seam: a Source verified at the Checkpoint whose
// page changes before Completion is drifted, recorded as a labelled
// Limitation, and Completion is refused until the citation is removed.
TEST_F(HttpSourceVerifierTest, APageThatChangesBeforeCompletionIsDrifted) {
  FixedVerifierSettings fixed(settings_);
  HttpSourceVerifier verifier(client_, fixed);
  DeterministicSourceSearcher searcher("none");
  DeterministicDraftGenerator drafter({});
  std::vector<std::string> records;
  auto call = [&](const Json& args) {
    EngineContext ctx{"session-1", 1796184000000, verifier, searcher, drafter, cancel_};
    absl::StatusOr<ActionResult> r = RunAction(ReplayBook(records), args, ctx);
    EXPECT_TRUE(r.ok()) << r.status();
    if (r.ok()) records.push_back(EncodeRecord(r->state, r->current_task_id));
    return *r;
  };
  ActionResult started = call({{"action", "start"}, {"outcome", "research"}, {"request", "Trial?"}});
  const std::string id = started.state.task_id;
  const std::string artifact = "The trial had nine sites [@s1].";
  site_.Enqueue(Html(kArticle));
  ActionResult cp = call({{"action", "checkpoint"},
                          {"taskId", id},
                          {"stage", "draft"},
                          {"summary", "Findings"},
                          {"artifact", artifact},
                          {"sources",
                           {{{"sourceId", "s1"},
                             {"url", Url("/study")},
                             {"title", "Study"},
                             {"locator", "Findings"},
                             {"excerpt", kExcerpt}}}},
                          {"claims",
                           {{{"claimId", "c1"},
                             {"text", "Nine sites"},
                             {"kind", "external"},
                             {"importance", "material"},
                             {"disposition", "supported"},
                             {"sourceIds", {"s1"}}}}}});
  ASSERT_EQ(cp.status, "active") << RenderResult(cp);
  EXPECT_EQ(cp.state.FindSource("s1")->check.outcome, CheckOutcome::kVerified);

  site_.Enqueue(Html("<p>This page was updated; the trial is described elsewhere.</p>"));
  ActionResult done = call({{"action", "complete"}, {"taskId", id}, {"artifact", artifact}});
  EXPECT_EQ(done.status, "needs-revision");
  const Source* s1 = done.state.FindSource("s1");
  EXPECT_EQ(s1->check.status, CheckStatus::kFailed);
  EXPECT_EQ(s1->check.outcome, CheckOutcome::kDrifted);
  EXPECT_THAT(s1->check.detail, Optional(HasSubstr("is not any more")));
  ASSERT_FALSE(done.state.limitations.empty());
  EXPECT_THAT(done.state.limitations[0].detail, HasSubstr("s1 failed verification (drifted)"));
  EXPECT_EQ(done.state.claims[0].disposition, Disposition::kDeferred);
  // The outcome survives the state codec.
  EXPECT_EQ(ReplayBook(records).tasks.at(id).FindSource("s1")->check.outcome,
            CheckOutcome::kDrifted);
}

// The user interrupts the turn while Completion reopens a verified Source:
// the real verifier reports the check cancelled, and the call fails without
// recording it, so s1 stays verified and its Claim supported.
TEST_F(HttpSourceVerifierTest, AnInterruptedCompletionLeavesTheTaskAsItWas) {
  FixedVerifierSettings fixed(settings_);
  HttpSourceVerifier verifier(client_, fixed);
  DeterministicSourceSearcher searcher("none");
  DeterministicDraftGenerator drafter({});
  std::vector<std::string> records;
  auto call = [&](const Json& args) {
    EngineContext ctx{"session-1", 1796184000000, verifier, searcher, drafter, cancel_};
    absl::StatusOr<ActionResult> r = RunAction(ReplayBook(records), args, ctx);
    if (r.ok()) records.push_back(EncodeRecord(r->state, r->current_task_id));
    return r;
  };
  auto started = call({{"action", "start"}, {"outcome", "research"}, {"request", "Trial?"}});
  ASSERT_TRUE(started.ok()) << started.status();
  const std::string id = started->state.task_id;
  const std::string artifact = "The trial had nine sites [@s1].";
  site_.Enqueue(Html(kArticle));
  auto cp = call({{"action", "checkpoint"},
                  {"taskId", id},
                  {"stage", "draft"},
                  {"summary", "Findings"},
                  {"artifact", artifact},
                  {"sources",
                   {{{"sourceId", "s1"},
                     {"url", Url("/study")},
                     {"title", "Study"},
                     {"locator", "Findings"},
                     {"excerpt", kExcerpt}}}},
                  {"claims",
                   {{{"claimId", "c1"},
                     {"text", "Nine sites"},
                     {"kind", "external"},
                     {"importance", "material"},
                     {"disposition", "supported"},
                     {"sourceIds", {"s1"}}}}}});
  ASSERT_TRUE(cp.ok()) << cp.status();
  ASSERT_EQ(cp->status, "active") << RenderResult(*cp);

  cancel_.Cancel();
  auto done = call({{"action", "complete"}, {"taskId", id}, {"artifact", artifact}});
  ASSERT_FALSE(done.ok());
  EXPECT_TRUE(absl::IsCancelled(done.status())) << done.status();
  const TaskState replayed = ReplayBook(records).tasks.at(id);
  EXPECT_EQ(replayed, cp->state);
  EXPECT_TRUE(replayed.limitations.empty());
  EXPECT_EQ(replayed.FindSource("s1")->check.outcome, CheckOutcome::kVerified);
  EXPECT_EQ(replayed.claims[0].disposition, Disposition::kSupported);
}

// A page built to make the HTML parser take minutes (formatting elements
// closed across blocks, about 20 s for these 800 KB without a bound) is
// parsed only within the page's time: the Source is unchecked, never a
// failed match, and the check returns instead of hanging its turn.
TEST_F(HttpSourceVerifierTest, APageWhoseParseRunsPastItsTimeIsUnchecked) {
  std::string hostile = "<!DOCTYPE html><html><body>";
  while (hostile.size() < 800 * 1024) hostile += "<a><div>x</a>";
  site_.Enqueue(Html(hostile));
  settings_.fetch_timeout_ms = 1500;
  SourceObservation o = VerifyOne(MakeSource("s1", "/hostile"));
  EXPECT_EQ(o.status, CheckStatus::kUnavailable);
  EXPECT_EQ(o.outcome, CheckOutcome::kUnchecked);
  EXPECT_THAT(o.detail, Optional(HasSubstr("ran past its time")));

  // Judge stops at once for a deadline already reached, and on a
  // cancelled token.
  FetchedPage page;
  page.result = FetchResult::kOk;
  page.status = 200;
  page.content_type = "text/html";
  page.body = hostile;
  ParseBudget budget;
  budget.deadline_ns = SteadyNowNs();
  EXPECT_EQ(HttpSourceVerifier::Judge(MakeSource("s1", "/hostile"), page, budget).outcome,
            CheckOutcome::kUnchecked);
  CancelToken cancelled;
  cancelled.Cancel();
  budget = ParseBudget{};
  budget.cancel = &cancelled;
  SourceObservation stopped = HttpSourceVerifier::Judge(MakeSource("s1", "/hostile"), page, budget);
  EXPECT_EQ(stopped.status, CheckStatus::kUnavailable);
  EXPECT_THAT(stopped.detail, Optional(HasSubstr("cancelled")));
}

}  // namespace
}  // namespace raw::raven::web
