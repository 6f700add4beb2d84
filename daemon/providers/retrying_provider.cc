#include "daemon/providers/retrying_provider.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw::providers {
namespace {

// Passes events through, except a retryable error that will be retried:
// that one is kept for the RetryEvent.
class AttemptSink : public ProviderEventSink {
 public:
  AttemptSink(ProviderEventSink& out, bool retries_left) : out_(out), retries_left_(retries_left) {}

  void OnEvent(const ProviderEvent& event) override {
    if (const auto* error = std::get_if<ErrorEvent>(&event)) {
      if (error->retryable && retries_left_ && error->kind != ErrorKind::kCancelled) {
        held_ = *error;
        return;
      }
    }
    out_.OnEvent(event);
  }

  const std::optional<ErrorEvent>& held() const { return held_; }

 private:
  ProviderEventSink& out_;
  bool retries_left_;
  std::optional<ErrorEvent> held_;
};

// "120 s", "1.5 s": whole seconds without a fraction.
std::string SecondsText(int64_t ms) {
  if (ms % 1000 == 0) return absl::StrCat(ms / 1000, " s");
  return absl::StrFormat("%.1f s", static_cast<double>(ms) / 1000.0);
}

}  // namespace

int64_t RetryDelayMs(const RetryPolicy& policy, int retry, std::optional<int64_t> hint_ms,
                     double unit_random) {
  if (hint_ms && *hint_ms >= 0) return *hint_ms;
  int64_t ceiling = policy.base_delay_ms;
  for (int i = 1; i < retry && ceiling < policy.max_delay_ms; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, policy.max_delay_ms);
  double r = std::clamp(unit_random, 0.0, 1.0);
  return static_cast<int64_t>(static_cast<double>(ceiling) * r);
}

BackoffWaiter RealBackoffWaiter() {
  return [](int64_t ms, const CancelToken& cancel) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!cancel.cancelled()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return true;
      struct pollfd pfd = {cancel.fd(), POLLIN, 0};
      poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    }
    return false;
  };
}

RetryingProvider::RetryingProvider(std::unique_ptr<Provider> inner, RetryPolicy policy,
                                   BackoffWaiter wait, std::function<double()> unit_random)
    : inner_(std::move(inner)),
      policy_(policy),
      wait_(std::move(wait)),
      unit_random_(std::move(unit_random)) {}

absl::Status RetryingProvider::Stream(const ModelRequest& request, ProviderEventSink& sink,
                                      const CancelToken& cancel) {
  const int max_attempts = policy_.max_retries + 1;
  for (int attempt = 1;; ++attempt) {
    AttemptSink attempt_sink(sink, attempt < max_attempts);
    absl::Status status = inner_->Stream(request, attempt_sink, cancel);
    if (!attempt_sink.held()) return status;
    const ErrorEvent& error = *attempt_sink.held();
    int64_t delay = RetryDelayMs(policy_, attempt, error.retry_after_ms, unit_random_());
    if (delay > policy_.max_hint_ms) {
      // Too long to wait silently: the caller decides, told when the
      // provider would take the request again.
      ErrorEvent reported = error;
      absl::StrAppend(&reported.message, " (the provider asks to retry after ",
                      SecondsText(delay), "; Raw waits at most ", SecondsText(policy_.max_hint_ms),
                      ")");
      sink.OnEvent(reported);
      return ErrorEventToStatus(reported);
    }
    sink.OnEvent(RetryEvent{attempt, max_attempts, delay, error});
    if (!wait_(delay, cancel)) {
      ErrorEvent cancelled;
      cancelled.kind = ErrorKind::kCancelled;
      cancelled.message = "cancelled while waiting to retry";
      sink.OnEvent(cancelled);
      return absl::CancelledError(cancelled.message);
    }
  }
}

}  // namespace raw::providers
