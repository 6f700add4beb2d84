// The settings of Raven's HTTP Source verifier and the one interface through
// which it reads them. The verifier asks for Current() at the start of every
// Verify call, so a settings store that changes them takes effect on the
// next Source check. No setting here can lower a Task's evidence floor:
// they bound the reopening, never what counts as verified.
#pragma once

#include <cstdint>

namespace raw::raven::web {

// The most Source pages one check fetches at once; max_parallel_fetches is
// clamped to 1..kMaxParallelFetches (the config's raven.verify bound is the
// same).
inline constexpr int kMaxParallelFetches = 16;

struct VerifierSettings {
  int64_t fetch_timeout_ms = 15000;   // one page, redirects included
  int64_t total_timeout_ms = 60000;   // every Source of one check
  int64_t max_bytes = 5 * 1024 * 1024;  // of one body; beyond it: truncated
  int max_redirects = 5;              // same-host redirects followed
  // Distinct Source URLs fetched at once, each on its own thread (the
  // calling thread among them); clamped to 1..kMaxParallelFetches. Each
  // page in flight holds up to max_bytes of body.
  int max_parallel_fetches = 4;
  // Connect to loopback, private, link-local and other non-public
  // addresses. Off by default, so a URL planted in the agent's context
  // cannot make rawd probe internal services; tests turn it on to reach
  // their server on 127.0.0.1.
  bool allow_private_addresses = false;

  bool operator==(const VerifierSettings&) const = default;
};

class VerifierSettingsSource {
 public:
  virtual ~VerifierSettingsSource() = default;
  virtual VerifierSettings Current() const = 0;
};

// Settings that never change (tests, and rawd until a settings store feeds
// them).
class FixedVerifierSettings : public VerifierSettingsSource {
 public:
  explicit FixedVerifierSettings(VerifierSettings settings) : settings_(settings) {}
  VerifierSettings Current() const override { return settings_; }

 private:
  VerifierSettings settings_;
};

}  // namespace raw::raven::web
