#include "common/child_ledger.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
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

struct Child {
  long long start = -1;
  unsigned long long nonce = 0;
};

struct Ledger {
  absl::Mutex mu;
  std::string path ABSL_GUARDED_BY(mu);
  std::string boot_id ABSL_GUARDED_BY(mu);
  std::string instance ABSL_GUARDED_BY(mu);
  int fd ABSL_GUARDED_BY(mu) = -1;
  std::map<pid_t, Child> live ABSL_GUARDED_BY(mu);
  // Announced and neither recorded nor withdrawn yet.
  std::set<unsigned long long> pending ABSL_GUARDED_BY(mu);
  unsigned long long next_nonce ABSL_GUARDED_BY(mu) = 1;
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

// What a ledger file says of the daemon that wrote it.
struct Previous {
  std::string instance;                    // "" when it names none
  bool clean = false;                      // it ended with "clean"
  std::map<pid_t, long long> unreaped;     // recorded, not forgotten: pid -> start
  std::set<unsigned long long> announced;  // "?N" lines
  std::set<unsigned long long> recorded;   // the N of "+PID START N" lines
};

// Reads a ledger file; says nothing when it is from another boot (pids mean
// nothing across boots) or unreadable. Lines it cannot parse are skipped.
Previous ReadPrevious(const std::string& text, const std::string& boot_id) {
  Previous p;
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (lines.empty() || boot_id.empty() || lines[0] != absl::StrCat("boot ", boot_id)) return p;
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (absl::ConsumePrefix(&line, "instance ")) {
      if (i == 1) p.instance = std::string(line);
      continue;
    }
    if (line == "clean") {
      p.clean = true;
      continue;
    }
    const char op = line[0];
    std::vector<absl::string_view> fields = absl::StrSplit(line.substr(1), ' ');
    unsigned long long nonce = 0;
    if (op == '?') {
      if (fields.size() == 1 && absl::SimpleAtoi(fields[0], &nonce)) p.announced.insert(nonce);
      continue;
    }
    int pid = 0;
    if (!absl::SimpleAtoi(fields[0], &pid) || pid <= 1) continue;
    long long start = -1;
    if (op == '+' && fields.size() >= 2 && absl::SimpleAtoi(fields[1], &start)) {
      p.unreaped[pid] = start;
      if (fields.size() == 3 && absl::SimpleAtoi(fields[2], &nonce)) p.recorded.insert(nonce);
    } else if (op == '-') {
      p.unreaped.erase(pid);
    }
  }
  return p;
}

