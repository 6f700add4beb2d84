// WsOutbox: the frames one LocalServer WebSocket has waiting to be written,
// and the one being written. local_server.cc's WsIo holds one and does the
// writing; this is its bookkeeping alone (no I/O, no Boost), so that the
// contract below is tested on its own (tests/clients/web/ws_outbox_test.cc):
// a write started by BeginWrite refers to the frame's bytes until
// WriteDone, so they stay where they are until then, whatever else happens
// to the queue (Drop included).
//
// Not thread-safe: the I/O thread's.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "clients/web/local_server.h"

namespace raw::web {

// A frame waiting to be written: a finished text, or (with `render`) the
// joined pieces of extendable frames of `kind`, rendered when its write
// begins.
struct OutgoingFrame {
  std::string text;
  std::string kind;
  std::function<std::string(std::string_view)> render;

  // Takes `next` in when both are extendable frames of one kind.
  bool Absorb(OutgoingFrame& next);
  // The bytes it holds while it waits (a rendered frame may be longer).
  size_t size() const { return text.size(); }
  static OutgoingFrame Of(ExtendableFrame frame);
};

class WsOutbox {
 public:
  // `max_queued_bytes` 0: no limit.
  explicit WsOutbox(size_t max_queued_bytes) : max_queued_bytes_(max_queued_bytes) {}
  WsOutbox(const WsOutbox&) = delete;
  WsOutbox& operator=(const WsOutbox&) = delete;

  // Queues `frame`. An extendable one extends the last waiting frame when
  // it can, never the one being written. False, and nothing is queued,
  // when it would take the bytes held past max_queued_bytes: the peer is
  // taken to have stopped reading (the caller drops the socket). After
  // Drop() frames are discarded (true).
  bool Push(OutgoingFrame frame);

  // Starts the write of the next frame: renders it, and returns its bytes,
  // which stay at that address, unchanged, until WriteDone(). nullptr when
  // a write is under way already or nothing waits.
  const std::string* BeginWrite();
  // The write BeginWrite started is over (done or failed): its frame goes.
  void WriteDone();

  // The session is over: every waiting frame is dropped, and later ones are
  // discarded. A frame being written stays until WriteDone(), since the
  // write still refers to its bytes (asio's contract: a write's buffers
  // must outlive it, its failure included).
  void Drop();

  bool writing() const { return writing_; }
  // Frames held: those waiting and the one being written.
  size_t frames() const { return out_.size(); }
  // Their bytes, counted as they were queued (before rendering).
  size_t queued_bytes() const { return queued_bytes_; }

 private:
  std::deque<OutgoingFrame> out_;  // the front is the one being written while writing_
  const size_t max_queued_bytes_;
  size_t queued_bytes_ = 0;   // in out_
  size_t written_bytes_ = 0;  // of the front frame, counted when its write began
  bool writing_ = false;
  bool dropped_ = false;
};

}  // namespace raw::web
