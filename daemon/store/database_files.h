// The session database's file names in the state directory: the file of the
// current schema generation, and files of other generations that are left
// untouched beside it.
//
// Pure functions (FindOldDatabases only lists a directory); thread-safe.
#pragma once

#include <string>
#include <vector>

namespace raw::store {

// "sessions-v1.sqlite3": the file name carries the schema generation, so an
// older unsupported file is left untouched beside the new one.
const char* DatabaseFileName();

// The paths ("<state_dir>/<name>", sorted) of the regular files in
// `state_dir` that are session databases of another generation:
// sessions.sqlite3, sessions.db, and sessions-v<N>.sqlite3 where N is a
// number other than the current generation's. Their -wal and -shm
// companions are not listed. The files are never opened, read or modified.
// A missing or unreadable directory yields an empty list.
std::vector<std::string> FindOldDatabases(const std::string& state_dir);

}  // namespace raw::store
