// CallCounter: a call counts from its start to its end, whatever its
// method, through the interceptor the server makes for it.
#include "daemon/api/call_counter.h"

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "gtest/gtest.h"
#include "raw/v1/raw_service.grpc.pb.h"
#include "tests/daemon/api/api_test_support.h"

namespace raw::api {
namespace {

// Answers GetDaemonInfo only when the test releases it.
class HeldService final : public raw::v1::Raw::CallbackService {
 public:
  grpc::ServerUnaryReactor* GetDaemonInfo(grpc::CallbackServerContext* ctx,
                                          const raw::v1::GetDaemonInfoRequest* /*request*/,
                                          raw::v1::GetDaemonInfoResponse* /*response*/) override {
    grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    std::lock_guard<std::mutex> lock(mu_);
    held_ = reactor;
    cv_.notify_all();
    return reactor;
  }
  // Waits for the call to reach the handler (20 s bounds a failing test).
  bool WaitForCall() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(20), [&] { return held_ != nullptr; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    held_->Finish(grpc::Status::OK);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  grpc::ServerUnaryReactor* held_ = nullptr;
};

TEST(CallCounterTest, ACallCountsFromItsStartToItsEnd) {
  testing::TestDir dir;
  HeldService service;
  CallCounter counter;
  const std::string address = "unix:" + dir.File("s");
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> counting;
  counting.push_back(counter.InterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(counting));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  auto stub =
      raw::v1::Raw::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  EXPECT_EQ(counter.in_progress(), 0);
  EXPECT_EQ(counter.started(), 0u);

  grpc::Status answered;
  std::thread call([&] { answered = testing::CallGetDaemonInfo(*stub); });
  ASSERT_TRUE(service.WaitForCall());
  // The handler holds the call: it is in progress.
  EXPECT_EQ(counter.in_progress(), 1);
  EXPECT_EQ(counter.started(), 1u);
  service.Release();
  call.join();
  EXPECT_TRUE(answered.ok()) << answered.error_message();
  EXPECT_TRUE(counter.AwaitNoCalls(absl::Seconds(20)));
  EXPECT_EQ(counter.started(), 1u);
  server->Shutdown();
}

}  // namespace
}  // namespace raw::api
