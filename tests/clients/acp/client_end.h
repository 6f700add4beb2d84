// The ACP client's end of a connection under test: a Transport that keeps
// every message the agent side sends, for the test to wait for.
//
// Thread-safe: the agent sends from its loop, the test waits from its own.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clients/acp/transport.h"
#include "common/json.h"

namespace raw::acp::testing {

class ClientEnd : public Transport {
 public:
  bool Send(std::string message) override {
    absl::MutexLock l(&mu_);
    sent_.push_back(Json::parse(message));
    return true;
  }
  void Close() override {}

  // Waits for a message `match` accepts and returns it; null when none came
  // within 30 s.
  Json WaitFor(const std::function<bool(const Json&)>& match) {
    absl::MutexLock l(&mu_);
    auto seen = [this, &match]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return std::any_of(sent_.begin(), sent_.end(), match);
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&seen), absl::Seconds(30))) return nullptr;
    return *std::find_if(sent_.begin(), sent_.end(), match);
  }
  // True once a message `match` accepts came; false after 30 s.
  bool Saw(const std::function<bool(const Json&)>& match) { return !WaitFor(match).is_null(); }
  std::vector<Json> sent() {
    absl::MutexLock l(&mu_);
    return sent_;
  }

 private:
  absl::Mutex mu_;
  std::vector<Json> sent_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::acp::testing
