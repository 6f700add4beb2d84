// The mapping between a SessionRecord and its row in the sessions table: the
// SELECT that lists the columns ReadSessionRow reads, and the UPDATE that
// adds one request's usage. Internal to the session store.
//
// Pure functions over Statements; thread-safety is that of the Statement's
// Database (none).
#pragma once

#include <string>

#include "daemon/events/usage.h"
#include "daemon/store/session_record.h"
#include "daemon/store/sqlite/statement.h"

namespace raw::store {

// "SELECT <columns> FROM sessions ", to be completed with WHERE / ORDER BY.
extern const char kSelectSessionRow[];

// The record of the current row of a statement built on kSelectSessionRow.
SessionRecord ReadSessionRow(const Statement& row);

// The assignments ("a = a + ?, ...", anonymous parameters) of an UPDATE of
// the sessions table that add one request's usage to a session's totals
// (and, when the report knows both input and cache reads, to its
// cache-ratio basis). BindAddUsage binds their parameters from index
// `param` (0-based) on and returns the index after the last.
extern const char kAddUsageAssignments[];
int BindAddUsage(Statement& update, int param, const events::Usage& usage);

}  // namespace raw::store
