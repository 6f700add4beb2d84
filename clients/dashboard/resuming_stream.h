// ResumingStream: one Subscribe stream to a session's events that outlives
// the stream's breaks, on a thread of its own. The dashboard gateway runs
// one per session for its tabs (session_feed.h), and one per tab that
// catches up with it.
//
// It subscribes after `after_seq` and hands every event to `event`. After a
// Resync it subscribes again after the Resync's last_delivered_seq. When
// the stream breaks (rawd stopped or is restarting) it calls `disconnected`
// once and subscribes again after the last delivered seq, waiting 100 ms,
// then twice as long each time up to 2 s. Opening a stream's call proves
// nothing (it is made without a daemon), so while broken each attempt
// first asks rawd for its info (GetDaemonInfo): only once rawd answered and
// the new stream is open does it call `reconnected`; every attempt that
// fails calls `attempt_failed`. NOT_FOUND (the session does not exist or was
// deleted) calls `not_found` and ends it, as does `event` returning kStop.
//
// Threads: the callbacks run on the stream's thread, one at a time, in
// order. Cancel() may be called from any thread (a callback included) and
// only asks the stream to end; Stop() (and the destructor) also joins the
// thread, after which no callback runs. Stop must not be called from a
// callback.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "clients/lib/raw_client.h"

namespace raw::dashboard {

class ResumingStream {
 public:
  struct Callbacks {
    // Every event in order, a Resync included (before the stream is opened
    // again). kStop ends the stream for good.
    std::function<client::EventHandler::Next(const v1::Event&)> event;
    std::function<void(const std::string& why)> disconnected;
    std::function<void()> reconnected;
    std::function<void(const std::string& why)> not_found;
    // Optional: each failed attempt to open a stream (for tests).
    std::function<void()> attempt_failed;
  };

  // Starts the thread. REQUIRES: every callback is set.
  ResumingStream(std::shared_ptr<client::RawClient> client, std::string session_id,
                 uint64_t after_seq, Callbacks callbacks);
  ~ResumingStream();
  ResumingStream(const ResumingStream&) = delete;
  ResumingStream& operator=(const ResumingStream&) = delete;

  void Cancel();
  void Stop();

 private:
  class Handler;

  void Run();

  const std::shared_ptr<client::RawClient> client_;
  const std::string session_id_;
  const Callbacks callbacks_;
  client::StreamCanceller canceller_;

  // The stream thread's own.
  uint64_t next_after_;
  bool disconnected_ = false;
  bool resync_ = false;
  bool stopped_ = false;  // `event` returned kStop

  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;  // ends a back-off wait

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace raw::dashboard
