// The commands a dashboard tab sends over its WebSocket
// ({"id":N,"op":"...",...}, docs/dashboard.md), each turned into one daemon
// call with the tab's lease id and answered by one reply frame:
//   {"type":"reply","id":N,"ok":true,"result":{...}}
//   {"type":"reply","id":N,"ok":false,"error":{"code":"...","message":"..."}}
// The daemon decides everything (a write without the lease is its
// FAILED_PRECONDITION); this file only maps names and fields.
//
// Replies may come out of order: `prompt` and `compact` are answered when
// rawd has prepared the turn or compaction, which can take minutes, and
// the commands after them (interrupt above all) are not held up meanwhile.
// A tab has at most kMaxSlowCallsPerTab of those waiting (slow_calls.h);
// one more is answered RESOURCE_EXHAUSTED at once.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "clients/dashboard/gateway.h"
#include "common/json.h"

namespace raw::dashboard {

// What a command acts on: the tab's session, lease and socket.
class CommandTarget {
 public:
  virtual ~CommandTarget() = default;
  virtual const Gateway& gateway() const = 0;
  virtual const std::string& session_id() const = 0;
  // The lease id while the tab holds the lease, else "".
  virtual std::string lease_id() = 0;
  virtual void SendFrame(const Json& frame) = 0;
  // Starts holding the lease; the result now (already held), or nullopt
  // when the reply to `reply_id` comes later (granted or refused).
  virtual std::optional<Json> AcquireLease(int64_t reply_id, bool request_handover) = 0;
  virtual void ReleaseLease() = 0;
  // Runs `call` off the tab's command queue (SlowCalls) and sends its
  // result as the reply to `reply_id` when it returns; or, when the tab
  // has kMaxSlowCallsPerTab such calls running, returns RESOURCE_EXHAUSTED
  // and runs nothing. `call` must own what it uses.
  virtual absl::Status RunSlow(int64_t reply_id, std::function<absl::StatusOr<Json>()> call) = 0;
  virtual void DropEndedLease() = 0;
};

Json OkReply(int64_t id, Json result);
Json ErrorReply(int64_t id, const absl::Status& status);

// Runs the command in `text`; the reply frame, or nullopt when it is sent
// later. A malformed command is an INVALID_ARGUMENT reply (id 0 when the
// id itself is missing).
std::optional<Json> RunCommand(const std::string& text, CommandTarget& target);

}  // namespace raw::dashboard
