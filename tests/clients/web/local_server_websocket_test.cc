// LocalServer's WebSocket connections: frames arrive whole and in order,
// extendable frames waiting behind a write leave joined, a peer that reads
// nothing is dropped past the queue limit, one that answers pings keeps its
// socket while a handler takes longer than the idle timeout (a frame of its
// waiting or not), and one that does not, or that the server holds back
// behind a slow handler, is dropped in bounded time.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "clients/web/local_server.h"
#include "gtest/gtest.h"
#include "tests/clients/web/local_server_fixture.h"
#include "tests/clients/web/support/ws_test_client.h"

namespace raw::web {
namespace {

using testing::kBurstFrames;
using testing::LocalServerTest;

TEST_F(LocalServerTest, WebSocketFactoryReturningNullClosesWith1011) {
  StartServer();
  auto client = ConnectWithToken("/ws");
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_FALSE((*client)->Read().ok());
  EXPECT_EQ((*client)->close_code(), 1011);
}

// Frames queued while earlier ones are still being written go out
// together; each still arrives whole, in order, before the close frame.
TEST_F(LocalServerTest, ABurstOfFramesArrivesInOrderBeforeTheClose) {
  StartServer();
  auto client = ConnectWithToken("/burst");
  ASSERT_TRUE(client.ok()) << client.status();
  for (int i = 0; i < kBurstFrames; ++i) {
    absl::StatusOr<std::string> frame = (*client)->Read();
    ASSERT_TRUE(frame.ok()) << i << ": " << frame.status();
    ASSERT_EQ(*frame, absl::StrCat(i));
  }
  EXPECT_FALSE((*client)->Read().ok());
  EXPECT_EQ((*client)->close_code(), 4000);
}

ExtendableFrame Piece(const std::string& kind, const std::string& piece, const std::string& tag) {
  return ExtendableFrame{kind, piece, [kind, tag](std::string_view pieces) {
                           return absl::StrCat(kind, tag, ":", std::string(pieces));
                         }};
}

// Extendable frames that wait behind a frame being written join the last
// waiting frame of their kind, rendered with the latest render; a plain
// frame or another kind between them keeps them apart, and the order holds.
// The first frame is larger than the loopback socket's buffers and the
// client reads nothing until every frame was sent, so it is still being
// written while the others queue, whatever the timing.
TEST_F(LocalServerTest, ExtendableFramesQueuedBehindAWriteLeaveJoined) {
  StartServer();
  auto client = ConnectWithToken("/hand-over");
  ASSERT_TRUE(client.ok()) << client.status();
  opened_.WaitForNotification();
  const std::string big(48 * 1024 * 1024, 'x');
  ASSERT_TRUE(handed_over_->Send(big));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "1", "#1")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "2", "#2")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "3", "#3")));
  ASSERT_TRUE(handed_over_->Send("plain"));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "4", "#4")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("b", "5", "#5")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("b", "6", "#6")));
  handed_over_->Close(4000, "done");

  absl::StatusOr<std::string> first = (*client)->Read();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), big.size());
  std::vector<std::string> rest;
  for (absl::StatusOr<std::string> f = (*client)->Read(); f.ok(); f = (*client)->Read())
    rest.push_back(*f);
  EXPECT_EQ(rest, (std::vector<std::string>{"a#3:123", "plain", "a#4:4", "b#6:56"}));
  EXPECT_EQ((*client)->close_code(), 4000);
}

// A handler that takes longer than the idle timeout (a dashboard command
// waiting on a stalled rawd) does not cost a peer that answers pings its
// socket: the server keeps reading while the handler runs, so the pongs
// count, and the frame after is answered too.
TEST_F(LocalServerTest, APeerAnsweringPingsKeepsItsSocketWhileAHandlerWaits) {
  LocalServerOptions server_options;
  server_options.websocket_idle_timeout = std::chrono::milliseconds(300);
  StartServer(server_options);
  auto client = ConnectWithToken("/held");
  ASSERT_TRUE(client.ok()) << client.status();
  absl::Cleanup release = [this] {
    if (!release_held_.HasBeenNotified()) release_held_.Notify();
  };
  // The server pings every half timeout: four pings answered while the
  // handler holds span more than the whole timeout.
  int pings = 0;
  (*client)->OnPing([&] {
    if (holding_.HasBeenNotified() && ++pings == 4) release_held_.Notify();
  });
  ASSERT_TRUE((*client)->SendText("hold").ok());
  absl::StatusOr<std::string> reply = (*client)->Read();
  ASSERT_TRUE(reply.ok()) << reply.status() << " after " << pings << " pings answered";
  EXPECT_EQ(*reply, "done:hold");
  EXPECT_EQ(pings, 4);
  ASSERT_TRUE((*client)->SendText("next").ok());
  reply = (*client)->Read();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(*reply, "done:next");
}

