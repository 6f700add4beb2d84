-- Per-session state kept for a resumed session: the loop's context-estimate
-- state (opaque text), a hash of the tool definitions it last used, and the
-- number of accepted compactions.
ALTER TABLE sessions ADD COLUMN context_meter TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN runtime_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN compactions INTEGER NOT NULL DEFAULT 0;

-- FirstSeqOfTurn: the first stored event of a turn without a scan of the
-- session's history.
CREATE INDEX events_by_turn ON events (session_id, turn_id, seq);

-- Facts about the database file itself (NoteOnce keys).
CREATE TABLE meta (
  key TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
