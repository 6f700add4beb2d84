// HttpSourceVerifier fetching several Source pages at once: a page client
// that holds each request until enough others have arrived shows the pages
// are in flight together (a check fetching one page at a time times out in
// the gate and fails), never more than the setting allows, with the
// observations, the deadline and cancellation as for one page at a time.
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/raven/web/http_source_verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::UnorderedElementsAre;

constexpr char kParallelPage[] =
    "<!DOCTYPE html><html><body><main><p>The survey reached 3,400 households in "
    "twelve districts.</p></main></body></html>";
constexpr char kParallelExcerpt[] = "The survey reached 3,400 households in twelve districts.";

// Long enough for threads to start on a loaded machine; a request that
// waits this long means the pages were not fetched together.
constexpr absl::Duration kGateWait = absl::Seconds(10);

// Answers each URL with its page (404 when none is set). Every request is
// held until its batch has arrived: requests are numbered as they arrive
// and cut into batches of `batch`, the last one what is left of `expected`.
// A request whose batch does not fill within kGateWait fails with
// kDeadlineExceeded (its Source unreachable) and is recorded. Counts the
// requests in flight at once. Thread-safe.
class GatedPageClient : public http::HttpClient {
 public:
  GatedPageClient(size_t batch, size_t expected) : batch_(batch), expected_(expected) {}

  void Set(const std::string& url, int status, std::string body) {
    absl::MutexLock lock(&mu_);
    pages_[url] = {status, std::move(body)};
  }
  // Runs by the request that fills a batch, before any of the batch goes
  // on, under the client's lock (it must not call the client).
  void OnBatch(std::function<void()> fn) {
    absl::MutexLock lock(&mu_);
    on_batch_ = std::move(fn);
  }
  // Once their batch is in, requests wait for the token to be cancelled
  // (then kCancelled), as transfers a server never answers.
  void HoldUntilCancelled() {
    absl::MutexLock lock(&mu_);
    hold_ = true;
  }

  absl::Status Send(const http::HttpRequest& request, http::HttpResponseHandler& handler,
                    const CancelToken& cancel) override {
    Page page{404, "<p>Not found</p>"};
    bool hold = false;
    {
      absl::MutexLock lock(&mu_);
      urls_.push_back(request.url);
      const size_t arrival = arrived_++;
      max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
      const size_t filled_at = std::min(expected_, (arrival / batch_ + 1) * batch_);
      auto filled = [this, filled_at]()
                        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return arrived_ >= filled_at; };
      if (arrived_ == filled_at) {
        if (on_batch_) on_batch_();
      } else if (!mu_.AwaitWithTimeout(absl::Condition(&filled), kGateWait)) {
        gate_timed_out_ = true;
        --in_flight_;
        return absl::DeadlineExceededError("the batch of requests never filled");
      }
      if (auto it = pages_.find(request.url); it != pages_.end()) page = it->second;
      hold = hold_;
    }
    absl::Status status = absl::OkStatus();
    if (hold) {
      pollfd wait{cancel.fd(), POLLIN, 0};
      status = poll(&wait, 1, static_cast<int>(absl::ToInt64Milliseconds(kGateWait))) == 1
                   ? absl::CancelledError(cancel.reason())
                   : absl::DeadlineExceededError("never cancelled");
    } else {
      handler.OnStatus(page.status, {{"Content-Type", "text/html; charset=utf-8"}});
      handler.OnBody(page.body);
    }
    absl::MutexLock lock(&mu_);
    --in_flight_;
    return status;
  }

  std::vector<std::string> urls() const {
    absl::MutexLock lock(&mu_);
    return urls_;
  }
  size_t max_in_flight() const {
    absl::MutexLock lock(&mu_);
    return max_in_flight_;
  }
  bool gate_timed_out() const {
    absl::MutexLock lock(&mu_);
    return gate_timed_out_;
  }

 private:
  struct Page {
    int status;
    std::string body;
  };
  const size_t batch_;
  const size_t expected_;
  mutable absl::Mutex mu_;
  std::map<std::string, Page> pages_ ABSL_GUARDED_BY(mu_);
  std::function<void()> on_batch_ ABSL_GUARDED_BY(mu_);
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::string> urls_ ABSL_GUARDED_BY(mu_);
  size_t arrived_ ABSL_GUARDED_BY(mu_) = 0;
  size_t in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  size_t max_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool gate_timed_out_ ABSL_GUARDED_BY(mu_) = false;
};

