// A WebSocketConnection that keeps the frames sent to it, for tests of the
// gateway's feeds without a socket: a tab as the feed sees it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clients/web/local_server.h"
#include "common/json.h"

namespace raw::e2e {

class RecordingConnection : public web::WebSocketConnection {
 public:
  bool Send(std::string text) override {
    absl::MutexLock lock(&mu_);
    if (close_code_) return false;
    absl::StatusOr<Json> frame = ParseJson(text);
    frames_.push_back(frame.ok() ? *std::move(frame) : Json(text));
    return true;
  }
  void Close(uint16_t code, std::string /*reason*/) override {
    absl::MutexLock lock(&mu_);
    if (!close_code_) close_code_ = code;
  }

  // Waits until `count` frames satisfy `pred`; false after `timeout`.
  template <typename Pred>
  bool WaitFor(Pred pred, size_t count = 1, absl::Duration timeout = absl::Seconds(30)) {
    absl::MutexLock lock(&mu_);
    // Runs under mu_, inside Await.
    auto found = [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
      size_t n = 0;
      for (const Json& f : frames_) n += pred(f) ? 1 : 0;
      return n >= count;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&found), timeout);
  }

  // Waits until a frame satisfying `then` follows one satisfying `first`;
  // false after `timeout`.
  template <typename First, typename Then>
  bool WaitForAfter(First first, Then then, absl::Duration timeout = absl::Seconds(30)) {
    absl::MutexLock lock(&mu_);
    // Runs under mu_, inside Await.
    auto found = [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
      bool seen = false;
      for (const Json& f : frames_) {
        if (seen && then(f)) return true;
        seen = seen || first(f);
      }
      return false;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&found), timeout);
  }

  // The "event" frames' events so far, in order.
  std::vector<Json> Events() {
    absl::MutexLock lock(&mu_);
    std::vector<Json> out;
    for (const Json& f : frames_) {
      if (f.is_object() && f.value("type", "") == "event") out.push_back(f["event"]);
    }
    return out;
  }

  // The close code, once Close was called; nullopt after `timeout`.
  std::optional<uint16_t> WaitForClose(absl::Duration timeout = absl::Seconds(30)) {
    absl::MutexLock lock(&mu_);
    auto closed = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return close_code_.has_value(); };
    mu_.AwaitWithTimeout(absl::Condition(&closed), timeout);
    return close_code_;
  }

 private:
  absl::Mutex mu_;
  std::vector<Json> frames_ ABSL_GUARDED_BY(mu_);
  std::optional<uint16_t> close_code_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::e2e
