#include "tests/support/dashboard_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/spawn.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {

absl::Status DashboardProcess::Start(const std::string& socket_path,
                                     const std::vector<std::string>& extra_args,
                                     std::optional<std::vector<std::string>> env) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  SpawnRequest request;
  request.program = BinaryPath("raw-dashboard");
  request.argv = {"raw-dashboard", "--socket", socket_path};
  request.argv.insert(request.argv.end(), extra_args.begin(), extra_args.end());
  request.env = std::move(env);
  request.stdout_fd = out[1];
  request.stderr_fd = 2;
  int err = -1;
  if (!stderr_path_.empty()) {
    err = open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (err < 0) {
      close(out[0]);
      close(out[1]);
      return absl::InternalError(absl::StrCat("cannot open ", stderr_path_));
    }
    request.stderr_fd = err;
  }
  absl::StatusOr<pid_t> pid = SpawnInNewSession(request);
  close(out[1]);
  if (err >= 0) close(err);
  if (!pid.ok()) {
    close(out[0]);
    return pid.status();
  }
  pid_ = *pid;
  line_.clear();
  // The one line; the pipe stays open (the process may print nothing more).
  char c = 0;
  while (read(out[0], &c, 1) == 1 && c != '\n') line_.push_back(c);
  close(out[0]);
  constexpr std::string_view kPrefix = "Raw dashboard: http://127.0.0.1:";
  if (line_.rfind(kPrefix, 0) != 0) {
    return absl::InternalError(absl::StrCat("unexpected first line: '", line_, "'"));
  }
  std::string rest = line_.substr(kPrefix.size());
  const size_t slash = rest.find("/#token=");
  uint32_t port = 0;
  if (slash == std::string::npos || !absl::SimpleAtoi(rest.substr(0, slash), &port)) {
    return absl::InternalError(absl::StrCat("no port and token in '", line_, "'"));
  }
  port_ = static_cast<uint16_t>(port);
  token_ = rest.substr(slash + 8);
  return absl::OkStatus();
}

int DashboardProcess::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = -1;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

std::string DashboardProcess::host() const { return absl::StrCat("127.0.0.1:", port_); }

web::testing::RawResponse DashboardProcess::Send(const Call& call) const {
  std::string request = absl::StrCat(call.method, " ", call.target, " HTTP/1.1\r\nHost: ",
                                     call.host.empty() ? host() : call.host, "\r\n");
  if (call.with_token) absl::StrAppend(&request, "Authorization: Bearer ", token_, "\r\n");
  for (const std::string& header : call.headers) absl::StrAppend(&request, header, "\r\n");
  if (call.declared_length > 0 || !call.body.empty() || call.method == "POST" ||
      call.method == "PUT") {
    absl::StrAppend(&request, "Content-Type: application/json\r\nContent-Length: ",
                    call.declared_length > 0 ? call.declared_length : call.body.size(), "\r\n");
  }
  absl::StrAppend(&request, "Connection: close\r\n\r\n", call.body);
  std::optional<web::testing::RawResponse> response = web::testing::Exchange(port_, request);
  return response ? *response : web::testing::RawResponse{};
}

web::testing::RawResponse DashboardProcess::Get(const std::string& target) const {
  Call call;
  call.target = target;
  return Send(call);
}

}  // namespace raw::e2e