std::string PageUrl(const std::string& path) { return "https://example.org" + path; }

Source Cite(const std::string& id, const std::string& path,
            const std::string& excerpt = kParallelExcerpt) {
  Source s;
  s.source_id = id;
  s.url = PageUrl(path);
  s.title = "Survey";
  s.locator = "Results";
  s.excerpt = excerpt;
  return s;
}

std::vector<Source> Distinct(size_t n) {
  std::vector<Source> sources;
  for (size_t i = 0; i < n; ++i) {
    sources.push_back(Cite("s" + std::to_string(i), "/page" + std::to_string(i)));
  }
  return sources;
}

void ServeAll(GatedPageClient& client, const std::vector<Source>& sources) {
  for (const Source& s : sources) client.Set(s.url, 200, kParallelPage);
}

class ParallelVerifierTest : public ::testing::Test {
 protected:
  std::vector<SourceObservation> Check(http::HttpClient& client, const std::vector<Source>& sources,
                                       std::function<int64_t()> clock = nullptr) {
    FixedVerifierSettings fixed(settings_);
    HttpSourceVerifier verifier(client, fixed, nullptr, std::move(clock));
    std::vector<SourceObservation> out = verifier.Verify(sources, cancel_);
    EXPECT_EQ(out.size(), sources.size());
    return out;
  }

  VerifierSettings settings_;
  CancelToken cancel_;
};

// Each of three requests waits until all three have arrived: fetched one
// after another, the first would wait in vain and its Source fail.
TEST_F(ParallelVerifierTest, ThreePagesAreInFlightTogether) {
  const std::vector<Source> sources = Distinct(3);
  GatedPageClient client(3, 3);
  ServeAll(client, sources);
  std::vector<SourceObservation> out = Check(client, sources);
  EXPECT_FALSE(client.gate_timed_out());
  EXPECT_EQ(client.max_in_flight(), 3u);
  for (const SourceObservation& o : out) {
    EXPECT_EQ(o.outcome, CheckOutcome::kVerified) << o.source_id << ": " << o.detail.value_or("");
  }
}

// Mixed outcomes come back in the Sources' order, each exactly as a check
// that fetches one page at a time reports it.
TEST_F(ParallelVerifierTest, ObservationsKeepTheSourcesOrderAndTheirOutcomes) {
  const std::vector<Source> sources = {
      Cite("fine", "/fine"), Cite("gone", "/gone"),
      Cite("doctored", "/doctored", "The survey reached 3,400 households in ten districts."),
      Cite("walled", "/walled"), Cite("also-fine", "/also-fine")};
  auto serve = [&](GatedPageClient& client) {
    client.Set(PageUrl("/fine"), 200, kParallelPage);
    client.Set(PageUrl("/doctored"), 200, kParallelPage);
    client.Set(PageUrl("/walled"), 403, "<p>Forbidden</p>");
    client.Set(PageUrl("/also-fine"), 200, kParallelPage);
  };
  GatedPageClient together(5, 5);
  serve(together);
  settings_.max_parallel_fetches = 5;
  std::vector<SourceObservation> out = Check(together, sources);
  EXPECT_FALSE(together.gate_timed_out());
  ASSERT_EQ(out.size(), 5u);
  std::vector<std::string> ids;
  for (const SourceObservation& o : out) ids.push_back(o.source_id);
  EXPECT_THAT(ids, ElementsAre("fine", "gone", "doctored", "walled", "also-fine"));
  EXPECT_EQ(out[0].outcome, CheckOutcome::kVerified);
  EXPECT_EQ(out[1].outcome, CheckOutcome::kUnreachable);
  EXPECT_THAT(out[1].detail, Optional(HasSubstr("HTTP 404")));
  EXPECT_EQ(out[2].outcome, CheckOutcome::kAbsent);
  EXPECT_EQ(out[3].outcome, CheckOutcome::kBlocked);
  EXPECT_EQ(out[4].outcome, CheckOutcome::kVerified);

  GatedPageClient alone(1, 5);
  serve(alone);
  settings_.max_parallel_fetches = 1;
  std::vector<SourceObservation> one_by_one = Check(alone, sources);
  EXPECT_EQ(alone.max_in_flight(), 1u);
  ASSERT_EQ(one_by_one.size(), out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].source_id, one_by_one[i].source_id) << i;
    EXPECT_EQ(out[i].status, one_by_one[i].status) << i;
    EXPECT_EQ(out[i].outcome, one_by_one[i].outcome) << i;
    EXPECT_EQ(out[i].detail, one_by_one[i].detail) << i;
    EXPECT_EQ(out[i].status_code, one_by_one[i].status_code) << i;
    EXPECT_EQ(out[i].resolved_url, one_by_one[i].resolved_url) << i;
    EXPECT_EQ(out[i].not_reached, one_by_one[i].not_reached) << i;
  }
}

