// Small helpers the end-to-end benches share: a process's memory figures
// and CPU time from /proc, percentiles of a sample, and the priority of
// the harness's timing threads.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace raw::bench {

// A "kB" field of /proc/PID/status ("VmRSS:", "VmHWM:"); -1 when absent.
inline long StatusKb(pid_t pid, const char* field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  }
  return -1;
}

// Field `field` (0: time run, in nanoseconds; 2: times put on a processor)
// of /proc/PID/task/*/schedstat, summed over the live threads of `pid`;
// threads that have exited are not counted. -1 when unreadable.
inline double ThreadsSchedstat(pid_t pid, int field) {
  std::error_code ec;
  std::filesystem::directory_iterator tasks(absl::StrCat("/proc/", pid, "/task"), ec);
  if (ec) return -1;
  double sum = 0;
  for (const auto& task : tasks) {
    std::ifstream in(task.path() / "schedstat");
    long long values[3] = {0, 0, 0};
    if (in >> values[0] >> values[1] >> values[2]) sum += static_cast<double>(values[field]);
  }
  return sum;
}

// The CPU time the live threads of `pid` have run so far, in microseconds,
// from the scheduler's own accounting (in nanoseconds), where /proc/PID/stat
// counts 10 ms ticks. Unlike a latency, it does not grow when other programs
// load the machine.
inline double ThreadsCpuUs(pid_t pid) {
  const double ns = ThreadsSchedstat(pid, 0);
  return ns < 0 ? ns : ns / 1000.0;
}

// How many times the live threads of `pid` were put on a processor so far:
// each is a wake-up or a return from preemption.
inline double ThreadsScheduled(pid_t pid) { return ThreadsSchedstat(pid, 2); }

// The p-th quantile (0..1) of `v` by nearest rank; 0 for no samples.
inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// Puts the calling thread in the real-time class (SCHED_FIFO, priority 1,
// not inherited by children), so that it runs as soon as what it waits for
// is readable: a harness thread that timestamps arrivals would otherwise
// wait for a processor behind the programs it measures, and its delay would
// count as theirs. Returns false when the system refuses (no privilege);
// the thread then stays as it was and the figures include that delay.
inline bool TimeAtRealtimePriority() {
  sched_param param{};
  param.sched_priority = 1;
  return sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) == 0;
}

using SteadyTime = std::chrono::steady_clock::time_point;

// The deltas (by text) that both this process's own subscription and the
// measured program's output carried: for each, the latency the program
// added in microseconds (its output's time minus the subscription's), and
// the two times.
struct MatchedDeltas {
  std::vector<double> added_us;
  std::vector<std::pair<SteadyTime, SteadyTime>> times;  // {subscribed, output}
};
inline MatchedDeltas MatchDeltas(const std::map<std::string, SteadyTime>& subscribed,
                                 const std::map<std::string, SteadyTime>& output) {
  MatchedDeltas matched;
  for (const auto& [text, at] : output) {
    auto it = subscribed.find(text);
    if (it == subscribed.end()) continue;
    matched.added_us.push_back(std::chrono::duration<double, std::micro>(at - it->second).count());
    matched.times.emplace_back(it->second, at);
  }
  return matched;
}

// Writes, for bench/written_latency.py, the thread that read a program's
// output (`reader`, its tid), when it read each line or frame (`reads`), and
// each delta's two times: when this process's own subscription got it, and
// when the output carrying it was read. Times are nanoseconds of the
// monotonic clock, which `perf record -k CLOCK_MONOTONIC` stamps its events
// with. Does nothing when `path` is null.
inline void WriteReaderTimes(const char* path, pid_t reader, const std::vector<SteadyTime>& reads,
                             const std::vector<std::pair<SteadyTime, SteadyTime>>& deltas) {
  if (path == nullptr) return;
  auto ns = [](SteadyTime t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  std::ofstream out(path);
  out << "reader " << reader << "\n";
  for (SteadyTime t : reads) out << "read " << ns(t) << "\n";
  for (const auto& [subscribed, read] : deltas) {
    out << "delta " << ns(subscribed) << " " << ns(read) << "\n";
  }
}

}  // namespace raw::bench
