// RetryingProvider: retries retryable provider errors with exponential
// backoff and jitter, honouring the provider's retry-after hint.
//
// Policy (providers.md 6.5): a retryable error (429 other than billing,
// 5xx, overloaded, timeouts, connection failures, a stream cut before its
// terminator) is retried up to `max_retries` times. The delay is the hint
// when the provider gave one, else base * 2^(attempt-1) capped at `cap`,
// with full jitter. A hint longer than `max_hint_ms` is not waited for: the
// error is returned (with its retry_after, and its message saying how long
// the provider asked to wait) for the user to decide.
// Non-retryable errors (400, 401, 403, 404, context too long, billing) end
// the stream at once with the provider's message.
//
// Requests are stateless (the whole history every time), so a retry after
// text was streamed is safe: the RetryEvent tells consumers to discard what
// the failed attempt streamed. Cancellation during the wait ends the stream
// at once with kCancelled. Thread-compatible, like every Provider.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "daemon/providers/provider.h"

namespace raw::providers {

struct RetryPolicy {
  int max_retries = 4;
  int64_t base_delay_ms = 1000;
  int64_t max_delay_ms = 30000;
  int64_t max_hint_ms = 60000;
};

// The delay before retry number `retry` (from 1): the hint if given, else
// full jitter over base * 2^(retry-1) capped at max_delay_ms. `unit_random`
// is in [0, 1). Pure.
int64_t RetryDelayMs(const RetryPolicy& policy, int retry, std::optional<int64_t> hint_ms,
                     double unit_random);

// Waits `ms` unless `cancel` fires first; returns false when cancelled. The
// real one polls the cancel token's fd with a timeout; tests pass one that
// records the delay and returns at once.
using BackoffWaiter = std::function<bool(int64_t ms, const CancelToken& cancel)>;
BackoffWaiter RealBackoffWaiter();

class RetryingProvider : public Provider {
 public:
  RetryingProvider(std::unique_ptr<Provider> inner, RetryPolicy policy, BackoffWaiter wait,
                   std::function<double()> unit_random);

  absl::Status Stream(const ModelRequest& request, ProviderEventSink& sink,
                      const CancelToken& cancel) override;
  void Prepare(const ModelRequest& request) override { inner_->Prepare(request); }

 private:
  std::unique_ptr<Provider> inner_;
  RetryPolicy policy_;
  BackoffWaiter wait_;
  std::function<double()> unit_random_;
};

}  // namespace raw::providers