// Requests come in batches of the setting: each batch fills (so that many
// are in flight), and no more ever are. Out-of-range settings are clamped.
TEST_F(ParallelVerifierTest, NoMorePagesInFlightThanTheSetting) {
  const std::vector<Source> ten = Distinct(10);
  GatedPageClient three(3, 10);
  ServeAll(three, ten);
  settings_.max_parallel_fetches = 3;
  for (const SourceObservation& o : Check(three, ten)) {
    EXPECT_EQ(o.outcome, CheckOutcome::kVerified) << o.source_id << ": " << o.detail.value_or("");
  }
  EXPECT_FALSE(three.gate_timed_out());
  EXPECT_EQ(three.max_in_flight(), 3u);
  EXPECT_EQ(three.urls().size(), 10u);

  const std::vector<Source> twenty = Distinct(20);
  GatedPageClient capped(kMaxParallelFetches, 20);
  ServeAll(capped, twenty);
  settings_.max_parallel_fetches = 100;
  for (const SourceObservation& o : Check(capped, twenty)) {
    EXPECT_EQ(o.outcome, CheckOutcome::kVerified) << o.source_id;
  }
  EXPECT_FALSE(capped.gate_timed_out());
  EXPECT_EQ(capped.max_in_flight(), static_cast<size_t>(kMaxParallelFetches));

  GatedPageClient single(1, 3);
  ServeAll(single, ten);
  settings_.max_parallel_fetches = 0;
  for (const SourceObservation& o : Check(single, Distinct(3))) {
    EXPECT_EQ(o.outcome, CheckOutcome::kVerified) << o.source_id;
  }
  EXPECT_EQ(single.max_in_flight(), 1u);
}

// Sources citing the same URL share one fetch, and each is judged on its
// own excerpt.
TEST_F(ParallelVerifierTest, AUrlCitedTwiceIsFetchedOnce) {
  const std::vector<Source> sources = {
      Cite("first", "/shared"), Cite("other", "/other"),
      Cite("again", "/shared", "The survey reached 3,400 households in ten districts.")};
  GatedPageClient client(2, 2);
  ServeAll(client, sources);
  std::vector<SourceObservation> out = Check(client, sources);
  EXPECT_FALSE(client.gate_timed_out());
  EXPECT_THAT(client.urls(), UnorderedElementsAre(PageUrl("/shared"), PageUrl("/other")));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].source_id, "first");
  EXPECT_EQ(out[0].outcome, CheckOutcome::kVerified);
  EXPECT_EQ(out[1].source_id, "other");
  EXPECT_EQ(out[1].outcome, CheckOutcome::kVerified);
  EXPECT_EQ(out[2].source_id, "again");
  EXPECT_EQ(out[2].outcome, CheckOutcome::kAbsent);
  EXPECT_EQ(out[2].resolved_url, PageUrl("/shared"));
}

