// Atomic file replacement for the tools that change files (write_file,
// edit_file).
//
// The content goes to a temporary file in the target's directory, which is
// given the requested mode, flushed, and renamed over the target (both
// relative to the directory opened once without following any symlink,
// checked_open.h), so readers
// see either the old file or the new one, and a failure never leaves a
// half-written file (nor the temporary one) behind. Stateless; safe from any
// thread (two concurrent writers of one file each replace it whole; the last
// rename wins).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace raw::tools::builtin {

// Replaces `target` (a path whose parent directory exists and is reached
// without symlinks; a symlink at `target` itself would be replaced by a
// file, so resolve links first) with
// `content` and permission bits `mode`. Errors read "cannot <what> <target>:
// <reason>".
absl::Status ReplaceFileAtomically(const std::string& target, std::string_view content,
                                   mode_t mode);

// ReplaceFileAtomically in the directory open at `dir_fd` (OpenDirectory or
// OpenOrCreateDirectory, checked_open.h), for a caller that already holds
// it: `target` is the path of the file `name` in it, used in messages only.
absl::Status ReplaceFileAtomicallyAt(int dir_fd, const std::string& name, const std::string& target,
                                     std::string_view content, mode_t mode);

// The mode of a new file: 0666 minus the process umask (read without
// changing it, since umask(2) would race with other threads).
mode_t NewFileMode();

}  // namespace raw::tools::builtin
