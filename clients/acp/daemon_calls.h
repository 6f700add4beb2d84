// DaemonCalls: the ACP connection's own calls to rawd that are not about
// one open session's events: creating and listing sessions, listing
// agents and models, configuring a session, answering approvals call by
// call. One RawClient, connected on first use (starting rawd when allowed,
// as `raw` does) and again after the daemon went away; the calls run one
// at a time on a worker thread and their results are posted to the event
// loop.
//
// Threading: Call on the loop's thread; `reply` runs there, never after
// the destructor. The destructor does not wait for rawd: it cancels the
// call in flight and leaves the worker's thread to end on its own.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "clients/acp/event_loop.h"
#include "clients/lib/call_worker.h"
#include "clients/lib/raw_client.h"

namespace raw::acp {

class DaemonCalls {
 public:
  template <typename T>
  using Reply = std::function<void(const absl::StatusOr<T>&)>;

  DaemonCalls(client::ConnectOptions options, EventLoop& loop)
      : link_(std::make_shared<Link>(std::move(options))),
        worker_([&loop](std::function<void()> task) { loop.Post(std::move(task)); }) {}
  ~DaemonCalls() { link_->Cancel(); }
  DaemonCalls(const DaemonCalls&) = delete;
  DaemonCalls& operator=(const DaemonCalls&) = delete;

  template <typename T>
  void Call(std::function<absl::StatusOr<T>(client::RawClient&)> call, Reply<T> reply) {
    worker_.Run(
        [link = link_, post = worker_.poster(), call = std::move(call), reply = std::move(reply)] {
          auto result = std::make_shared<absl::StatusOr<T>>(Run<T>(*link, call));
          post([result, reply] { reply(*result); });
        });
  }

 private:
  // The connection to rawd, shared with the task in flight (which may
  // outlive DaemonCalls).
  struct Link {
    explicit Link(client::ConnectOptions connect) : options(std::move(connect)) {}

    // The client to call (null: connect first). Worker thread only.
    std::shared_ptr<client::RawClient> Client() {
      absl::MutexLock lock(&mu);
      return client;
    }
    // Keeps `connected` unless cancelled (then cancels its calls too).
    void Keep(std::shared_ptr<client::RawClient> connected) {
      absl::MutexLock lock(&mu);
      if (cancelled) connected->CancelCalls();
      client = std::move(connected);
    }
    void Forget() {
      absl::MutexLock lock(&mu);
      client.reset();
    }
    // Ends the call in flight and every later one at once.
    void Cancel() {
      absl::MutexLock lock(&mu);
      cancelled = true;
      if (client) client->CancelCalls();
    }

    const client::ConnectOptions options;
    absl::Mutex mu;
    std::shared_ptr<client::RawClient> client ABSL_GUARDED_BY(mu);
    bool cancelled ABSL_GUARDED_BY(mu) = false;
  };

  // On the worker: connects when needed; forgets the client when the
  // daemon is unreachable so that the next call connects again.
  template <typename T>
  static absl::StatusOr<T> Run(Link& link,
                               const std::function<absl::StatusOr<T>(client::RawClient&)>& call) {
    std::shared_ptr<client::RawClient> client = link.Client();
    if (!client) {
      absl::StatusOr<client::RawClient> connected = client::Connect(link.options);
      if (!connected.ok()) return connected.status();
      client = std::make_shared<client::RawClient>(std::move(*connected));
      link.Keep(client);
    }
    absl::StatusOr<T> result = call(*client);
    if (absl::IsUnavailable(result.status())) link.Forget();
    return result;
  }

  std::shared_ptr<Link> link_;
  client::CallWorker worker_;
};

}  // namespace raw::acp
