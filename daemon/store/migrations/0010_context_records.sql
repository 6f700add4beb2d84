-- Model-context items are stored as binary records (events/context_record.h)
-- from this version on, which a TEXT column of a STRICT table cannot hold.
-- Rows written before keep their JSON, which still decodes: the column takes
-- either. The table is now clustered on its key (WITHOUT ROWID), so loading
-- a context reads one b-tree in order instead of an index and the table.
CREATE TABLE context_items_records (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  payload ANY NOT NULL,  -- a record, or the JSON of events/event_codec.h
  PRIMARY KEY (session_id, position)
) STRICT, WITHOUT ROWID;
INSERT INTO context_items_records (session_id, position, payload)
  SELECT session_id, position, payload FROM context_items;
DROP TABLE context_items;
ALTER TABLE context_items_records RENAME TO context_items;
