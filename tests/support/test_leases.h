// Write leases held by an end-to-end test (every write to a session needs
// the lease of the client that makes it). LeaseFor acquires the session's
// lease through `stub` on first use and holds it on an open AcquireLease
// stream until ReleaseLease, or until the stream ends (the daemon stopped),
// after which the next LeaseFor acquires it again. Thread-safe.
#pragma once

#include <string>

#include "raw/v1/raw_service.grpc.pb.h"

namespace raw::e2e {

// The lease id; "" (and a test failure) when the daemon refused it.
std::string LeaseFor(raw::v1::Raw::Stub& stub, const std::string& session_id);
// Lets go of the session's lease if this process holds it, and returns once
// the daemon has released it.
void ReleaseLease(raw::v1::Raw::Stub& stub, const std::string& session_id);

}  // namespace raw::e2e
