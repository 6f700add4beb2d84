// StdioTransport's writer: a message the pipe has room for is written by
// Send itself; messages queued while the reader is slow go out together,
// whole and in order, across partial writes into a small pipe, also when
// several threads send at once.
#include "clients/acp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace raw::acp {
namespace {

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
  // `pipe_size` (0: the default) sets the size of the output pipe.
  // `max_queued_bytes` 0: the default limit.
  void Start(int pipe_size = 0, size_t max_queued_bytes = 0) {
    if (pipe_size > 0) {
      ASSERT_GT(fcntl(out_[1], F_SETPIPE_SZ, pipe_size), 0);
    }
    transport_ = std::make_shared<StdioTransport>(in_[0], out_[1], kDefaultMaxMessageBytes,
                                                  max_queued_bytes);
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

// A reader that stops reading: once the queue holds more than the limit,
// the transport drops it and closes (the peer's OnClosed), and says why.
TEST_F(StdioTransportTest, OutputLeftUnreadPastTheLimitClosesTheTransport) {
  signal(SIGPIPE, SIG_IGN);
  constexpr size_t kLimit = 64 * 1024;
  Start(4096, kLimit);
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
  Start(4096, 1024 * 1024);
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
  Start(4096, 64 * 1024);
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
}

}  // namespace
}  // namespace raw::acp
