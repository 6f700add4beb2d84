#include "daemon/providers/retrying_provider.h"

#include <deque>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::providers {
namespace {

// An inner provider that replays one scripted attempt per call.
class Attempts : public Provider {
 public:
  explicit Attempts(std::deque<std::vector<ProviderEvent>> attempts)
      : attempts_(std::move(attempts)) {}
  absl::Status Stream(const ModelRequest&, ProviderEventSink& sink, const CancelToken&) override {
    ++calls;
    auto events = std::move(attempts_.front());
    attempts_.pop_front();
    absl::Status status = absl::OkStatus();
    for (const auto& e : events) {
      sink.OnEvent(e);
      if (std::holds_alternative<ErrorEvent>(e)) status = absl::UnavailableError("failed");
    }
    return status;
  }
  int calls = 0;

 private:
  std::deque<std::vector<ProviderEvent>> attempts_;
};

struct Recorder : ProviderEventSink {
  void OnEvent(const ProviderEvent& e) override { events.push_back(e); }
  std::vector<ProviderEvent> events;
};

ErrorEvent Error(ErrorKind kind, bool retryable, std::optional<int64_t> hint = std::nullopt) {
  ErrorEvent e;
  e.kind = kind;
  e.retryable = retryable;
  e.retry_after_ms = hint;
  e.message = "HTTP 503: overloaded";
  return e;
}

std::vector<ProviderEvent> Success() {
  return {StartEvent{}, TextDeltaEvent{0, "ok"}, FinishEvent{FinishReason::kStop, "stop"}};
}

struct Harness {
  std::vector<int64_t> waits;
  bool allow = true;
  BackoffWaiter waiter() {
    return [this](int64_t ms, const CancelToken&) {
      waits.push_back(ms);
      return allow;
    };
  }
};

TEST(RetryDelayTest, HintWinsElseCappedExponentialWithFullJitter) {
  RetryPolicy p;
  EXPECT_EQ(RetryDelayMs(p, 1, 2500, 0.5), 2500);
  EXPECT_EQ(RetryDelayMs(p, 1, std::nullopt, 0.5), 500);
  EXPECT_EQ(RetryDelayMs(p, 3, std::nullopt, 0.5), 2000);
  EXPECT_EQ(RetryDelayMs(p, 20, std::nullopt, 0.999999), 29999);
  EXPECT_EQ(RetryDelayMs(p, 2, std::nullopt, 0.0), 0);
}

TEST(RetryingProviderTest, RetriesRetryableErrorsThenSucceeds) {
  auto* inner = new Attempts({{StartEvent{}, Error(ErrorKind::kOverloaded, true, 1200)},
                              {StartEvent{}, TextDeltaEvent{0, "par"}, Error(ErrorKind::kServer, true)},
                              Success()});
  Harness h;
  RetryingProvider p(std::unique_ptr<Provider>(inner), RetryPolicy{}, h.waiter(), [] { return 0.5; });
  Recorder sink;
  CancelToken cancel;
  EXPECT_TRUE(p.Stream(ModelRequest{}, sink, cancel).ok());
  EXPECT_EQ(inner->calls, 3);
  EXPECT_THAT(h.waits, ::testing::ElementsAre(1200, 1000));
  int retries = 0;
  for (const auto& e : sink.events) {
    EXPECT_FALSE(std::holds_alternative<ErrorEvent>(e)) << "retried errors are not delivered";
    if (const auto* r = std::get_if<RetryEvent>(&e)) {
      ++retries;
      EXPECT_EQ(r->attempt, retries);
      EXPECT_EQ(r->max_attempts, 5);
    }
  }
  EXPECT_EQ(retries, 2);
  EXPECT_TRUE(std::holds_alternative<FinishEvent>(sink.events.back()));
}

TEST(RetryingProviderTest, NonRetryableErrorIsReportedAtOnce) {
  auto* inner = new Attempts({{Error(ErrorKind::kAuth, false)}, Success()});
  Harness h;
  RetryingProvider p(std::unique_ptr<Provider>(inner), RetryPolicy{}, h.waiter(), [] { return 0.5; });
  Recorder sink;
  CancelToken cancel;
  EXPECT_FALSE(p.Stream(ModelRequest{}, sink, cancel).ok());
  EXPECT_EQ(inner->calls, 1);
  EXPECT_TRUE(h.waits.empty());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).kind, ErrorKind::kAuth);
}

TEST(RetryingProviderTest, GivesUpAfterMaxRetriesWithTheLastError) {
  std::deque<std::vector<ProviderEvent>> attempts;
  for (int i = 0; i < 3; ++i) attempts.push_back({Error(ErrorKind::kServer, true)});
  auto* inner = new Attempts(attempts);
  Harness h;
  RetryPolicy policy;
  policy.max_retries = 2;
  RetryingProvider p(std::unique_ptr<Provider>(inner), policy, h.waiter(), [] { return 0.5; });
  Recorder sink;
  CancelToken cancel;
  EXPECT_FALSE(p.Stream(ModelRequest{}, sink, cancel).ok());
  EXPECT_EQ(inner->calls, 3);
  EXPECT_EQ(h.waits.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<ErrorEvent>(sink.events.back()));
}

TEST(RetryingProviderTest, AHintLongerThanTheLimitIsReturnedNotWaited) {
  auto* inner = new Attempts({{Error(ErrorKind::kRateLimited, true, 120000)}, Success()});
  Harness h;
  RetryingProvider p(std::unique_ptr<Provider>(inner), RetryPolicy{}, h.waiter(), [] { return 0.5; });
  Recorder sink;
  CancelToken cancel;
  EXPECT_FALSE(p.Stream(ModelRequest{}, sink, cancel).ok());
  EXPECT_TRUE(h.waits.empty());
  const ErrorEvent& reported = std::get<ErrorEvent>(sink.events.back());
  EXPECT_EQ(reported.retry_after_ms, 120000);
  EXPECT_EQ(reported.message,
            "HTTP 503: overloaded (the provider asks to retry after 120 s; Raw waits at most 60 s)");
}

TEST(RetryingProviderTest, CancelDuringTheWaitEndsWithCancelled) {
  auto* inner = new Attempts({{Error(ErrorKind::kServer, true)}, Success()});
  Harness h;
  h.allow = false;  // the waiter reports cancellation
  RetryingProvider p(std::unique_ptr<Provider>(inner), RetryPolicy{}, h.waiter(), [] { return 0.5; });
  Recorder sink;
  CancelToken cancel;
  absl::Status s = p.Stream(ModelRequest{}, sink, cancel);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(inner->calls, 1);
  EXPECT_EQ(std::get<ErrorEvent>(sink.events.back()).kind, ErrorKind::kCancelled);
}

TEST(RetryingProviderTest, RealWaiterReturnsAtOnceWhenCancelled) {
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_FALSE(RealBackoffWaiter()(60000, cancel));
}

}  // namespace
}  // namespace raw::providers
