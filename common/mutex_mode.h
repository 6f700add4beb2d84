// Abseil's mutex deadlock detection in Raw's programs.
//
// Debian builds Abseil without NDEBUG, which leaves deadlock detection on:
// then every Mutex::Lock looks the mutex up in a process-wide lock graph
// under one global spin lock, and records an edge for each lock the thread
// already holds. That serializes every lock of every thread on the hot
// paths (event fan-out, the store, gRPC handlers). Raw's programs turn it
// off at start. Builds configured with RAW_SANITIZE keep it, so the
// sanitizer stage still checks lock order in rawd and the clients; test
// binaries never call this and keep Abseil's default.
#pragma once

namespace raw {

// Call first thing in main(), before any thread starts.
void ConfigureMutexDeadlockDetection();

}  // namespace raw
