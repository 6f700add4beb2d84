#include "daemon/loop/step_collector.h"

#include <type_traits>

namespace raw::loop {

void StepCollector::OnEvent(const providers::ProviderEvent& event) {
  std::visit(
      [this](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, providers::TextDeltaEvent>) {
          if (e.text.empty()) return;
          result_.text += e.text;
          result_.any_output = true;
          log_.PublishLive(turn_id_, events::TextDelta{e.text});
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
        } else if constexpr (std::is_same_v<T, providers::ErrorEvent>) {
          result_.error = e;
        }
      },
      event);
}

}  // namespace raw::loop
