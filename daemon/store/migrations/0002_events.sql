-- The display history: durable SessionEvents, append-only, one row per seq.
-- payload is the JSON of events/event_codec.h; kind repeats its kind name.
CREATE TABLE events (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  turn_id TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,  -- Unix ms
  PRIMARY KEY (session_id, seq)
) STRICT;
