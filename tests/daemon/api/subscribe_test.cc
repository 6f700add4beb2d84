// The Subscribe stream reactor (rpc/subscribe.cc) over a scripted
// Subscription, through a real gRPC server on a Unix socket.
#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "daemon/api/rpc/handlers.h"
#include "gtest/gtest.h"
#include "tests/daemon/api/api_test_support.h"

namespace raw::api {
namespace {

using testing::TestDir;
using testing::TestServer;

events::SessionEvent TextEvent(uint64_t seq) {
  return events::SessionEvent{.session_id = "s1", .seq = seq, .turn_id = "turn_1",
                              .payload = events::TextDelta{absl::StrCat("t", seq)}};
}

// What the test and the FakeSubscription share; outlives both.
struct Script {
  absl::Mutex mu;
  std::deque<absl::StatusOr<events::SessionEvent>> ready ABSL_GUARDED_BY(mu);
  std::function<void()> wakeup ABSL_GUARDED_BY(mu);
  bool want_wakeup ABSL_GUARDED_BY(mu) = false;
  bool closed ABSL_GUARDED_BY(mu) = false;
  int pulling ABSL_GUARDED_BY(mu) = 0;
  int max_pulling ABSL_GUARDED_BY(mu) = 0;

  // Like a session log: the wakeup runs on the publishing thread while the
  // publisher's lock is held, so a consumer that pulled from inside the
  // wakeup would deadlock here.
  void Publish(absl::StatusOr<events::SessionEvent> item) {
    absl::MutexLock lock(&mu);
    ready.push_back(std::move(item));
    if (want_wakeup && wakeup) {
      want_wakeup = false;
      wakeup();
    }
  }

  bool WaitClosed() {
    absl::MutexLock lock(&mu);
    return mu.AwaitWithTimeout(absl::Condition(&closed), absl::Seconds(10));
  }
};

class FakeSubscription : public loop::Subscription {
 public:
  explicit FakeSubscription(std::shared_ptr<Script> script) : script_(std::move(script)) {}
  ~FakeSubscription() override { Close(); }

  absl::StatusOr<std::optional<events::SessionEvent>> TryNext() override {
    {
      absl::MutexLock lock(&script_->mu);
      script_->pulling++;
      script_->max_pulling = std::max(script_->max_pulling, script_->pulling);
    }
    // Widen the window in which a second, concurrent pull would show.
    std::this_thread::yield();
    absl::MutexLock lock(&script_->mu);
    script_->pulling--;
    if (script_->ready.empty()) {
      script_->want_wakeup = true;
      return std::nullopt;
    }
    absl::StatusOr<events::SessionEvent> next = std::move(script_->ready.front());
    script_->ready.pop_front();
    if (!next.ok()) return next.status();
    return std::optional<events::SessionEvent>(std::move(*next));
  }

  void SetWakeup(std::function<void()> wakeup) override {
    absl::MutexLock lock(&script_->mu);
    script_->wakeup = std::move(wakeup);
  }

  void Close() override {
    absl::MutexLock lock(&script_->mu);
    script_->closed = true;
    script_->wakeup = nullptr;
  }

 private:
  std::shared_ptr<Script> script_;
};

class StreamService final : public raw::v1::Raw::CallbackService {
 public:
  explicit StreamService(std::shared_ptr<Script> script) : script_(std::move(script)) {}
  grpc::ServerWriteReactor<raw::v1::Event>* Subscribe(
      grpc::CallbackServerContext* /*ctx*/, const raw::v1::SubscribeRequest* /*request*/) override {
    return rpc::StreamSubscription(std::make_unique<FakeSubscription>(script_), streams_);
  }
  grpc::ServerWriteReactor<raw::v1::EventBatch>* SubscribeBatched(
      grpc::CallbackServerContext* /*ctx*/, const raw::v1::SubscribeRequest* /*request*/) override {
    return rpc::StreamSubscriptionBatched(std::make_unique<FakeSubscription>(script_), streams_);
  }
  rpc::ActiveStreams& streams() { return streams_; }

