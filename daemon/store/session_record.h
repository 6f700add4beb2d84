// SessionRecord: what the session store keeps about one session besides its
// display history and model context (identity, times, title, cumulative
// usage, the loop's saved state), and ExpiresAt, the time a record expires.
//
// Plain values; ExpiresAt is a pure function and thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "daemon/events/usage.h"

namespace raw::store {

// For each Usage field, how many committed usage reports knew it.
struct UsageCoverage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_write_tokens = 0;
  int64_t reasoning_tokens = 0;
  bool operator==(const UsageCoverage&) const = default;
};

// Input and cache-read sums over only the requests that reported both: the
// cache-read ratio is cache_read_tokens / input_tokens of this basis.
struct CacheRatioBasis {
  int64_t requests = 0;
  int64_t input_tokens = 0;
  int64_t cache_read_tokens = 0;
  bool operator==(const CacheRatioBasis&) const = default;
};

struct SessionRecord {
  std::string id;
  std::string agent;
  // The model entry chosen for this session, overriding the agent's model;
  // "" = the agent's own. A name, checked against the config when used.
  std::string model{};
  std::string cwd;
  int64_t created_at_unix_ms = 0;
  // The last committed conversation activity. Expiry counts from it; reading
  // a session (its record, history or context) never moves it.
  int64_t last_activity_unix_ms = 0;
  std::string title;
  uint64_t last_seq = 0;
  // Seqs up to here may have been given to live-only events by a daemon
  // that had the session loaded (CommitBatch::reserve_seqs_through); a
  // loaded session numbers new events after max(last_seq, seq_reserved).
  uint64_t seq_reserved = 0;
  // Cumulative usage: each field sums the requests that reported it, and
  // has its own count of reporting requests (usage_coverage). A field no
  // request reported is std::nullopt, never 0.
  events::Usage usage;
  // Requests whose usage was committed (CommitBatch::usage set), including
  // reports where every field was unknown: the denominator of the coverage.
  int64_t usage_requests = 0;
  UsageCoverage usage_coverage;
  CacheRatioBasis cache_ratio;
  // The loop's context-estimate state, opaque to the store ("" = none yet).
  std::string context_meter{};
  // A hash of the tool definitions the session last used ("" = none yet).
  std::string runtime_hash{};
  // Compactions accepted so far (CommitBatch::compaction_accepted).
  int64_t compactions{};
};

// When `record` expires under sessions.expire_after_days = `expire_after_days`:
// its last activity plus that many days, in Unix ms. 0 (never) when the
// setting is 0 or less. A sum past the int64 range saturates.
int64_t ExpiresAt(const SessionRecord& record, int64_t expire_after_days);

}  // namespace raw::store
