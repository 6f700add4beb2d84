// StdioTransport's writer: a message the pipe has room for is written by
// Send itself; messages queued while the reader is slow go out together,
// whole and in order, across partial writes into a small pipe, also when
// several threads send at once.
#include "clients/acp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace raw::acp {
namespace {

// Keeps each message with its claim, as the event loop keeps the task of
// one it has not run yet; Handle() plays the loop running the oldest.
class HoldingPeer : public Peer {
 public:
  explicit HoldingPeer(size_t limit) : limit_(limit) {}
  void OnMessage(std::string) override { ADD_FAILURE() << "delivered without its claim"; }
  void OnMessageWithClaim(std::string message, InputClaim claim) override {
    absl::MutexLock lock(&mu_);
    held_bytes_ += message.size();
    peak_ = std::max(peak_, held_bytes_);
    EXPECT_LE(held_bytes_, limit_) << "more input read than the budget allows";
    held_.emplace_back(std::move(message), std::move(claim));
  }
  void OnClosed() override {}
  // Waits for a message, "handles" it (gives its claim back) and returns it.
  std::string Handle() {
    absl::MutexLock lock(&mu_);
    auto any = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !held_.empty(); };
    mu_.Await(absl::Condition(&any));
    auto [message, claim] = std::move(held_.front());
    held_.pop_front();
    held_bytes_ -= message.size();
    claim.Release();
    return message;
  }
  size_t held_bytes() {
    absl::MutexLock lock(&mu_);
    return held_bytes_;
  }
  size_t peak() {
    absl::MutexLock lock(&mu_);
    return peak_;
  }

 private:
  const size_t limit_;
  absl::Mutex mu_;
  std::deque<std::pair<std::string, InputClaim>> held_ ABSL_GUARDED_BY(mu_);
  size_t held_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t peak_ ABSL_GUARDED_BY(mu_) = 0;
};

// A client that writes large messages faster than the loop handles them
// (here: not at all, until the test lets it): the reader stops reading
// once twice the message cap is read but unhandled, so the client's writes
// block in the pipe; then every message is handled, in order.
TEST(StdioTransportInputTest, TheReaderWaitsWhileTwiceTheMessageCapIsUnhandled) {
  int in[2], out[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  constexpr size_t kMaxMessage = 128 * 1024;
  constexpr int kMessages = 40;  // 5 MB: far more than the pipe, the framer and the budget hold
  auto transport = std::make_shared<StdioTransport>(in[0], out[1], kMaxMessage);
  auto peer = std::make_unique<HoldingPeer>(InputBudgetLimit(kMaxMessage));
  HoldingPeer* holding = peer.get();
  transport->Start(std::move(peer));
  std::vector<std::string> sent;
  for (int i = 0; i < kMessages; ++i) {
    sent.push_back(absl::StrCat(R"({"jsonrpc":"2.0","method":"n","params":{"i":)", i, R"(,"pad":")",
                                std::string(kMaxMessage - 100, 'a' + i % 26), R"("}})"));
  }
  std::thread client([&] {
    for (const std::string& message : sent) {
      const std::string line = message + "\n";
      size_t at = 0;
      while (at < line.size()) {
        ssize_t n = write(in[1], line.data() + at, line.size() - at);
        if (n <= 0) return;
        at += static_cast<size_t>(n);
      }
    }
  });
  // The loop is busy: the reader reads until the budget is full, then waits.
  EXPECT_TRUE(transport->input_budget().AwaitWaitingReader(absl::Seconds(10)))
      << "the reader never waited; " << holding->held_bytes() << " bytes unhandled";
  EXPECT_LE(holding->held_bytes(), InputBudgetLimit(kMaxMessage));
  EXPECT_GT(holding->held_bytes(), 0u);
  // The loop runs again: every message arrives, in order.
  for (int i = 0; i < kMessages; ++i) {
    std::string message = holding->Handle();
    EXPECT_TRUE(message == sent[i]) << "message " << i << " out of order or cut";
  }
  client.join();
  EXPECT_LE(holding->peak(), InputBudgetLimit(kMaxMessage));
  EXPECT_LE(transport->input_budget().peak(), InputBudgetLimit(kMaxMessage));
  close(in[1]);
  transport->Join();
  for (int fd : {in[0], out[0], out[1]}) close(fd);
}

class ClosingPeer : public Peer {
 public:
  void OnMessage(std::string) override {}
  void OnClosed() override { closed.Notify(); }
  absl::Notification closed;
};

