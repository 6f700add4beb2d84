// Whether a file the daemon acts on (its config) can be changed by someone
// other than the user running it. The config decides which commands rawd
// runs (variables, hooks, MCP servers), so a config that another user can
// write lets them run commands as this user. Reported as warnings (rawd's
// log and `raw daemon status`, `raw config check`); the file is never
// changed: the user decides. FileTrustWarningsFor is pure;
// FileTrustWarnings reads the file system only. Both are thread-safe.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace raw {

// One sentence per problem of the file at `path` (`what` names it, e.g.
// "the config file"), whose stat gave `info`: writable by its group or by
// others (with its mode and `chmod go-w PATH`), or owned by a user other
// than `uid` and root (with its owner; root can change any file anyway).
std::vector<std::string> FileTrustWarningsFor(const std::string& what, const std::string& path,
                                              const struct stat& info, uid_t uid);

// FileTrustWarningsFor of the file at `path`. A file that does not exist,
// or that cannot be examined, gives none.
std::vector<std::string> FileTrustWarnings(const std::string& what, const std::string& path,
                                           uid_t uid);

}  // namespace raw
