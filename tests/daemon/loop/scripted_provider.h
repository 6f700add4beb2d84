// ScriptedProvider: a Provider that replays scripted ProviderEvents, for
// loop tests without HTTP. Each Stream() call takes the next script; a
// script may park until the turn is cancelled (to test interrupts). Records
// every ModelRequest it received.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "daemon/providers/provider.h"

namespace raw::loop::testing {

struct Script {
  std::vector<providers::ProviderEvent> events;
  // After `events`, wait for cancellation and end with a kCancelled error.
  bool park_until_cancelled = false;
};

// Shared between the test and the provider instances the test hands out.
struct ScriptBook {
  std::mutex mu;
  std::deque<Script> scripts;
  std::vector<providers::ModelRequest> requests;
};

class ScriptedProvider : public providers::Provider {
 public:
  explicit ScriptedProvider(std::shared_ptr<ScriptBook> book) : book_(std::move(book)) {}
  absl::Status Stream(const providers::ModelRequest& request, providers::ProviderEventSink& sink,
                      const CancelToken& cancel) override;

 private:
  std::shared_ptr<ScriptBook> book_;
};

// Script builders.
Script TextAnswer(const std::string& text);
struct CallSpec {
  std::string id, name, arguments;
  bool complete = true;
};
Script ToolCalls(const std::vector<CallSpec>& calls);

}  // namespace raw::loop::testing
