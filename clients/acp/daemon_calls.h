// DaemonCalls: the ACP connection's own calls to rawd that are not about
// one open session's events: creating and listing sessions, listing
// agents and models, configuring a session, answering approvals call by
// call. One RawClient, connected on first use (starting rawd when allowed,
// as `raw` does) and again after the daemon went away; the calls run one
// at a time on a worker thread and their results are posted to the event
// loop.
//
// Threading: Call on the loop's thread; `reply` runs there, never after
// the destructor.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "clients/acp/event_loop.h"
#include "clients/lib/call_worker.h"
#include "clients/lib/raw_client.h"

namespace raw::acp {

class DaemonCalls {
 public:
  template <typename T>
  using Reply = std::function<void(const absl::StatusOr<T>&)>;

  DaemonCalls(client::ConnectOptions options, EventLoop& loop)
      : options_(std::move(options)), loop_(loop), alive_(std::make_shared<bool>(true)) {}
  ~DaemonCalls() { *alive_ = false; }
  DaemonCalls(const DaemonCalls&) = delete;
  DaemonCalls& operator=(const DaemonCalls&) = delete;

  template <typename T>
  void Call(std::function<absl::StatusOr<T>(client::RawClient&)> call, Reply<T> reply) {
    worker_.Run([this, alive = alive_, call = std::move(call), reply = std::move(reply)] {
      auto result = std::make_shared<absl::StatusOr<T>>(Run<T>(call));
      loop_.Post([alive, result, reply] {
        if (*alive) reply(*result);
      });
    });
  }

 private:
  // On the worker: connects when needed; forgets the client when the
  // daemon is unreachable so that the next call connects again.
  template <typename T>
  absl::StatusOr<T> Run(const std::function<absl::StatusOr<T>(client::RawClient&)>& call) {
    if (!client_) {
      absl::StatusOr<client::RawClient> connected = client::Connect(options_);
      if (!connected.ok()) return connected.status();
      client_ = std::make_unique<client::RawClient>(std::move(*connected));
    }
    absl::StatusOr<T> result = call(*client_);
    if (absl::IsUnavailable(result.status())) client_.reset();
    return result;
  }

  client::ConnectOptions options_;
  EventLoop& loop_;
  std::shared_ptr<bool> alive_;
  std::unique_ptr<client::RawClient> client_;  // worker thread only
  // Last: joined first, so no task runs on a half-destroyed object.
  client::CallWorker worker_;
};

}  // namespace raw::acp
