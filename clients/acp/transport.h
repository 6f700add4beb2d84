// The seam between an ACP connection and the byte stream that carries it.
//
// ACP messages are JSON-RPC 2.0 objects, one per line on stdio and one per
// text frame on the WebSocket (`raw-acp --listen`). A transport delivers
// each received message to its Peer as one string (without the line end)
// and writes each message the peer sends as one unit, so messages from
// different sessions never interleave within a line or frame.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace raw::acp {

// The default cap on one message, on stdio and on the WebSocket alike: the
// TS SDK's own (DEFAULT_MAX_MESSAGE_BYTES).
inline constexpr size_t kDefaultMaxMessageBytes = 32u << 20;

// The most output a connection keeps queued for a client that does not read
// it: 64 MiB, or twice the message cap when that is larger (so that the
// largest message always fits). Past it the connection is closed, as when
// the client goes away: without a bound, a stalled client would make
// raw-acp keep every update of every turn in memory.
inline constexpr size_t OutputQueueLimit(size_t max_message_bytes) {
  constexpr size_t kMinimum = size_t{64} << 20;
  return max_message_bytes > kMinimum / 2 ? 2 * max_message_bytes : kMinimum;
}

class Transport {
 public:
  virtual ~Transport() = default;
  // Queues one message (a serialized JSON object, no line end) for writing.
  // Thread-safe; never blocks on the reader. False once the transport is
  // closed (the message is dropped).
  virtual bool Send(std::string message) = 0;
  // Ends the connection: no more messages are sent or delivered; the peer's
  // OnClosed follows once.
  virtual void Close() = 0;
};

// What reads a connection. The transport calls OnMessage once per received
// message, in order, and OnClosed once when the other side goes away (EOF,
// a closed socket) or after Close(); never concurrently.
class Peer {
 public:
  virtual ~Peer() = default;
  virtual void OnMessage(std::string message) = 0;
  virtual void OnClosed() = 0;
};

// Makes the ACP connection for a new transport (one per stdio process or
// per accepted WebSocket). The peer must not outlive the transport's use of
// it: a transport keeps its peer until after OnClosed returns.
using PeerFactory = std::function<std::unique_ptr<Peer>(std::shared_ptr<Transport>)>;

}  // namespace raw::acp
