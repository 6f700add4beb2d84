// Start-up check of the directories rawd trusts: its state directory
// (database, log, lock), its config directory and the hooks directory
// beside the config. One that group or others may write to, or that
// belongs to another user (not root), lets someone else replace the config
// or plant files the daemon opens or runs, so it is reported (logged as a
// warning, shown by `raw daemon status`). It is never chmod-ed or chown-ed:
// the user decides.
// DirTrustWarnings is pure; DirPermissionWarnings reads the file system
// only. Both are thread-safe.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace raw::app {

struct TrustedDir {
  std::string what;  // "state directory"
  std::string path;
};

// One sentence per problem of `dir`, whose stat gave `info`, for a daemon
// running as `uid`: group or other write permission, naming the mode and
// the fix ("the state directory /home/u/.local/state/raw is writable by
// group and others (mode 0777); anyone who can write there can replace
// files rawd opens: run chmod go-w /home/u/.local/state/raw"), and an
// owner other than `uid` and root ("... belongs to another user (uid
// 1001), who can replace the files rawd opens there"). Root owns system
// directories and can change any file anyway.
std::vector<std::string> DirTrustWarnings(const TrustedDir& dir, const struct stat& info,
                                          uid_t uid);

// DirTrustWarnings of each of `dirs` that exists and is a directory;
// missing ones are not reported.
std::vector<std::string> DirPermissionWarnings(const std::vector<TrustedDir>& dirs, uid_t uid);

}  // namespace raw::app
