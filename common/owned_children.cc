#include "common/owned_children.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/child_ledger.h"
#include "common/proc_file.h"

namespace raw {
namespace {

struct Registry {
  absl::Mutex mu;
  std::set<pid_t> owned ABSL_GUARDED_BY(mu);
};

// Never destroyed: children may be reaped while the process exits.
Registry& GetRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

std::vector<pid_t> NumericEntries(const char* dir) {
  std::vector<pid_t> out;
  DIR* d = opendir(dir);
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    int n = 0;
    if (absl::SimpleAtoi(e->d_name, &n) && n > 0) out.push_back(n);
  }
  closedir(d);
  return out;
}

// The children of this process: the union of /proc/self/task/*/children (a
// re-parented orphan is the child of one thread of the subreaper). Without
// that file (a kernel built without CONFIG_PROC_CHILDREN), every process
// whose parent is this one, from /proc/<pid>/stat.
std::vector<pid_t> ChildPids() {
  std::vector<pid_t> children;
  bool have_children_files = false;
  for (pid_t tid : NumericEntries("/proc/self/task")) {
    const std::string path = absl::StrCat("/proc/self/task/", tid, "/children");
    if (access(path.c_str(), R_OK) != 0) continue;
    have_children_files = true;
    // A thread may end while its file is read: what was read still counts.
    for (absl::string_view word :
         absl::StrSplit(ReadProcFile(path), absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
      int pid = 0;
      if (absl::SimpleAtoi(word, &pid) && pid > 0) children.push_back(pid);
    }
  }
  if (have_children_files) return children;
  const pid_t self = getpid();
  for (pid_t pid : NumericEntries("/proc")) {
    const std::string stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat"));
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::vector<std::string> fields = absl::StrSplit(stat.substr(close + 1), ' ',
                                                     absl::SkipEmpty());
    int ppid = 0;
    if (fields.size() > 1 && absl::SimpleAtoi(fields[1], &ppid) && ppid == self) {
      children.push_back(pid);
    }
  }
  return children;
}

}  // namespace

pid_t StartOwnedChild(absl::FunctionRef<pid_t(const std::string& mark)> spawn) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  const child_ledger::Announced announced = child_ledger::Announce();
  pid_t pid = spawn(announced.mark);
  if (pid > 0) {
    r.owned.insert(pid);
    child_ledger::Record(pid, announced.nonce);
  } else {
    child_ledger::Withdraw(announced.nonce);
  }
  return pid;
}

int WaitOwnedChild(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = 0;
      break;
    }
  }
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  r.owned.erase(pid);
  child_ledger::Forget(pid);
  return status;
}

int ReapOrphans() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  int reaped = 0;
  for (pid_t pid : ChildPids()) {
    if (r.owned.count(pid) != 0) continue;
    siginfo_t info{};
    // WNOHANG: an orphan that still runs is left alone until it exits.
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG) == 0 &&
        info.si_pid == pid) {
      ++reaped;
    }
  }
  return reaped;
}

bool HasOrphans() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  for (pid_t pid : ChildPids()) {
    if (r.owned.count(pid) == 0) return true;
  }
  return false;
}

}  // namespace raw
