#include "tests/daemon/loop/scripted_provider.h"

#include <poll.h>

namespace raw::loop::testing {

absl::Status ScriptedProvider::Stream(const providers::ModelRequest& request,
                                      providers::ProviderEventSink& sink,
                                      const CancelToken& cancel) {
  Script script;
  {
    std::lock_guard<std::mutex> lock(book_->mu);
    book_->requests.push_back(request);
    if (book_->scripts.empty()) {
      providers::ErrorEvent e;
      e.kind = providers::ErrorKind::kInvalidRequest;
      e.message = "script ran out";
      sink.OnEvent(e);
      return absl::InvalidArgumentError("script ran out");
    }
    script = std::move(book_->scripts.front());
    book_->scripts.pop_front();
  }
  absl::Status result = absl::OkStatus();
  for (const auto& e : script.events) {
    sink.OnEvent(e);
    if (const auto* err = std::get_if<providers::ErrorEvent>(&e)) {
      result = absl::UnavailableError(err->message);
    }
  }
  if (script.park_until_cancelled) {
    struct pollfd pfd = {cancel.fd(), POLLIN, 0};
    while (poll(&pfd, 1, -1) < 0) {
    }
    providers::ErrorEvent e;
    e.kind = providers::ErrorKind::kCancelled;
    e.message = "cancelled";
    sink.OnEvent(e);
    return absl::CancelledError("cancelled");
  }
  return result;
}

Script TextAnswer(const std::string& text) {
  Script s;
  s.events.push_back(providers::StartEvent{"resp", "test-model"});
  // Two deltas, so streaming is visible.
  size_t half = text.size() / 2;
  s.events.push_back(providers::TextDeltaEvent{0, text.substr(0, half)});
  s.events.push_back(providers::TextDeltaEvent{0, text.substr(half)});
  events::Usage u;
  u.input_tokens = 10;
  u.output_tokens = 5;
  s.events.push_back(providers::UsageEvent{u});
  s.events.push_back(providers::FinishEvent{providers::FinishReason::kStop, "stop"});
  return s;
}

Script ToolCalls(const std::vector<CallSpec>& calls) {
  Script s;
  s.events.push_back(providers::StartEvent{"resp", "test-model"});
  int index = 0;
  for (const auto& c : calls) {
    s.events.push_back(providers::ToolCallStartEvent{index, c.id, c.name});
    s.events.push_back(providers::ToolCallDeltaEvent{index, c.arguments});
    s.events.push_back(providers::ToolCallEndEvent{index, c.id, c.name, c.arguments, c.complete});
    ++index;
  }
  s.events.push_back(providers::FinishEvent{providers::FinishReason::kToolCalls, "tool_calls"});
  return s;
}

}  // namespace raw::loop::testing
