-- Seqs the daemon may have given to live-only events (deltas, progress),
-- which are never stored: a daemon that loads the session again (after a
-- restart, a crash or an unload) numbers its events after both last_seq and
-- this, so no seq a client has seen is ever given to another event.
ALTER TABLE sessions ADD COLUMN seq_reserved INTEGER NOT NULL DEFAULT 0;
