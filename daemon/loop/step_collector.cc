#include "daemon/loop/step_collector.h"

#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/failpoint.h"

namespace raw::loop {

void AddRequestUsage(int step, const StepResult& result,
                     std::vector<events::EventPayload>& payloads, CommitExtras& extras) {
  extras.usage = result.usage.value_or(events::Usage{});
  if (result.usage) payloads.push_back(events::UsageReport{*result.usage, step});
}

void StepCollector::OnEvent(const providers::ProviderEvent& event) {
  std::visit(
      [this](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, providers::TextDeltaEvent>) {
          if (e.text.empty()) return;
          result_.text += e.text;
          result_.any_output = true;
          log_.PublishLive(turn_id_, events::TextDelta{e.text});
          RAW_FAILPOINT("stream.text_delta");
        } else if constexpr (std::is_same_v<T, providers::ReasoningDeltaEvent>) {
          if (e.text.empty()) return;
          result_.reasoning += e.text;
          result_.any_output = true;
          log_.PublishLive(turn_id_, events::ReasoningDelta{e.text});
        } else if constexpr (std::is_same_v<T, providers::ReasoningEndEvent>) {
          if (e.opaque) result_.opaque.push_back(*e.opaque);
        } else if constexpr (std::is_same_v<T, providers::ToolCallStartEvent>) {
          result_.any_output = true;
        } else if constexpr (std::is_same_v<T, providers::ToolCallEndEvent>) {
          CollectedCall call;
          call.request.call_id = e.call_id;
          call.request.name = e.name;
          call.request.arguments = e.arguments;
          call.complete = e.complete;
          result_.calls.push_back(std::move(call));
        } else if constexpr (std::is_same_v<T, providers::UsageEvent>) {
          result_.usage = e.usage;
        } else if constexpr (std::is_same_v<T, providers::FinishEvent>) {
          result_.finish = e;
          // The calls end before the finish that says why the response did.
          for (CollectedCall& call : result_.calls) {
            call.cut_off_at_output_limit =
                !call.complete && e.reason == providers::FinishReason::kLength;
          }
        } else if constexpr (std::is_same_v<T, providers::ErrorEvent>) {
          result_.error = e;
        } else if constexpr (std::is_same_v<T, providers::RetryEvent>) {
          OnRetry(e);
        }
      },
      event);
}

void StepCollector::OnRetry(const providers::RetryEvent& retry) {
  // Nothing of the failed attempt was committed; clients drop what they
  // were shown of it.
  if (result_.any_output) {
    log_.PublishLive(turn_id_, events::StreamReset{"the model request is being retried"});
  }
  // The failed attempt was a request (and its tokens may be billed): it
  // counts in the totals, with whatever usage it reported before it failed.
  std::vector<events::EventPayload> payloads;
  CommitExtras extras;
  AddRequestUsage(step_, result_, payloads, extras);
  result_ = StepResult{};
  std::string what = retry.error.message.empty() ? providers::ErrorKindName(retry.error.kind)
                                                 : retry.error.message;
  std::string text = absl::StrFormat(
      "Model request failed (%s): %s. Retrying in %.1f s (attempt %d of %d).",
      providers::ErrorKindName(retry.error.kind), what,
      static_cast<double>(retry.delay_ms) / 1000.0, retry.attempt + 1, retry.max_attempts);
  payloads.push_back(events::Notice{events::NoticeLevel::kWarning, std::move(text)});
  // A notice and a count that cannot be stored are not worth failing the
  // turn over.
  (void)log_.Commit(turn_id_, std::move(payloads), std::move(extras));
}

}  // namespace raw::loop
