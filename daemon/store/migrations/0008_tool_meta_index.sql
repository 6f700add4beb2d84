-- Host-side metadata of tool results (a tool's own durable state, e.g.
-- Raven's Task), found per tool through this index: a tool that rebuilds
-- its state from its earlier results reads only those rows, never the
-- session's whole history. Built for existing rows when the migration runs.
CREATE INDEX events_tool_meta ON events (session_id, json_extract(payload, '$.tool'), seq)
  WHERE kind = 'tool_result' AND json_extract(payload, '$.meta') IS NOT NULL;
