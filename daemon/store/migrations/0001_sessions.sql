-- One row per session. Usage: for each token field, the sum over the
-- requests that reported it and how many did (the coverage), so an unknown
-- count never reads as zero. The cache_ratio_* columns sum input and cache
-- reads over only the requests that reported both, the basis of the
-- cache-read ratio.
CREATE TABLE sessions (
  id TEXT NOT NULL PRIMARY KEY,
  agent TEXT NOT NULL,
  cwd TEXT NOT NULL,
  created_at INTEGER NOT NULL,        -- Unix ms
  last_activity_at INTEGER NOT NULL,  -- Unix ms of the last committed conversation activity
  title TEXT NOT NULL DEFAULT '',
  last_seq INTEGER NOT NULL DEFAULT 0,
  usage_requests INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  input_tokens_requests INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens_requests INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens_requests INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens_requests INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens_requests INTEGER NOT NULL DEFAULT 0,
  cache_ratio_requests INTEGER NOT NULL DEFAULT 0,
  cache_ratio_input_tokens INTEGER NOT NULL DEFAULT 0,
  cache_ratio_read_tokens INTEGER NOT NULL DEFAULT 0
) STRICT;

-- ListSessions: most recent activity first, ties broken by id (keyset paging).
CREATE INDEX sessions_by_activity ON sessions (last_activity_at DESC, id DESC);
