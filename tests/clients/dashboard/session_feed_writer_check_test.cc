// The feed's writer check (after a turn starts or ends) asks rawd only who
// writes: GetSession with without_context, which rawd answers without
// reading a long session's model context first. Against a small daemon
// fake that records the GetSession requests.
#include <memory>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clients/dashboard/session_feed.h"
#include "clients/lib/raw_client.h"
#include "common/version.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "raw/v1/raw_service.grpc.pb.h"
#include "tests/clients/temp_dir.h"

namespace raw::dashboard {
namespace {

// Streams one turn_started to each subscriber, then keeps the stream open
// until Stop(); answers GetSession with a writer and records its requests.
class WriterCheckDaemon final : public v1::Raw::Service {
 public:
  grpc::Status GetDaemonInfo(grpc::ServerContext*, const v1::GetDaemonInfoRequest*,
                             v1::GetDaemonInfoResponse* response) override {
    response->set_version(kVersion);
    response->set_protocol_version(kProtocolVersion);
    return grpc::Status::OK;
  }
  grpc::Status SubscribeBatched(grpc::ServerContext*, const v1::SubscribeRequest* request,
                                grpc::ServerWriter<v1::EventBatch>* writer) override {
    v1::EventBatch batch;
    v1::Event* event = batch.add_events();
    event->set_session_id(request->session_id());
    event->set_seq(request->after_seq() + 1);
    event->set_turn_id("turn_1");
    event->mutable_turn_started();
    writer->Write(batch);
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&stopped_));
    return grpc::Status::OK;
  }
  grpc::Status GetSession(grpc::ServerContext*, const v1::GetSessionRequest* request,
                          v1::GetSessionResponse* response) override {
    absl::MutexLock lock(&mu_);
    requests_.push_back(*request);
    response->mutable_session()->set_id(request->session_id());
    response->mutable_session()->set_writer("raw run (pid 42)");
    return grpc::Status::OK;
  }

  std::vector<v1::GetSessionRequest> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  void Stop() {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }

 private:
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<v1::GetSessionRequest> requests_ ABSL_GUARDED_BY(mu_);
};

class DiscardingConnection : public web::WebSocketConnection {
 public:
  bool Send(std::string) override { return true; }
  void Close(uint16_t, std::string) override {}
};

TEST(SessionFeedWriterCheck, AsksForTheWriterWithoutTheContext) {
  testing::TempDir dir;
  const std::string socket = dir.path() + "/raw.sock";
  WriterCheckDaemon service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + socket, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  // Before the server's destructor, which waits for the open stream.
  absl::Cleanup stop = [&service] { service.Stop(); };
  client::ConnectOptions options;
  options.socket_path = socket;
  options.autostart = client::Autostart::kNever;
  absl::StatusOr<client::RawClient> raw = client::Connect(options);
  ASSERT_TRUE(raw.ok()) << raw.status();

  auto feed =
      std::make_shared<SessionFeed>(std::make_shared<client::RawClient>(*std::move(raw)), "sess_1");
  absl::Mutex mu;
  std::vector<std::string> writers;
  FeedTab tab;
  tab.connection = std::make_shared<DiscardingConnection>();
  tab.writer_is = [&](const std::string& writer) {
    absl::MutexLock lock(&mu);
    writers.push_back(writer);
  };
  std::unique_ptr<SessionFeed::Membership> membership = feed->Join(0, std::move(tab));
  {
    absl::MutexLock lock(&mu);
    auto told = [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return !writers.empty(); };
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&told), absl::Seconds(30)));
    EXPECT_EQ(writers.front(), "raw run (pid 42)");
  }
  std::vector<v1::GetSessionRequest> requests = service.requests();
  ASSERT_FALSE(requests.empty());
  for (const v1::GetSessionRequest& request : requests) {
    EXPECT_EQ(request.session_id(), "sess_1");
    EXPECT_TRUE(request.without_context());
  }
}

}  // namespace
}  // namespace raw::dashboard
