-- The model context: the items the next request includes, in position
-- order. Kept apart from the display history so compaction and /clear can
-- rewrite it while the history stays whole.
CREATE TABLE context_items (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  payload TEXT NOT NULL,  -- JSON of events/event_codec.h
  PRIMARY KEY (session_id, position)
) STRICT;
