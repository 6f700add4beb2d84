// Small helpers the end-to-end benches share: a process's memory figures
// from /proc and percentiles of a sample.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <fstream>
#include <string>
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

// The p-th quantile (0..1) of `v` by nearest rank; 0 for no samples.
inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace raw::bench
