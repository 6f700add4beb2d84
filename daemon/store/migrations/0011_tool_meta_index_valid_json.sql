-- 0008 now indexes only valid JSON (json_valid(payload) in its condition).
-- A database that ran the earlier 0008 has the index without that term;
-- the tool-metadata query could still use it, but two databases of the
-- same version should not differ in their schema, so the index is built
-- again here, the same for every database whichever 0008 it ran (one that
-- ran the current 0008 builds it twice, once).
DROP INDEX IF EXISTS events_tool_meta;
CREATE INDEX events_tool_meta ON events (session_id, json_extract(payload, '$.tool'), seq)
  WHERE kind = 'tool_result' AND json_valid(payload)
    AND json_extract(payload, '$.meta') IS NOT NULL;