 private:
  std::shared_ptr<Script> script_;
  rpc::ActiveStreams streams_;
};

class SubscribeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status().ok()) << server_.status(); }

  std::unique_ptr<grpc::ClientReader<raw::v1::Event>> Open(grpc::ClientContext* ctx) {
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    raw::v1::SubscribeRequest request;
    request.set_session_id("s1");
    return stub_->Subscribe(ctx, request);
  }

  std::unique_ptr<grpc::ClientReader<raw::v1::EventBatch>> OpenBatched(grpc::ClientContext* ctx) {
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    raw::v1::SubscribeRequest request;
    request.set_session_id("s1");
    return stub_->SubscribeBatched(ctx, request);
  }

  // The seqs of each message until the stream ends; `status` gets its end.
  std::vector<std::vector<uint64_t>> ReadBatches(grpc::ClientReader<raw::v1::EventBatch>& reader,
                                                 grpc::Status* status) {
    std::vector<std::vector<uint64_t>> batches;
    raw::v1::EventBatch batch;
    while (reader.Read(&batch)) {
      batches.emplace_back();
      for (const raw::v1::Event& event : batch.events()) batches.back().push_back(event.seq());
    }
    *status = reader.Finish();
    return batches;
  }

  TestDir dir_;
  std::shared_ptr<Script> script_ = std::make_shared<Script>();
  StreamService service_{script_};
  TestServer server_{&service_, dir_.File("s.sock"), getuid()};
  std::unique_ptr<raw::v1::Raw::Stub> stub_ = server_.NewStub();
};

TEST_F(SubscribeTest, DeliversWhatIsReadyInOrder) {
  for (uint64_t seq = 1; seq <= 3; ++seq) script_->Publish(TextEvent(seq));
  grpc::ClientContext ctx;
  auto reader = Open(&ctx);
  raw::v1::Event event;
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    ASSERT_TRUE(reader->Read(&event));
    EXPECT_EQ(event.seq(), seq);
    EXPECT_EQ(event.session_id(), "s1");
    EXPECT_EQ(event.text_delta().text(), absl::StrCat("t", seq));
  }
  ctx.TryCancel();
  while (reader->Read(&event)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(SubscribeTest, LiveEventsArriveExactlyOnceWithOneWriteInFlight) {
  constexpr uint64_t kEvents = 2000;
  grpc::ClientContext ctx;
  auto reader = Open(&ctx);
  // Publish from another thread while the stream is running, in bursts and
  // one by one, so wakeups race with writes in flight.
  std::thread publisher([this] {
    for (uint64_t seq = 1; seq <= kEvents; ++seq) script_->Publish(TextEvent(seq));
  });
  raw::v1::Event event;
  for (uint64_t seq = 1; seq <= kEvents; ++seq) {
    ASSERT_TRUE(reader->Read(&event)) << "stream ended before event " << seq;
    ASSERT_EQ(event.seq(), seq);
  }
  publisher.join();
  absl::MutexLock lock(&script_->mu);
  EXPECT_EQ(script_->max_pulling, 1) << "TryNext must never run on two threads at once";
  EXPECT_TRUE(script_->ready.empty());
}

TEST_F(SubscribeTest, AnErrorFromTheSubscriptionEndsTheStreamWithItsStatus) {
  script_->Publish(TextEvent(1));
  script_->Publish(absl::DataLossError("stored event 2 of session s1 does not decode"));
  grpc::ClientContext ctx;
  auto reader = Open(&ctx);
  raw::v1::Event event;
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_FALSE(reader->Read(&event));
  grpc::Status s = reader->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_EQ(s.error_message(), "stored event 2 of session s1 does not decode");
}

TEST_F(SubscribeTest, ClientCancelClosesTheSubscription) {
  script_->Publish(TextEvent(1));
  grpc::ClientContext ctx;
  auto reader = Open(&ctx);
  raw::v1::Event event;
  ASSERT_TRUE(reader->Read(&event));
  ctx.TryCancel();
  EXPECT_TRUE(script_->WaitClosed());
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(SubscribeTest, DrainDeliversWhatIsReadyThenEndsWithUnavailable) {
  script_->Publish(TextEvent(1));
  grpc::ClientContext ctx;
  auto reader = Open(&ctx);
  raw::v1::Event event;
  ASSERT_TRUE(reader->Read(&event));
  // Two more events are ready when the drain begins: both are delivered.
  script_->Publish(TextEvent(2));
  script_->Publish(TextEvent(3));
  service_.streams().DrainAll();
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.seq(), 2u);
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.seq(), 3u);
  EXPECT_FALSE(reader->Read(&event));
  grpc::Status s = reader->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(s.error_message(), "rawd is shutting down");
  EXPECT_TRUE(script_->WaitClosed());
}