// A transport on two fresh pipes: the test writes in_[1] and reads out_[0].
class StdioTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(pipe2(in_, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(out_, O_CLOEXEC), 0);
  }
  // `pipe_size` (0: the default) sets the size of the output pipe. The
  // output limits' clock is the test's own (now_), unless they name one.
  void Start(int pipe_size = 0, OutputLimits limits = {},
             size_t max_message_bytes = kDefaultMaxMessageBytes) {
    if (pipe_size > 0) {
      ASSERT_GT(fcntl(out_[1], F_SETPIPE_SZ, pipe_size), 0);
    }
    if (!limits.clock) limits.clock = [this] { return Now(); };
    transport_ =
        std::make_shared<StdioTransport>(in_[0], out_[1], max_message_bytes, std::move(limits));
    auto peer = std::make_unique<ClosingPeer>();
    peer_ = peer.get();
    transport_->Start(std::move(peer));
  }
  void CloseFd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  // End of input: the transport closes, and both of its threads end.
  void TearDown() override {
    CloseFd(in_[1]);
    if (peer_ != nullptr) peer_->closed.WaitForNotification();
    if (transport_) transport_->Join();
    for (int* fd : {&in_[0], &out_[0], &out_[1]}) CloseFd(*fd);
  }

  absl::Time Now() {
    absl::MutexLock lock(&clock_mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&clock_mu_);
    now_ += d;
  }
  // Reads exactly `bytes` from the output, at most `chunk` at a time,
  // advancing the clock by `per_kib` for each KiB read: a client that reads
  // slowly but never stops.
  std::string ReadOutput(size_t bytes, size_t chunk, absl::Duration per_kib) {
    std::string got;
    std::vector<char> buf(chunk);
    while (got.size() < bytes) {
      ssize_t n = read(out_[0], buf.data(), std::min(chunk, bytes - got.size()));
      if (n <= 0) break;
      got.append(buf.data(), static_cast<size_t>(n));
      Advance(per_kib * static_cast<double>(n) / 1024);
    }
    return got;
  }

  absl::Mutex clock_mu_;
  absl::Time now_ = absl::FromUnixSeconds(1000000);
  int in_[2] = {-1, -1};
  int out_[2] = {-1, -1};
  std::shared_ptr<StdioTransport> transport_;
  ClosingPeer* peer_ = nullptr;
};

TEST_F(StdioTransportTest, ABurstIntoASlowReaderArrivesWholeAndInOrder) {
  // The smallest pipe: almost every writev is cut short somewhere inside a
  // message, and messages over 4 KiB never fit at once.
  Start(4096);

  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    // Sizes from a few bytes to 9 KiB, more messages than one writev takes.
    std::string message = absl::StrCat(R"({"n":)", i, R"(,"pad":")",
                                       std::string((i * 37) % 9000, 'a' + i % 26), R"("})");
    ASSERT_TRUE(transport_->Send(message));
    absl::StrAppend(&expected, message, "\n");
  }
  transport_->Close();

  std::string got;
  char buf[65536];
  for (;;) {
    ssize_t n = read(out_[0], buf, sizeof buf);
    ASSERT_GE(n, 0);
    if (n == 0) break;
    got.append(buf, static_cast<size_t>(n));
    if (got.size() == expected.size()) break;
  }
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST_F(StdioTransportTest, AMessageThePipeHasRoomForIsWrittenBeforeSendReturns) {
  Start();
  for (int i = 0; i < 100; ++i) {
    const std::string message = absl::StrCat(R"({"jsonrpc":"2.0","method":"n","params":)", i, "}");
    ASSERT_TRUE(transport_->Send(message));
    // Already in the pipe: no poll timeout, nothing waited for.
    pollfd readable = {out_[0], POLLIN, 0};
    ASSERT_EQ(poll(&readable, 1, 0), 1) << "message " << i;
    char buf[256];
    ssize_t n = read(out_[0], buf, sizeof buf);
    ASSERT_EQ(std::string(buf, static_cast<size_t>(std::max<ssize_t>(n, 0))), message + "\n");
  }
}

