-- Host-side metadata of tool results (a tool's own durable state, e.g.
-- Raven's Task), found per tool through this index: a tool that rebuilds
-- its state from its earlier results reads only those rows, never the
-- session's whole history. Built for existing rows when the migration runs.
-- Only valid JSON is indexed: json_extract fails on anything else, and one
-- damaged row must not stop the upgrade (reading it reports the damage).
CREATE INDEX events_tool_meta ON events (session_id, json_extract(payload, '$.tool'), seq)
  WHERE kind = 'tool_result' AND json_valid(payload)
    AND json_extract(payload, '$.meta') IS NOT NULL;
