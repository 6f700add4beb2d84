// CallCounter: the gRPC calls rawd is serving, for its idle exit
// (daemon/app/daemon.cc): a call in progress keeps the daemon running, and
// every call that starts counts as activity. Without it a unary call that
// took its time (a CreateSession probing local servers) was cut off when the
// idle deadline passed, and a client making only short calls never kept a
// socket-activated daemon alive.
//
// The server makes one interceptor per call when the call starts and
// destroys it when the call is done, whatever its method: the count needs
// nothing from the handlers.
//
// Thread-safe.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace raw::api {

class CallCounter {
 public:
  // For grpc::ServerBuilder::experimental().SetInterceptorCreators; the
  // counter must outlive the server.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> InterceptorFactory();

  // Calls started and not yet done.
  int64_t in_progress() const;
  // Calls started since the counter was made.
  uint64_t started() const;
  // True once no call is in progress; false after `timeout`.
  bool AwaitNoCalls(absl::Duration timeout) const;

 private:
  friend class CountingInterceptor;
  void Started();
  void Done();

  mutable absl::Mutex mu_;
  int64_t in_progress_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t started_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::api
