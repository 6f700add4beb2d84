// WsOutbox (what WsIo::End drops and what it keeps): a frame being written
// keeps its bytes, at the address the write was given, until the write is
// over, whatever happens to the queue meanwhile; the frames waiting behind
// it go when the session ends. Over a socket this cannot be seen (the
// closed socket's write never reads its buffer again, so dropping it would
// be a use-after-free that nothing notices), hence these tests of the
// bookkeeping itself.
#include "clients/web/ws_outbox.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::web {
namespace {

OutgoingFrame Text(std::string text) { return OutgoingFrame{std::move(text), {}, nullptr}; }

OutgoingFrame Piece(const std::string& kind, const std::string& piece) {
  return OutgoingFrame{piece, kind, [kind](std::string_view pieces) {
                         return absl::StrCat(kind, ":", std::string(pieces));
                       }};
}

// The contract End relies on: Drop while a write is under way keeps that
// write's frame (its bytes where the write was told they are) until
// WriteDone, and drops the rest at once.
TEST(WsOutbox, DropKeepsTheFrameBeingWrittenUntilItsWriteIsOver) {
  WsOutbox outbox(0);
  const std::string big(1024 * 1024, 'x');
  ASSERT_TRUE(outbox.Push(Text(big)));
  ASSERT_TRUE(outbox.Push(Text("second")));
  ASSERT_TRUE(outbox.Push(Piece("a", "1")));
  const std::string* written = outbox.BeginWrite();
  ASSERT_NE(written, nullptr);
  const char* bytes = written->data();

  outbox.Drop();

  EXPECT_TRUE(outbox.writing());
  ASSERT_EQ(outbox.frames(), 1u) << "the frame being written was dropped with the queue";
  EXPECT_EQ(outbox.queued_bytes(), big.size());
  // Still the write's bytes, where they were, unchanged.
  EXPECT_EQ(written->data(), bytes);
  EXPECT_EQ(*written, big);
  EXPECT_EQ(outbox.BeginWrite(), nullptr);  // one write at a time

  outbox.WriteDone();
  EXPECT_FALSE(outbox.writing());
  EXPECT_EQ(outbox.frames(), 0u);
  EXPECT_EQ(outbox.queued_bytes(), 0u);
}

// Frames queued after the end are discarded, and the write still under way
// is not extended or replaced by them.
TEST(WsOutbox, FramesAfterDropAreDiscarded) {
  WsOutbox outbox(0);
  ASSERT_TRUE(outbox.Push(Piece("a", "1")));
  const std::string* written = outbox.BeginWrite();
  ASSERT_NE(written, nullptr);
  EXPECT_EQ(*written, "a:1");
  outbox.Drop();
  EXPECT_TRUE(outbox.Push(Piece("a", "2")));
  EXPECT_TRUE(outbox.Push(Text("late")));
  ASSERT_EQ(outbox.frames(), 1u);
  EXPECT_EQ(*written, "a:1");
  outbox.WriteDone();
  EXPECT_EQ(outbox.frames(), 0u);
  EXPECT_EQ(outbox.BeginWrite(), nullptr);
}

// Without a write under way, Drop leaves nothing.
TEST(WsOutbox, DropWithoutAWriteDropsEverything) {
  WsOutbox outbox(0);
  ASSERT_TRUE(outbox.Push(Text("one")));
  ASSERT_TRUE(outbox.Push(Text("two")));
  outbox.Drop();
  EXPECT_EQ(outbox.frames(), 0u);
  EXPECT_EQ(outbox.queued_bytes(), 0u);
  EXPECT_EQ(outbox.BeginWrite(), nullptr);
}

// Extendable frames join behind the frame being written, never into it,
// and the joined one is rendered once, with the last render, when its
// write begins.
TEST(WsOutbox, ExtendableFramesJoinBehindTheWrite) {
  WsOutbox outbox(0);
  ASSERT_TRUE(outbox.Push(Piece("a", "1")));
  const std::string* first = outbox.BeginWrite();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(outbox.Push(Piece("a", "2")));
  ASSERT_TRUE(outbox.Push(Piece("a", "3")));
  ASSERT_TRUE(outbox.Push(Text("plain")));
  ASSERT_TRUE(outbox.Push(Piece("a", "4")));
  EXPECT_EQ(outbox.frames(), 4u);
  EXPECT_EQ(*first, "a:1");
  std::vector<std::string> out;
  for (const std::string* w = first; w != nullptr; w = outbox.BeginWrite()) {
    out.push_back(*w);
    outbox.WriteDone();
  }
  EXPECT_EQ(out, (std::vector<std::string>{"a:1", "a:23", "plain", "a:4"}));
  EXPECT_EQ(outbox.queued_bytes(), 0u);
}

// Past max_queued_bytes a frame is refused (the caller drops the socket);
// the bytes of a frame written are freed when its write is over.
TEST(WsOutbox, RefusesAFramePastTheLimit) {
  WsOutbox outbox(10);
  ASSERT_TRUE(outbox.Push(Text("12345")));
  ASSERT_TRUE(outbox.Push(Text("67890")));
  EXPECT_EQ(outbox.queued_bytes(), 10u);
  EXPECT_FALSE(outbox.Push(Text("x")));
  EXPECT_EQ(outbox.frames(), 2u);
  ASSERT_NE(outbox.BeginWrite(), nullptr);
  outbox.WriteDone();
  EXPECT_EQ(outbox.queued_bytes(), 5u);
  EXPECT_TRUE(outbox.Push(Text("x")));
}

}  // namespace
}  // namespace raw::web
