#include "daemon/api/call_counter.h"

namespace raw::api {

// Counts from its construction (the call's start) to its destruction (the
// call's end); lets every operation of the call through unchanged.
class CountingInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit CountingInterceptor(CallCounter& counter) : counter_(counter) { counter_.Started(); }
  ~CountingInterceptor() override { counter_.Done(); }
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    methods->Proceed();
  }

 private:
  CallCounter& counter_;
};

namespace {

class CountingFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CountingFactory(CallCounter& counter) : counter_(counter) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* /*info*/) override {
    return new CountingInterceptor(counter_);
  }

 private:
  CallCounter& counter_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
CallCounter::InterceptorFactory() {
  return std::make_unique<CountingFactory>(*this);
}

void CallCounter::Started() {
  absl::MutexLock lock(&mu_);
  ++in_progress_;
  ++started_;
}

void CallCounter::Done() {
  absl::MutexLock lock(&mu_);
  --in_progress_;
}

int64_t CallCounter::in_progress() const {
  absl::MutexLock lock(&mu_);
  return in_progress_;
}

uint64_t CallCounter::started() const {
  absl::MutexLock lock(&mu_);
  return started_;
}

bool CallCounter::AwaitNoCalls(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto none = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return in_progress_ == 0; };
  return mu_.AwaitWithTimeout(absl::Condition(&none), timeout);
}

}  // namespace raw::api
