#include "common/child_ledger.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "common/proc_file.h"

namespace raw::child_ledger {
namespace {

// Past this size the file is rewritten with only the live children, so a
// daemon that runs for weeks keeps it small.
constexpr off_t kRewriteBytes = 64 * 1024;

struct Ledger {
  absl::Mutex mu;
  std::string path ABSL_GUARDED_BY(mu);
  std::string boot_id ABSL_GUARDED_BY(mu);
  std::string instance ABSL_GUARDED_BY(mu);
  int fd ABSL_GUARDED_BY(mu) = -1;
  std::map<pid_t, long long> live ABSL_GUARDED_BY(mu);
};

// Never destroyed: children may be reaped while the process exits.
Ledger& TheLedger() {
  static Ledger* ledger = new Ledger;
  return *ledger;
}

std::string BootId() {
  return std::string(absl::StripAsciiWhitespace(ReadProcFile("/proc/sys/kernel/random/boot_id")));
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

// The instance a ledger file names in its second line ("instance ID"), or "".
std::string InstanceOf(const std::string& text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (lines.size() < 2 || !absl::StartsWith(lines[1], "instance ")) return "";
  return std::string(lines[1].substr(9));
}

// The session leaders (pid == session id) other than this process whose
// environment holds `mark` exactly: children the instance started and did not
// reap, recorded or not.
std::vector<pid_t> MarkedLeaders(const std::string& mark) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return out;
  const pid_t self = getpid();
  while (dirent* e = readdir(proc)) {
    int pid = 0;
    if (!absl::SimpleAtoi(e->d_name, &pid) || pid <= 1 || pid == self) continue;
    const std::string stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat"));
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    // After the command name: state ppid pgrp session ...
    std::vector<absl::string_view> fields =
        absl::StrSplit(absl::string_view(stat).substr(close + 1), ' ', absl::SkipEmpty());
    int session = 0;
    if (fields.size() < 4 || !absl::SimpleAtoi(fields[3], &session) || session != pid) continue;
    const std::string environ = ReadProcFile(absl::StrCat("/proc/", pid, "/environ"));
    for (absl::string_view entry : absl::StrSplit(environ, '\0')) {
      if (entry == mark) {
        out.push_back(pid);
        break;
      }
    }
  }
  closedir(proc);
  return out;
}

std::string NewInstance() {
  unsigned char bytes[12] = {};
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)!read(fd, bytes, sizeof bytes);
    close(fd);
  }
  std::string hex;
  for (unsigned char b : bytes) absl::StrAppend(&hex, absl::Hex(b, absl::kZeroPad2));
  return hex;
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
int Rewrite(const std::string& path, const std::string& boot_id, const std::string& instance,
            const std::map<pid_t, long long>& live) {
  const std::string tmp = absl::StrCat(path, ".new");
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  std::string text = absl::StrCat("boot ", boot_id, "\ninstance ", instance, "\n");
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
  const std::string stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat"));
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
  const std::string previous = ReadProcFile(path);
  std::set<pid_t> ended;
  for (const auto& [pid, start] : Unreaped(previous, boot_id)) {
    if (EndGroup(pid, start)) ended.insert(pid);
  }
  // Children started but not yet recorded when the previous daemon died.
  // A session leader's pid names its group, which cannot be reused while it
  // runs.
  const std::string old_instance = InstanceOf(previous);
  if (!old_instance.empty() && !boot_id.empty() &&
      absl::StartsWith(previous, absl::StrCat("boot ", boot_id, "\n"))) {
    for (pid_t pid : MarkedLeaders(absl::StrCat("RAW_DAEMON_CHILD=", old_instance))) {
      if (ended.count(pid) == 0 && kill(-pid, SIGKILL) == 0) ended.insert(pid);
    }
  }
  const std::string instance = NewInstance();
  const int fd = Rewrite(path, boot_id, instance, {});
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot write the child ledger ", path, ": ", std::strerror(errno)));
  }
  if (l.fd >= 0) close(l.fd);
  l.path = path;
  l.boot_id = boot_id;
  l.instance = instance;
  l.fd = fd;
  l.live.clear();
  return static_cast<int>(ended.size());
}

std::string ChildMark() {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  return l.instance.empty() ? "" : absl::StrCat("RAW_DAEMON_CHILD=", l.instance);
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
    if (int fd = Rewrite(l.path, l.boot_id, l.instance, l.live); fd >= 0) {
      close(l.fd);
      l.fd = fd;
    }
  }
}

}  // namespace raw::child_ledger
