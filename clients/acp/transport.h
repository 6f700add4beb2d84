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
#include <utility>

#include "clients/acp/input_budget.h"
#include "clients/acp/output_stall.h"
#include "common/request_limit.h"

namespace raw::acp {

// The default cap on one message, on stdio and on the WebSocket alike:
// 16 MiB, the most rawd takes in one request (request_limit.h). A larger
// message could not become a request to rawd anyway: a 20 MiB prompt would
// be read and parsed only to be refused. (The TS SDK's own default is
// 32 MiB.) A prompt under the cap can still assemble to more than rawd
// takes; PromptOf refuses it (prompt_text.h).
inline constexpr size_t kDefaultMaxMessageBytes = kMaxRequestBytes;

// The most input one connection keeps read but not yet handled (see
// input_budget.h): twice the message cap, so that one message can be
// handled while the next is read.
inline constexpr size_t InputBudgetLimit(size_t max_message_bytes) { return 2 * max_message_bytes; }

// The output a connection keeps queued for a client that reads it too
// slowly is bounded by OutputStallRule (output_stall.h): past
// OutputQueueLimit (64 MiB, or twice the message cap when that is larger)
// with nothing written for 10 s, or past OutputHardLimit (16 times that)
// at all, the connection is closed, as when the client goes away: without
// a bound, a stalled client would make raw-acp keep every update of every
// turn in memory.

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

// What reads a connection. The transport calls OnMessageWithClaim once per
// received message, in order, and OnClosed once when the other side goes
// away (EOF, a closed socket) or after Close(); never concurrently.
class Peer {
 public:
  virtual ~Peer() = default;
  virtual void OnMessage(std::string message) = 0;
  // With the message's claim on the connection's input budget: its bytes
  // count as unhandled (and hold the reader back) until the last copy of
  // `claim` is gone. A peer that hands the message on to another thread
  // keeps the claim with it until it is handled; by default the claim is
  // given back when OnMessage returns.
  virtual void OnMessageWithClaim(std::string message, InputClaim claim) {
    OnMessage(std::move(message));
    claim.Release();
  }
  virtual void OnClosed() = 0;
};

// Makes the ACP connection for a new transport (one per stdio process or
// per accepted WebSocket). The peer must not outlive the transport's use of
// it: a transport keeps its peer until after OnClosed returns.
using PeerFactory = std::function<std::unique_ptr<Peer>(std::shared_ptr<Transport>)>;

}  // namespace raw::acp
