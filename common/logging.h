// Logging. The daemon installs one sink at start-up (a file in the state
// directory, plus stderr with --foreground); until then, and in clients and
// tests, messages go to stderr. The sink is the one process-wide object in
// Raw: log calls come from every layer and threading a logger through every
// constructor would buy nothing. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>

namespace raw {

enum class LogLevel { kDebug, kInfo, kWarning, kError };

// The size at which the log file is rotated (SetLogFile).
inline constexpr int64_t kDefaultMaxLogBytes = 8 * 1024 * 1024;

// Opens `path` for appending (and mirrors to stderr when `also_stderr`).
// Appends to the file at `path`, creating it with mode 0600; never opens it
// through a symlink, nor anything but a regular file owned by this user.
// Returns false, and keeps logging to stderr, when the file cannot be opened.
// A message that would take the file past `max_bytes` first renames it to
// `path`.1 (replacing the one before) and starts a new one, so the log
// keeps at most about twice `max_bytes` on disk however long the process
// runs. When the new file cannot be opened, logging goes on to stderr.
bool SetLogFile(const std::string& path, bool also_stderr, int64_t max_bytes = kDefaultMaxLogBytes);
void SetMinLogLevel(LogLevel level);
// True when stderr is connected to the systemd journal: $JOURNAL_STREAM
// ("DEVICE:INODE") names the file stderr is (systemd.exec(5)).
bool StderrIsJournal();
// When on, each line written to stderr starts with its syslog priority
// ("<3>" error, "<4>" warning, "<6>" info, "<7>" debug), which the journal
// reads as the entry's priority (sd-daemon(3)). The log file is unchanged.
void SetStderrPriorityPrefixes(bool on);
// Applied to the text of every message before it is written, e.g. to hide
// known secret values; an empty filter removes it. The filter runs under the
// sink's lock, so it must not log; once SetLogFilter returns, the previous
// filter is no longer running and what it refers to may be destroyed.
using LogFilter = std::function<std::string(const std::string&)>;
void SetLogFilter(LogFilter filter);
void LogMessage(LogLevel level, const char* file, int line, const std::string& text);

class LogLine {
 public:
  LogLine(LogLevel level, const char* file, int line) : level_(level), file_(file), line_(line) {}
  ~LogLine() { LogMessage(level_, file_, line_, out_.str()); }
  template <typename T>
  LogLine& operator<<(const T& v) {
    out_ << v;
    return *this;
  }

 private:
  LogLevel level_;
  const char* file_;
  int line_;
  std::ostringstream out_;
};

}  // namespace raw

#define RAW_LOG(level) ::raw::LogLine(::raw::LogLevel::k##level, __FILE__, __LINE__)
