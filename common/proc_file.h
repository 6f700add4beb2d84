// ReadProcFile: the bytes of a small file, /proc files above all, read with
// plain read(2). Never throws: libstdc++'s file streams throw on a read
// error, and a process's /proc files fail with ESRCH when it (or the thread)
// exits while they are read. Returns what could be read ("" when the file
// cannot be opened).
//
// Thread-safe.
#pragma once

#include <string>

namespace raw {

std::string ReadProcFile(const std::string& path);

}  // namespace raw
