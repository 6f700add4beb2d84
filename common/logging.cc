#include "common/logging.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"

namespace raw {
namespace {

struct Sink {
  absl::Mutex mu;
  FILE* file = nullptr;
  std::string path;        // of `file`
  int64_t file_bytes = 0;  // its size: at open, then counted
  int64_t max_bytes = kDefaultMaxLogBytes;
  bool also_stderr = true;
  bool priority_prefixes = false;
  LogLevel min_level = LogLevel::kInfo;
  std::unique_ptr<const LogFilter> filter;
};

Sink& GetSink() {
  static Sink* sink = new Sink();
  return *sink;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "D";
    case LogLevel::kInfo: return "I";
    case LogLevel::kWarning: return "W";
    case LogLevel::kError: return "E";
  }
  return "?";
}

// sd-daemon(3) priorities.
const char* PriorityPrefix(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "<7>";
    case LogLevel::kInfo: return "<6>";
    case LogLevel::kWarning: return "<4>";
    case LogLevel::kError: return "<3>";
  }
  return "<6>";
}

}  // namespace

namespace {

// The log file opened for appending: created 0600 (whatever the umask
// allows: never more), never through a symlink, and only when it is a
// regular file owned by this user (a FIFO planted there must not block the
// daemon, nor another user's file receive its log).
// `size` is set to the file's size.
FILE* OpenLogFile(const std::string& path, int64_t& size) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
                0600);
  if (fd < 0) return nullptr;
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != geteuid()) {
    close(fd);
    return nullptr;
  }
  FILE* f = fdopen(fd, "a");
  if (f == nullptr) close(fd);
  size = static_cast<int64_t>(info.st_size);
  return f;
}

// Moves the full log file aside to `path`.1 and opens a new one. When it
// cannot be moved, the file is kept and tried again after another
// max_bytes; when none can be opened, stderr takes the messages.
void RotateLocked(Sink& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  const std::string old = s.path + ".1";
  if (std::rename(s.path.c_str(), old.c_str()) != 0) {
    s.file_bytes = 0;
    return;
  }
  std::fclose(s.file);
  s.file = OpenLogFile(s.path, s.file_bytes);
  if (s.file == nullptr) s.also_stderr = true;
}

}  // namespace

bool SetLogFile(const std::string& path, bool also_stderr, int64_t max_bytes) {
  Sink& s = GetSink();
  int64_t size = 0;
  FILE* f = OpenLogFile(path, size);
  absl::MutexLock lock(&s.mu);
  if (f == nullptr) {
    s.also_stderr = true;
    return false;
  }
  if (s.file != nullptr) std::fclose(s.file);
  s.file = f;
  s.path = path;
  s.file_bytes = size;
  s.max_bytes = std::max<int64_t>(max_bytes, 1);
  s.also_stderr = also_stderr;
  return true;
}

bool StderrIsJournal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat info;
  if (fstat(STDERR_FILENO, &info) != 0) return false;
  return static_cast<unsigned long long>(info.st_dev) == dev &&
         static_cast<unsigned long long>(info.st_ino) == ino;
}

void SetStderrPriorityPrefixes(bool on) {
  Sink& s = GetSink();
  absl::MutexLock lock(&s.mu);
  s.priority_prefixes = on;
}

void SetMinLogLevel(LogLevel level) {
  Sink& s = GetSink();
  absl::MutexLock lock(&s.mu);
  s.min_level = level;
}

void SetLogFilter(LogFilter filter) {
  Sink& s = GetSink();
  auto owned = filter ? std::make_unique<const LogFilter>(std::move(filter)) : nullptr;
  absl::MutexLock lock(&s.mu);
  s.filter = std::move(owned);
}

void LogMessage(LogLevel level, const char* file, int line, const std::string& text) {
  Sink& s = GetSink();
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  struct tm tm_buf;
  gmtime_r(&secs, &tm_buf);
  const char* base = file;
  for (const char* p = file; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  absl::MutexLock lock(&s.mu);
  if (level < s.min_level) return;
  // Under the lock: SetLogFilter returns only once no message is being
  // filtered with the old filter, so the owner can then destroy its state.
  const std::string filtered = s.filter ? (*s.filter)(text) : std::string();
  std::string msg = absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s %d %s:%d] %s\n",
                                    tm_buf.tm_year + 1900, tm_buf.tm_mon + 1, tm_buf.tm_mday,
                                    tm_buf.tm_hour, tm_buf.tm_min, tm_buf.tm_sec, static_cast<int>(ms),
                                    LevelName(level), getpid(), base, line,
                                    s.filter ? filtered : text);
  const auto size = static_cast<int64_t>(msg.size());
  if (s.file != nullptr && s.file_bytes > 0 && s.file_bytes + size > s.max_bytes) RotateLocked(s);
  if (s.file != nullptr) {
    std::fputs(msg.c_str(), s.file);
    std::fflush(s.file);
    s.file_bytes += size;
  }
  if (s.file == nullptr || s.also_stderr) {
    if (s.priority_prefixes) std::fputs(PriorityPrefix(level), stderr);
    std::fputs(msg.c_str(), stderr);
  }
}

}  // namespace raw
