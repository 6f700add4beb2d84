// LineProcess: a child process the test talks to line by line: its stdout
// is read one line at a time (the dashboard's URL line, the browser driver's
// steps), lines are written to its stdin, and its stderr goes to a file for
// the failure message. The destructor terminates and reaps it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace raw::e2e {

class LineProcess {
 public:
  // Starts `argv` (argv[0] an absolute path) with exactly `env`; check
  // running(). stderr is appended to `stderr_path`.
  LineProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
              const std::string& stderr_path);
  ~LineProcess();
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  bool running() const { return pid_ > 0; }
  // The next stdout line without its newline; nullopt at end of output or
  // after `timeout` (which only bounds a failing test).
  std::optional<std::string> ReadLine(std::chrono::seconds timeout = std::chrono::seconds(120));
  bool WriteLine(const std::string& line);
  // Sends `sig` (unless already reaped) and waits; returns the exit code,
  // 128+signal when killed.
  int Stop(int sig);
  // Waits for the exit without a signal.
  int Wait();

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  std::string buffered_;
  int exit_code_ = -1;
};

}  // namespace raw::e2e