// The session leaders (pid == session id) other than this process whose
// environment holds a mark "<prefix>.N", with that N: children the instance
// started and did not reap, and the descendants of its children that
// detached into sessions of their own.
std::vector<std::pair<pid_t, unsigned long long>> MarkedLeaders(const std::string& prefix) {
  std::vector<std::pair<pid_t, unsigned long long>> out;
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
      unsigned long long nonce = 0;
      if (absl::ConsumePrefix(&entry, prefix) && absl::ConsumePrefix(&entry, ".") &&
          absl::SimpleAtoi(entry, &nonce)) {
        out.emplace_back(pid, nonce);
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

// The previous ledger's text, when `path` is a regular file of this user's
// (not a symlink); else "", which ends nothing: a ledger another user put
// in a state directory they can write to must not choose what is killed.
std::string ReadOwnLedger(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
    char buffer[16384];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  return text;
}

// Writes the header, `pending` and `live` to a new file and renames it over `path`;
// returns its descriptor (O_APPEND), or -1.
int Rewrite(const std::string& path, const std::string& boot_id, const std::string& instance,
            const std::map<pid_t, Child>& live, const std::set<unsigned long long>& pending) {
  // A fresh file, never one found there: a symlink (or a file another user
  // put in a state directory they can write to) is removed, not written
  // through; if one appears again before the open, the open fails.
  const std::string tmp = absl::StrCat(path, ".new");
  if (unlink(tmp.c_str()) != 0 && errno != ENOENT) return -1;
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  std::string text = absl::StrCat("boot ", boot_id, "\ninstance ", instance, "\n");
  for (unsigned long long nonce : pending) absl::StrAppend(&text, "?", nonce, "\n");
  for (const auto& [pid, child] : live) {
    absl::StrAppend(&text, "+", pid, " ", child.start, " ", child.nonce, "\n");
  }
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
  const Previous previous = ReadPrevious(ReadOwnLedger(path), boot_id);
  std::set<pid_t> ended;
  if (!previous.clean) {
    for (const auto& [pid, start] : previous.unreaped) {
      if (EndGroup(pid, start)) ended.insert(pid);
    }
  }
  // Children started but not yet recorded when the previous daemon died. A
  // session leader's pid names its group, which cannot be reused while it
  // runs. A leader whose N was recorded is a child's descendant that
  // detached, or a recorded child handled above.
  if (!previous.clean && !previous.instance.empty()) {
    const std::string prefix = absl::StrCat("RAW_DAEMON_CHILD=", previous.instance);
    for (const auto& [pid, nonce] : MarkedLeaders(prefix)) {
      if (previous.announced.count(nonce) == 0 || previous.recorded.count(nonce) != 0) continue;
      if (ended.count(pid) == 0 && kill(-pid, SIGKILL) == 0) ended.insert(pid);
    }
  }
  const std::string instance = NewInstance();
  const int fd = Rewrite(path, boot_id, instance, {}, {});
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
  l.pending.clear();
  l.next_nonce = 1;
  return static_cast<int>(ended.size());
}

bool Close() {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  if (l.fd < 0) return false;
  const bool clean = l.live.empty() && l.pending.empty() && WriteAll(l.fd, "clean\n");
  close(l.fd);
  l.fd = -1;
  l.instance.clear();
  l.live.clear();
  l.pending.clear();
  return clean;
}

int EndLiveGroups() {
  Ledger& l = TheLedger();
  if (!l.mu.TryLock()) return 0;
  int ended = 0;
  for (const auto& [pid, child] : l.live) ended += EndGroup(pid, child.start) ? 1 : 0;
  l.mu.Unlock();
  return ended;
}

std::string ChildMark() {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  return l.instance.empty() ? "" : absl::StrCat("RAW_DAEMON_CHILD=", l.instance);
}

Announced Announce() {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  if (l.fd < 0) return {};
  const unsigned long long nonce = l.next_nonce++;
  l.pending.insert(nonce);
  // A failed write loses only the chance to end this child after a crash
  // that comes before its record.
  WriteAll(l.fd, absl::StrCat("?", nonce, "\n"));
  return {absl::StrCat("RAW_DAEMON_CHILD=", l.instance, ".", nonce), nonce};
}

void Withdraw(unsigned long long nonce) {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  // No process carries the mark: the "?N" line stays and ends nothing.
  l.pending.erase(nonce);
}

void Record(pid_t pid, unsigned long long nonce) {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  if (l.fd < 0 || l.pending.erase(nonce) == 0) return;
  const long long start = ProcessStartTime(pid);
  l.live[pid] = {start, nonce};
  // A failed write loses only the chance to end this group after a crash.
  WriteAll(l.fd, absl::StrCat("+", pid, " ", start, " ", nonce, "\n"));
}

void Forget(pid_t pid) {
  Ledger& l = TheLedger();
  absl::MutexLock lock(&l.mu);
  if (l.fd < 0 || l.live.erase(pid) == 0) return;
  WriteAll(l.fd, absl::StrCat("-", pid, "\n"));
  if (lseek(l.fd, 0, SEEK_END) > kRewriteBytes) {
    if (int fd = Rewrite(l.path, l.boot_id, l.instance, l.live, l.pending); fd >= 0) {
      close(l.fd);
      l.fd = fd;
    }
  }
}

}  // namespace raw::child_ledger
