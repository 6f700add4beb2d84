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

TEST(StdioTransportTest, ABurstIntoASlowReaderArrivesWholeAndInOrder) {
  int in[2];
  int out[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  // The smallest pipe: almost every writev is cut short somewhere inside a
  // message, and messages over 4 KiB never fit at once.
  ASSERT_GT(fcntl(out[1], F_SETPIPE_SZ, 4096), 0);
  auto transport = std::make_shared<StdioTransport>(in[0], out[1]);
  auto peer = std::make_unique<ClosingPeer>();
  ClosingPeer* peer_view = peer.get();
  transport->Start(std::move(peer));

  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    // Sizes from a few bytes to 9 KiB, more messages than one writev takes.
    std::string message = absl::StrCat(R"({"n":)", i, R"(,"pad":")",
                                       std::string((i * 37) % 9000, 'a' + i % 26), R"("})");
    ASSERT_TRUE(transport->Send(message));
    absl::StrAppend(&expected, message, "\n");
  }
  transport->Close();

  std::string got;
  char buf[65536];
  for (;;) {
    ssize_t n = read(out[0], buf, sizeof buf);
    ASSERT_GE(n, 0);
    if (n == 0) break;
    got.append(buf, static_cast<size_t>(n));
    if (got.size() == expected.size()) break;
  }
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  close(in[1]);  // the reader sees end of input
  peer_view->closed.WaitForNotification();
  transport->Join();
  for (int fd : {in[0], out[0], out[1]}) close(fd);
}

TEST(StdioTransportTest, AMessageThePipeHasRoomForIsWrittenBeforeSendReturns) {
  int in[2];
  int out[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  auto transport = std::make_shared<StdioTransport>(in[0], out[1]);
  auto peer = std::make_unique<ClosingPeer>();
  ClosingPeer* peer_view = peer.get();
  transport->Start(std::move(peer));
  for (int i = 0; i < 100; ++i) {
    const std::string message = absl::StrCat(R"({"jsonrpc":"2.0","method":"n","params":)", i, "}");
    ASSERT_TRUE(transport->Send(message));
    // Already in the pipe: no poll timeout, nothing waited for.
    pollfd readable = {out[0], POLLIN, 0};
    ASSERT_EQ(poll(&readable, 1, 0), 1) << "message " << i;
    char buf[256];
    ssize_t n = read(out[0], buf, sizeof buf);
    ASSERT_EQ(std::string(buf, static_cast<size_t>(std::max<ssize_t>(n, 0))), message + "\n");
  }
  close(in[1]);
  peer_view->closed.WaitForNotification();
  transport->Join();
  for (int fd : {in[0], out[0], out[1]}) close(fd);
}

TEST(StdioTransportTest, SendersOnSeveralThreadsKeepEachMessageWholeAndTheirOrder) {
  int in[2];
  int out[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  // A small pipe, so that Send finds it full as often as not.
  ASSERT_GT(fcntl(out[1], F_SETPIPE_SZ, 4096), 0);
  auto transport = std::make_shared<StdioTransport>(in[0], out[1]);
  auto peer = std::make_unique<ClosingPeer>();
  ClosingPeer* peer_view = peer.get();
  transport->Start(std::move(peer));

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
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  });
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      for (const std::string& message : sent[t]) transport->Send(message);
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
  close(in[1]);
  peer_view->closed.WaitForNotification();
  transport->Join();
  for (int fd : {in[0], out[0], out[1]}) close(fd);
}

TEST(StdioTransportTest, AWriterWithNoReaderClosesTheTransport) {
  int in[2];
  int out[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  close(out[0]);  // nobody will read: the write fails with EPIPE
  signal(SIGPIPE, SIG_IGN);
  auto transport = std::make_shared<StdioTransport>(in[0], out[1]);
  auto peer = std::make_unique<ClosingPeer>();
  ClosingPeer* peer_view = peer.get();
  transport->Start(std::move(peer));
  ASSERT_TRUE(transport->Send(R"({"jsonrpc":"2.0","method":"x"})"));
  peer_view->closed.WaitForNotification();
  EXPECT_FALSE(transport->Send(R"({"jsonrpc":"2.0","method":"y"})"));
  close(in[1]);
  transport->Join();
  for (int fd : {in[0], out[1]}) close(fd);
}

}  // namespace
}  // namespace raw::acp