// A fragment is never requested, so Sources citing two places of one page
// are judged against one fetch of it.
TEST_F(ParallelVerifierTest, SourcesCitingOnePageByItsFragmentsFetchItOnce) {
  const std::vector<Source> sources = {Cite("intro", "/shared#intro"), Cite("other", "/other"),
                                       Cite("results", "/shared#results"),
                                       Cite("whole", "/shared")};
  GatedPageClient client(2, 2);
  client.Set(PageUrl("/shared"), 200, kParallelPage);
  client.Set(PageUrl("/other"), 200, kParallelPage);
  std::vector<SourceObservation> out = Check(client, sources);
  EXPECT_FALSE(client.gate_timed_out());
  EXPECT_THAT(client.urls(), UnorderedElementsAre(PageUrl("/shared"), PageUrl("/other")));
  ASSERT_EQ(out.size(), 4u);
  for (const SourceObservation& o : out) {
    EXPECT_EQ(o.outcome, CheckOutcome::kVerified) << o.source_id;
  }
  EXPECT_EQ(out[2].source_id, "results");
  EXPECT_EQ(out[2].resolved_url, PageUrl("/shared"));
}

// Two pages start together; the check's time runs out while they are
// fetched (the clock jumps once both have arrived), so the two Sources not
// started by then are not reached and never requested.
TEST_F(ParallelVerifierTest, SourcesNotStartedBeforeTheDeadlineAreNotReached) {
  const std::vector<Source> sources = Distinct(4);
  GatedPageClient client(2, 2);
  ServeAll(client, sources);
  std::atomic<int64_t> clock{0};
  client.OnBatch([&clock] { clock = 2000; });
  settings_.max_parallel_fetches = 2;
  settings_.total_timeout_ms = 1500;
  std::vector<SourceObservation> out = Check(client, sources, [&clock] { return clock.load(); });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FALSE(client.gate_timed_out());
  EXPECT_EQ(out[0].outcome, CheckOutcome::kVerified);
  EXPECT_FALSE(out[0].not_reached);
  EXPECT_EQ(out[1].outcome, CheckOutcome::kVerified);
  EXPECT_FALSE(out[1].not_reached);
  for (size_t i : {2u, 3u}) {
    EXPECT_EQ(out[i].status, CheckStatus::kUnavailable) << i;
    EXPECT_TRUE(out[i].not_reached) << i;
    EXPECT_THAT(out[i].detail, Optional(HasSubstr("ran out before this Source was reopened")));
  }
  EXPECT_THAT(client.urls(), UnorderedElementsAre(sources[0].url, sources[1].url));
}

// Cancelled while two fetches are under way: both end as cancelled, and the
// third Source is never requested.
TEST_F(ParallelVerifierTest, CancellingEndsFetchesUnderWayAndStartsNoMore) {
  const std::vector<Source> sources = Distinct(3);
  GatedPageClient client(2, 2);
  ServeAll(client, sources);
  client.HoldUntilCancelled();
  client.OnBatch([this] { cancel_.Cancel(); });
  settings_.max_parallel_fetches = 2;
  std::vector<SourceObservation> out = Check(client, sources);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_FALSE(client.gate_timed_out());
  for (const SourceObservation& o : out) {
    EXPECT_EQ(o.status, CheckStatus::kUnavailable) << o.source_id;
    EXPECT_EQ(o.outcome, CheckOutcome::kUnchecked) << o.source_id;
    EXPECT_FALSE(o.not_reached) << o.source_id;
  }
  EXPECT_EQ(out[0].detail, "the check was cancelled");
  EXPECT_EQ(out[1].detail, "the check was cancelled");
  EXPECT_THAT(out[2].detail, Optional(HasSubstr("cancelled before this Source was reopened")));
  EXPECT_EQ(client.urls().size(), 2u);
}

}  // namespace
}  // namespace raw::raven::web
