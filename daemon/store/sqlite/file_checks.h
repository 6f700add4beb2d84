// The checks a database file passes before Raw trusts it: the sessions of
// every project live in it, so it is opened only as a regular file of the
// daemon's own user, with one name, never through a symbolic link, and
// readable by nobody else. Another user who can write the state directory
// could otherwise plant a link to a file of theirs (and read every session
// written to it) or a link to a file of this user's (and have it
// overwritten), as the lock file guards against (app/state_lock.cc).
//
// For paths of files only: ":memory:", "" (a temporary database) and
// "file:" URIs are not checked. Thread-safe (file system calls only).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace raw::store {

// True for a path that names a database file these checks apply to.
bool IsDatabaseFilePath(const std::string& path);

// The path to give SQLite with SQLITE_OPEN_NOFOLLOW: `path` with its
// directory resolved (a state directory reached through a symbolic link is
// fine; SQLite's NOFOLLOW would refuse any link on the way), the file name
// itself not. kFailedPrecondition naming `path` when the file is a symbolic
// link.
absl::StatusOr<std::string> PathToOpen(const std::string& path);

// Checks the database file at `path` (already open) and its -wal and -shm
// files when they exist: each must be a regular file owned by the
// effective user with one link (kFailedPrecondition naming the file and
// what to do otherwise). A file that others may read or write loses those
// permission bits (0644 becomes 0600), which is logged, rather than being
// refused: earlier builds and copies made with a common umask leave such
// files, and SQLite gives the -wal and -shm files it creates the mode of
// the database file.
absl::Status CheckDatabaseFiles(const std::string& path);

}  // namespace raw::store
