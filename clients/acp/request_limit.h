// What rawd takes in one request, which bounds what raw-acp may send it.
#pragma once

#include <cstddef>

namespace raw::acp {

// 16 MiB: rawd's gRPC server refuses a larger message with "Received
// message larger than max" (daemon/app/daemon.cc, kMaxRequestBytes). It
// bounds the messages raw-acp reads by default (transport.h) and the
// prompts it sends (prompt_text.h).
inline constexpr size_t kRawdMaxRequestBytes = 16u << 20;

}  // namespace raw::acp
