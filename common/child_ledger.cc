#include "common/child_ledger.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"

namespace raw::child_ledger {
namespace {

// Past this size the file is rewritten with only the live children, so a
// daemon that runs for weeks keeps it small.
constexpr off_t kRewriteBytes = 64 * 1024;

struct Ledger {
  absl::Mutex mu;
  std::string path ABSL_GUARDED_BY(mu);
  std::string boot_id ABSL_GUARDED_BY(mu);
  int fd ABSL_GUARDED_BY(mu) = -1;
  std::map<pid_t, long long> live ABSL_GUARDED_BY(mu);
};

// Never destroyed: children may be reaped while the process exits.
Ledger& TheLedger() {
  static Ledger* ledger = new Ledger;
  return *ledger;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string BootId() {
  return std::string(absl::StripAsciiWhitespace(ReadFile("/proc/sys/kernel/random/boot_id")));
}

bool WriteAll(int fd, absl::string_view text) {
  while (!text.empty()) {
    ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The children a ledger file recorded and did not forget; empty when it is
// from another boot (pids mean nothing across boots) or unreadable.
std::map<pid_t, long long> Unreaped(const std::string& text, const std::string& boot_id) {
  std::map<pid_t, long long> live;
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (lines.empty() || boot_id.empty() || lines[0] != absl::StrCat("boot ", boot_id)) return live;
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (line.empty()) continue;
    const char op = line[0];
    std::vector<absl::string_view> fields = absl::StrSplit(line.substr(1), ' ');
    int pid = 0;
    if (!absl::SimpleAtoi(fields[0], &pid) || pid <= 1) continue;
    long long start = -1;
    if (op == '+' && fields.size() == 2 && absl::SimpleAtoi(fields[1], &start)) {
      live[pid] = start;
    } else if (op == '-') {
      live.erase(pid);
    }
  }
  return live;
}

// SIGKILL to the group `pid` leads when it is provably the recorded one (see
// the header). True when a signal was delivered.
bool EndGroup(pid_t pid, long long recorded_start) {
  const long long start = ProcessStartTime(pid);
  if (start >= 0 && start != recorded_start) return false;  // the pid was reused
  return kill(-pid, SIGKILL) == 0;
}

// Writes the header and `live` to a new file and renames it over `path`;
// returns its descriptor (O_APPEND), or -1.
int Rewrite(const std::string& path, const std::string& boot_id,
            const std::map<pid_t, long long>& live) {
  const std::string tmp = absl::StrCat(path, ".new");
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  std::string text = absl::StrCat("boot ", boot_id, "\n");
  for (const auto& [pid, start] : live) absl::StrAppend(&text, "+", pid, " ", start, "\n");
  if (!WriteAll(fd, text) || rename(tmp.c_str(), path.c_str()) != 0) {
    close(fd);
    unlink(tmp.c_str());
    return -1;
  }
  return fd;
}

}  // namespace

long long ProcessStartTime(pid_t pid) {
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so
  // count fields from the last ')'; starttime is field 22 of the whole line.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(close + 1), ' ', absl::SkipEmpty());
  long long start = -1;
  if (fields.size() < 20 || !absl::SimpleAtoi(fields[19], &start)) return -1;
  return start;
}

absl::StatusOr<int> Open(const std::string& path) {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  const std::string boot_id = BootId();
  int ended = 0;
  for (const auto& [pid, start] : Unreaped(ReadFile(path), boot_id)) {
    if (EndGroup(pid, start)) ++ended;
  }
  const int fd = Rewrite(path, boot_id, {});
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot write the child ledger ", path, ": ", std::strerror(errno)));
  }
  if (l.fd >= 0) close(l.fd);
  l.path = path;
  l.boot_id = boot_id;
  l.fd = fd;
  l.live.clear();
  return ended;
}

void Record(pid_t pid) {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  if (l.fd < 0) return;
  const long long start = ProcessStartTime(pid);
  l.live[pid] = start;
  // A failed write loses only the chance to end this group after a crash.
  WriteAll(l.fd, absl::StrCat("+", pid, " ", start, "\n"));
}

void Forget(pid_t pid) {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  if (l.fd < 0 || l.live.erase(pid) == 0) return;
  WriteAll(l.fd, absl::StrCat("-", pid, "\n"));
  if (lseek(l.fd, 0, SEEK_END) > kRewriteBytes) {
    if (int fd = Rewrite(l.path, l.boot_id, l.live); fd >= 0) {
      close(l.fd);
      l.fd = fd;
    }
  }
}

}  // namespace raw::child_ledger
