// The largest request rawd reads, shared by rawd and the clients that must
// stay within it.
#pragma once

#include <cstddef>

namespace raw {

// 16 MiB: the images of a prompt (10 MiB) and room for its text. rawd's
// gRPC server refuses a larger message with "Received message larger than
// max" (daemon/app/daemon.cc); raw-acp bounds the messages it reads and the
// prompts it sends by it (clients/acp/transport.h, prompt_text.h).
inline constexpr size_t kMaxRequestBytes = 16u << 20;

}  // namespace raw
