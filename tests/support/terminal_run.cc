#include "tests/support/terminal_run.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace raw::e2e {

CommandResult RunOnTerminal(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env,
                            const std::vector<TerminalExchange>& exchanges) {
  CommandResult result;
  // Built before the fork: the child only execs.
  std::vector<std::string> env_text;
  for (const auto& [key, value] : env) env_text.push_back(absl::StrCat(key, "=", value));
  std::vector<char*> envp;
  for (std::string& entry : env_text) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argvp;
  for (std::string& arg : args) argvp.push_back(arg.data());
  argvp.push_back(nullptr);

  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) {
    result.err = absl::StrCat("forkpty failed: ", errno);
    return result;
  }
  if (pid == 0) {
    execve(argvp[0], argvp.data(), envp.data());
    _exit(127);
  }
  size_t next = 0;
  size_t from = 0;
  for (;;) {
    pollfd p{master, POLLIN, 0};
    const int ready = poll(&p, 1, 60000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      kill(pid, SIGKILL);
      result.err = "the terminal showed nothing for 60 s";
      break;
    }
    char buf[4096];
    const ssize_t n = read(master, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EIO once the command and its terminal are gone
    result.out.append(buf, static_cast<size_t>(n));
    while (next < exchanges.size()) {
      const size_t at = result.out.find(exchanges[next].wait_for, from);
      if (at == std::string::npos) break;
      from = at + exchanges[next].wait_for.size();
      const std::string& text = exchanges[next].type;
      if (write(master, text.data(), text.size()) != static_cast<ssize_t>(text.size())) break;
      ++next;
    }
  }
  close(master);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace raw::e2e