// A frame read ahead while the handler waits does not stop the server
// hearing the peer: its pongs still count, so a peer that answers pings
// keeps its socket for longer than the idle timeout while a frame of its
// waits, and both frames are answered.
TEST_F(LocalServerTest, APeerAnsweringPingsKeepsItsSocketWhileAFrameWaitsForTheHandler) {
  LocalServerOptions server_options;
  server_options.websocket_idle_timeout = std::chrono::milliseconds(300);
  StartServer(server_options);
  auto client = ConnectWithToken("/held");
  ASSERT_TRUE(client.ok()) << client.status();
  std::once_flag released;
  auto release = [&] { std::call_once(released, [&] { release_held_.Notify(); }); };
  absl::Cleanup release_at_end = release;
  // Pings counted once the second frame is on its way: four span more than
  // the whole idle timeout.
  std::atomic<bool> next_sent{false};
  std::atomic<int> pings{0};
  absl::Notification pinged;
  (*client)->OnPing([&] {
    if (next_sent && ++pings == 4) {
      pinged.Notify();
      release();
    }
  });
  // Bounds a failure (no pings while the frame waits), not the test.
  std::thread watchdog([&] {
    if (!pinged.WaitForNotificationWithTimeout(absl::Seconds(20))) release();
  });
  absl::Cleanup join = [&] { watchdog.join(); };
  ASSERT_TRUE((*client)->SendText("hold").ok());
  holding_.WaitForNotification();
  ASSERT_TRUE((*client)->SendText("next").ok());
  next_sent = true;
  absl::StatusOr<std::string> reply = (*client)->Read();
  ASSERT_TRUE(reply.ok()) << reply.status() << " after " << pings << " pings answered";
  EXPECT_EQ(*reply, "done:hold");
  EXPECT_TRUE(pinged.HasBeenNotified()) << pings << " pings while the frame waited";
  reply = (*client)->Read();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(*reply, "done:next");
}

// A peer that goes silent (it answers no ping) while a frame of its waits
// for a handler that never returns is dropped after the idle timeout: a
// slow handler does not keep a dead peer's socket open.
TEST_F(LocalServerTest, ASilentPeerIsDroppedWhileAFrameWaitsForTheHandler) {
  LocalServerOptions server_options;
  server_options.websocket_idle_timeout = std::chrono::milliseconds(300);
  StartServer(server_options);
  auto client = ConnectWithToken("/held");
  ASSERT_TRUE(client.ok()) << client.status();
  absl::Cleanup release = [this] { release_held_.Notify(); };
  ASSERT_TRUE((*client)->SendText("hold").ok());
  holding_.WaitForNotification();
  ASSERT_TRUE((*client)->SendText("next").ok());
  EXPECT_TRUE((*client)->WaitForDrop(std::chrono::seconds(20)))
      << "the socket stayed open while the handler held";
}

// A peer that begins yet another frame while one waits for the handler is
// read no further (it is held back, and cannot be heard), so the idle
// timeout cannot judge it; it is let go once handler_timeout passes with
// the handler still running.
TEST_F(LocalServerTest, APeerHeldBackBehindAHandlerIsDroppedAfterTheHandlerTimeout) {
  LocalServerOptions server_options;
  server_options.handler_timeout = std::chrono::milliseconds(300);
  StartServer(server_options);
  auto client = ConnectWithToken("/held");
  ASSERT_TRUE(client.ok()) << client.status();
  absl::Cleanup release = [this] { release_held_.Notify(); };
  ASSERT_TRUE((*client)->SendText("hold").ok());
  holding_.WaitForNotification();
  ASSERT_TRUE((*client)->SendText("a").ok());
  ASSERT_TRUE((*client)->SendText("b").ok());
  EXPECT_TRUE((*client)->WaitForDrop(std::chrono::seconds(20)))
      << "the socket stayed open while the handler held";
}

// Frames sent while the handler still runs are answered in order, each
// after the one before returned.
TEST_F(LocalServerTest, FramesSentWhileAHandlerWaitsAreHandledInOrder) {
  StartServer();
  auto client = ConnectWithToken("/held");
  ASSERT_TRUE(client.ok()) << client.status();
  absl::Cleanup release = [this] {
    if (!release_held_.HasBeenNotified()) release_held_.Notify();
  };
  ASSERT_TRUE((*client)->SendText("hold").ok());
  holding_.WaitForNotification();
  for (const char* text : {"a", "b", "c"}) ASSERT_TRUE((*client)->SendText(text).ok());
  release_held_.Notify();
  std::vector<std::string> replies;
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<std::string> reply = (*client)->Read();
    ASSERT_TRUE(reply.ok()) << reply.status();
    replies.push_back(*reply);
  }
  EXPECT_EQ(replies, (std::vector<std::string>{"done:hold", "done:a", "done:b", "done:c"}));
}

// A peer that reads nothing: once more than max_websocket_queued_bytes wait
// to be written, the socket is dropped (the frames after that point never
// arrive, nor does the close frame).
TEST_F(LocalServerTest, OutputLeftUnreadPastTheLimitDropsTheSocket) {
  LocalServerOptions server_options;
  server_options.max_websocket_queued_bytes = 1024 * 1024;
  StartServer(server_options);
  auto client = ConnectWithToken("/hand-over");
  ASSERT_TRUE(client.ok()) << client.status();
  opened_.WaitForNotification();
  // 32 MiB: more than the loopback socket's buffers and the limit together.
  constexpr int kFrames = 512;
  const std::string frame(64 * 1024, 'x');
  for (int i = 0; i < kFrames; ++i) handed_over_->Send(frame);
  handed_over_->Close(4000, "done");
  int read = 0;
  while ((*client)->Read().ok()) ++read;
  EXPECT_LT(read, kFrames);
  EXPECT_EQ((*client)->close_code(), 0);
}

}  // namespace
}  // namespace raw::web