TEST_F(StdioTransportTest, SendersOnSeveralThreadsKeepEachMessageWholeAndTheirOrder) {
  // A small pipe, so that Send finds it full as often as not.
  Start(4096);

  constexpr int kThreads = 4;
  constexpr int kEach = 500;
  std::string got;
  size_t expected_size = 0;
  std::vector<std::vector<std::string>> sent(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kEach; ++i) {
      // From a few bytes to 6 KiB: some over PIPE_BUF, always queued.
      sent[t].push_back(absl::StrCat(t, ":", i, ":", std::string((i * 53 + t) % 6000, 'a' + t)));
      expected_size += sent[t].back().size() + 1;
    }
  }
  std::thread reader([&] {
    char buf[3000];
    while (got.size() < expected_size) {
      ssize_t n = read(out_[0], buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  });
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      for (const std::string& message : sent[t]) transport_->Send(message);
    });
  }
  for (std::thread& s : senders) s.join();
  reader.join();

  ASSERT_EQ(got.size(), expected_size);
  std::map<int, int> next;  // thread -> the index its next message must have
  size_t at = 0;
  while (at < got.size()) {
    const size_t nl = got.find('\n', at);
    ASSERT_NE(nl, std::string::npos);
    const std::string line = got.substr(at, nl - at);
    at = nl + 1;
    const int t = line[0] - '0';
    ASSERT_TRUE(t >= 0 && t < kThreads) << line.substr(0, 20);
    ASSERT_LT(next[t], kEach);
    ASSERT_TRUE(line == sent[t][next[t]]) << "thread " << t << " message " << next[t];
    ++next[t];
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(next[t], kEach);
}

TEST_F(StdioTransportTest, AWriterWithNoReaderClosesTheTransport) {
  CloseFd(out_[0]);  // nobody will read: the write fails with EPIPE
  signal(SIGPIPE, SIG_IGN);
  Start();
  ASSERT_TRUE(transport_->Send(R"({"jsonrpc":"2.0","method":"x"})"));
  peer_->closed.WaitForNotification();
  EXPECT_FALSE(transport_->Send(R"({"jsonrpc":"2.0","method":"y"})"));
}

// Whatever the writer's progress, once the queue holds more than the hard
// limit the transport drops it and closes (the peer's OnClosed), and says
// why.
TEST_F(StdioTransportTest, OutputPastTheHardLimitClosesTheTransport) {
  signal(SIGPIPE, SIG_IGN);
  constexpr size_t kLimit = 64 * 1024;
  Start(4096, {.soft_bytes = 16 * 1024, .hard_bytes = kLimit});
  const std::string message(1000, 'x');
  size_t sent = 0;
  while (transport_->Send(message)) {
    ++sent;
    // What the pipe holds, the batch the writer thread is blocked on and the
    // queue: each bounded.
    ASSERT_LE(sent * (message.size() + 1), 4096 + 2 * kLimit + message.size() + 1)
        << "still queueing past the limit";
  }
  EXPECT_GT(sent * (message.size() + 1), kLimit);
  peer_->closed.WaitForNotification();
  EXPECT_TRUE(transport_->overflowed());
  EXPECT_FALSE(transport_->Send("{}"));
  // The writer may be blocked in a write to the full pipe: it ends when the
  // reader goes away.
  CloseFd(out_[0]);
}

// Closing with output the reader never takes: the writer stays blocked, so
// JoinWithin gives up instead of waiting for good; once the reader goes
// away the writer ends and is joined.
TEST_F(StdioTransportTest, JoinWithinGivesUpOnAWriterBlockedByAReaderThatStoppedReading) {
  signal(SIGPIPE, SIG_IGN);
  Start(4096, {.soft_bytes = 1024 * 1024});
  const std::string message(1000, 'x');
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(transport_->Send(message)) << i;
  transport_->Close();
  EXPECT_FALSE(transport_->JoinWithin(absl::Milliseconds(200)));
  CloseFd(out_[0]);
  EXPECT_TRUE(transport_->JoinWithin(absl::Seconds(30)));
}

TEST_F(StdioTransportTest, JoinWithinJoinsAWriterThatWroteEverything) {
  Start();
  ASSERT_TRUE(transport_->Send(R"({"jsonrpc":"2.0","method":"x"})"));
  transport_->Close();
  EXPECT_TRUE(transport_->JoinWithin(absl::Seconds(30)));
  char buf[256];
  ssize_t n = read(out_[0], buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0),
            "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n");
}