TEST_F(SubscribeTest, AnIdleStreamEndsOnDrainAndNewOnesEndAtOnce) {
  grpc::ClientContext ctx;
  auto reader = Open(&ctx);
  // Wait until the stream is registered and idle (it has pulled once).
  {
    absl::MutexLock lock(&script_->mu);
    ASSERT_TRUE(script_->mu.AwaitWithTimeout(absl::Condition(&script_->want_wakeup),
                                             absl::Seconds(10)));
  }
  EXPECT_EQ(service_.streams().size(), 1);
  service_.streams().DrainAll();
  raw::v1::Event event;
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);

  grpc::ClientContext late_ctx;
  auto late = Open(&late_ctx);
  EXPECT_FALSE(late->Read(&event));
  EXPECT_EQ(late->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

std::vector<uint64_t> Seqs(uint64_t first, uint64_t last) {
  std::vector<uint64_t> seqs;
  for (uint64_t seq = first; seq <= last; ++seq) seqs.push_back(seq);
  return seqs;
}

events::SessionEvent BigEvent(uint64_t seq, size_t bytes) {
  events::SessionEvent event = TextEvent(seq);
  event.payload = events::TextDelta{std::string(bytes, 'x')};
  return event;
}

TEST_F(SubscribeTest, BatchedCarriesEverythingReadyInOneMessageUpTo512Events) {
  for (uint64_t seq = 1; seq <= 1200; ++seq) script_->Publish(TextEvent(seq));
  script_->Publish(absl::UnavailableError("the session was unloaded"));
  grpc::ClientContext ctx;
  auto reader = OpenBatched(&ctx);
  grpc::Status status;
  std::vector<std::vector<uint64_t>> batches = ReadBatches(*reader, &status);
  // Everything was ready at the first pull: full batches, in order, and the
  // error only after the events before it were written.
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0], Seqs(1, 512));
  EXPECT_EQ(batches[1], Seqs(513, 1024));
  EXPECT_EQ(batches[2], Seqs(1025, 1200));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(status.error_message(), "the session was unloaded");
}

TEST_F(SubscribeTest, BatchedKeepsMessagesUnderOneMebibyteUnlessOneEventIsLarger) {
  script_->Publish(BigEvent(1, 400 << 10));
  script_->Publish(BigEvent(2, 400 << 10));
  script_->Publish(BigEvent(3, 400 << 10));  // would pass 1 MiB: waits for the next message
  script_->Publish(BigEvent(4, 1536 << 10));  // larger than the cap: alone
  script_->Publish(TextEvent(5));
  script_->Publish(absl::CancelledError("end of script"));
  grpc::ClientContext ctx;
  auto reader = OpenBatched(&ctx);
  grpc::Status status;
  std::vector<std::vector<uint64_t>> batches = ReadBatches(*reader, &status);
  EXPECT_EQ(batches, (std::vector<std::vector<uint64_t>>{{1, 2}, {3}, {4}, {5}}));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(SubscribeTest, BatchedLiveEventsArriveExactlyOnceInOrder) {
  constexpr uint64_t kEvents = 2000;
  grpc::ClientContext ctx;
  auto reader = OpenBatched(&ctx);
  std::thread publisher([this] {
    for (uint64_t seq = 1; seq <= kEvents; ++seq) script_->Publish(TextEvent(seq));
  });
  std::vector<uint64_t> seqs;
  raw::v1::EventBatch batch;
  while (seqs.size() < kEvents && reader->Read(&batch)) {
    ASSERT_GT(batch.events_size(), 0) << "a batch is never empty";
    for (const raw::v1::Event& event : batch.events()) {
      seqs.push_back(event.seq());
      EXPECT_EQ(event.text_delta().text(), absl::StrCat("t", event.seq()));
    }
  }
  publisher.join();
  EXPECT_EQ(seqs, Seqs(1, kEvents));
  absl::MutexLock lock(&script_->mu);
  EXPECT_EQ(script_->max_pulling, 1) << "TryNext must never run on two threads at once";
}

TEST_F(SubscribeTest, BatchedDrainDeliversWhatIsReadyThenEndsWithUnavailable) {
  script_->Publish(TextEvent(1));
  grpc::ClientContext ctx;
  auto reader = OpenBatched(&ctx);
  raw::v1::EventBatch batch;
  ASSERT_TRUE(reader->Read(&batch));
  ASSERT_EQ(batch.events_size(), 1);
  script_->Publish(TextEvent(2));
  script_->Publish(TextEvent(3));
  service_.streams().DrainAll();
  grpc::Status status;
  std::vector<std::vector<uint64_t>> batches = ReadBatches(*reader, &status);
  std::vector<uint64_t> rest;
  for (const auto& b : batches) rest.insert(rest.end(), b.begin(), b.end());
  EXPECT_EQ(rest, Seqs(2, 3));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(script_->WaitClosed());
}

}  // namespace
}  // namespace raw::api
