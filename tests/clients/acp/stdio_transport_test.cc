// StdioTransport's writer: messages queued while the reader is slow go out
// together, whole and in order, across partial writes into a small pipe.
#include "clients/acp/stdio_transport.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <string>
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