TEST_F(StdioTransportTest, OutputWithinTheLimitIsKept) {
  Start(4096, {.soft_bytes = 64 * 1024});
  const std::string message(1000, 'x');
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(transport_->Send(message)) << i;
  EXPECT_FALSE(transport_->overflowed());
  std::string got;
  char buf[65536];
  while (got.size() < 60 * (message.size() + 1)) {
    ssize_t n = read(out_[0], buf, sizeof buf);
    ASSERT_GT(n, 0);
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(got.size(), 60 * (message.size() + 1));
}

TEST(OutputQueueLimitTest, SixtyFourMibOrTwiceTheMessageCap) {
  EXPECT_EQ(OutputQueueLimit(4096), size_t{64} << 20);
  EXPECT_EQ(OutputQueueLimit(kDefaultMaxMessageBytes), size_t{64} << 20);
  EXPECT_EQ(OutputQueueLimit(size_t{100} << 20), size_t{200} << 20);
  EXPECT_EQ(OutputHardLimit(kDefaultMaxMessageBytes), size_t{1} << 30);
}

// rawd takes at most 16 MiB in one request (daemon/app/daemon.cc): a
// longer message could not become one.
TEST(OutputQueueLimitTest, TheDefaultMessageCapIsWhatRawdTakes) {
  EXPECT_EQ(kDefaultMaxMessageBytes, size_t{16} << 20);
}

// A replay burst into a client that reads slowly but steadily: the queue
// passes the soft limit, but the writer keeps making progress, so every
// byte arrives and nothing overflows, however long it takes (here 0.1 s of
// the transport's clock per KiB read: 6.4 s per 64 KiB write, 100 s in
// all, against a 10 s window).
TEST_F(StdioTransportTest, ASlowButSteadyReaderGetsEverythingPastTheSoftLimit) {
  constexpr size_t kSoft = 64 * 1024;
  Start(4096, {.soft_bytes = kSoft, .hard_bytes = 64 * kSoft, .stall_window = absl::Seconds(10)});
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    absl::StrAppend(&expected, absl::StrCat(i, ":", std::string(1000 + i % 50, 'a' + i % 26)),
                    "\n");
  }
  std::string got;
  std::thread reader([&] { got = ReadOutput(expected.size(), 4096, absl::Milliseconds(100)); });
  size_t at = 0;
  while (at < expected.size()) {
    const size_t nl = expected.find('\n', at);
    if (!transport_->Send(expected.substr(at, nl - at))) {
      ADD_FAILURE() << "closed at byte " << at;
      CloseFd(out_[1]);  // the reader gets what was written, then the end
      break;
    }
    at = nl + 1;
  }
  reader.join();
  EXPECT_FALSE(transport_->overflowed());
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  EXPECT_GT(Now() - absl::FromUnixSeconds(1000000), absl::Seconds(100));
}

// A reader that stops reading: the queue may pass the soft limit while the
// stall window runs; once the writer has written nothing for that long,
// the next message closes the transport.
TEST_F(StdioTransportTest, AReaderThatStopsReadingIsClosedOnceTheStallWindowPasses) {
  signal(SIGPIPE, SIG_IGN);
  constexpr size_t kSoft = 64 * 1024;
  Start(4096, {.soft_bytes = kSoft, .hard_bytes = 64 * kSoft, .stall_window = absl::Seconds(10)});
  const std::string message(1000, 'x');
  for (int i = 0; i < 3 * kSoft / 1000; ++i) ASSERT_TRUE(transport_->Send(message)) << i;
  Advance(absl::Seconds(9));
  ASSERT_TRUE(transport_->Send(message)) << "closed before the window passed";
  Advance(absl::Seconds(1));
  EXPECT_FALSE(transport_->Send(message));
  peer_->closed.WaitForNotification();
  EXPECT_TRUE(transport_->overflowed());
  CloseFd(out_[0]);  // the writer may be blocked in a write to the full pipe
}

// A parent may hand raw-acp a non-blocking stdout: a full pipe is waited
// on, not taken for a client that left.
TEST_F(StdioTransportTest, ANonBlockingOutputThatFillsUpIsWaitedOn) {
  ASSERT_EQ(fcntl(out_[1], F_SETFL, fcntl(out_[1], F_GETFL) | O_NONBLOCK), 0);
  Start(4096);
  std::string expected;
  for (int i = 0; i < 500; ++i) {
    std::string message = absl::StrCat(i, ":", std::string((i * 37) % 9000, 'a' + i % 26));
    ASSERT_TRUE(transport_->Send(message)) << i;
    absl::StrAppend(&expected, message, "\n");
  }
  const std::string got = ReadOutput(expected.size(), 1024, absl::ZeroDuration());
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  EXPECT_TRUE(transport_->Send("{}")) << "the transport closed";
}

}  // namespace
}  // namespace raw::acp
