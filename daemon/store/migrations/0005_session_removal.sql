-- A session being removed (DeleteSession, expiry). The transaction that
-- decides a removal sets it, which hides the session from every read and
-- write at once; its history and context then go in short batches and the
-- row itself with the last one, so a large session never holds the write
-- lock for long. A removal cut short by a crash is finished by the next
-- purge.
ALTER TABLE sessions ADD COLUMN removing INTEGER NOT NULL DEFAULT 0;
