// The SQL the session store runs on the events table, in one place so that
// tests can check each query's plan against the schema: every lookup is a
// search of an index, never a scan of a session's history.
//
// Constants only; thread-safe.
#pragma once

namespace raw::store {

// ?1 session id, ?2 seq, ?3 row limit.
inline constexpr char kEventsAfterSql[] =
    "SELECT seq, turn_id, kind, payload, created_at FROM events "
    "WHERE session_id = ?1 AND seq > ?2 ORDER BY seq ASC LIMIT ?3";
inline constexpr char kEventsBeforeSql[] =
    "SELECT seq, turn_id, kind, payload, created_at FROM events "
    "WHERE session_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3";

// ?1 session id, ?2 turn id: the turn's first stored seq (index events_by_turn).
inline constexpr char kFirstSeqOfTurnSql[] =
    "SELECT seq FROM events WHERE session_id = ?1 AND turn_id = ?2 ORDER BY seq ASC LIMIT 1";

// ?1 session id, ?2 tool: the metadata of the tool's results that carry
// any, oldest first (partial index events_tool_meta). The query repeats the
// index's condition term for term, json_valid(payload) included, which is
// what lets SQLite use a partial index; a row that is not valid JSON is
// never read here (reading the history reports it).
inline constexpr char kToolMetaSql[] =
    "SELECT json_extract(payload, '$.meta') FROM events "
    "WHERE session_id = ?1 AND kind = 'tool_result' AND json_valid(payload) "
    "AND json_extract(payload, '$.tool') = ?2 "
    "AND json_extract(payload, '$.meta') IS NOT NULL ORDER BY seq ASC";

inline constexpr char kInsertEventSql[] =
    "INSERT INTO events (session_id, seq, turn_id, kind, payload, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

}  // namespace raw::store
