#include "daemon/vars/variable_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/cancel_token.h"
#include "common/subprocess.h"
#include "daemon/vars/command_output.h"

namespace raw::vars {
namespace {

std::string Prefix(const config::VariableConfig& d) {
  return absl::StrCat("variable ", d.name, ": ");
}

absl::StatusOr<std::string> ReadEnv(const config::VariableConfig& d, const EnvLookup& env) {
  std::optional<std::string> value = env ? env(d.env) : std::nullopt;
  if (!value || value->empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(Prefix(d), "environment variable ", d.env, " is not set"));
  }
  return *value;
}

absl::StatusOr<std::string> ReadFile(const config::VariableConfig& d) {
  auto failure = [&d](int error) {
    return absl::FailedPreconditionError(absl::StrCat(Prefix(d), "cannot read file ", d.file, ": ",
                                                      std::generic_category().message(error)));
  };
  // O_NONBLOCK: a FIFO must not hang the read; it is refused below.
  int fd = open(d.file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return failure(errno);
  std::string value;
  absl::Status status;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    status = failure(errno);
  } else if (!S_ISREG(st.st_mode)) {
    status = absl::FailedPreconditionError(
        absl::StrCat(Prefix(d), "cannot read file ", d.file, ": not a regular file"));
  } else {
    char buf[8192];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = failure(errno);
        break;
      }
      if (n == 0) break;
      value.append(buf, static_cast<size_t>(n));
      if (value.size() > kMaxValueBytes) {
        status = absl::FailedPreconditionError(
            absl::StrCat(Prefix(d), "file ", d.file, " is larger than ", kMaxValueBytes, " bytes"));
        break;
      }
    }
  }
  close(fd);
  if (!status.ok()) return status;
  StripOneLineBreak(value);
  if (value.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(Prefix(d), "file ", d.file, " is empty"));
  }
  return value;
}

absl::StatusOr<std::string> ReadCommand(const config::VariableConfig& d,
                                        const std::set<std::string>& withheld_env,
                                        const CancelToken& cancel) {
  if (d.command.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(Prefix(d), "the command is empty"));
  }
  const std::string& program = d.command[0];
  SubprocessOptions options;
  options.argv = d.command;
  options.withheld_env = withheld_env;
  options.timeout_ms = d.timeout_ms;
  options.max_output_bytes = static_cast<int64_t>(kMaxValueBytes) + 1;
  absl::StatusOr<SubprocessResult> run = RunSubprocess(options, cancel);
  if (!run.ok()) {
    return absl::Status(run.status().code(), absl::StrCat(Prefix(d), "cannot run command ", program,
                                                          ": ", run.status().message()));
  }
  if (run->cancelled) {
    return absl::CancelledError(
        absl::StrCat(Prefix(d), "command ", program, " was not let finish: ", cancel.reason()));
  }
  if (run->timed_out) {
    return absl::DeadlineExceededError(absl::StrCat(
        Prefix(d), "command ", program, " did not finish within ", d.timeout_ms, " ms"));
  }
  if (!run->exit_code.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        Prefix(d), "command ", program, " was killed by signal ", run->term_signal.value_or(0)));
  }
  if (*run->exit_code != 0) {
    return absl::FailedPreconditionError(absl::StrCat(Prefix(d), "command ", program,
                                                      " exited with status ", *run->exit_code,
                                                      StderrExcerpt(run->stderr_data)));
  }
  if (run->stdout_truncated || run->stdout_data.size() > kMaxValueBytes) {
    return absl::FailedPreconditionError(absl::StrCat(
        Prefix(d), "command ", program, " printed more than ", kMaxValueBytes, " bytes"));
  }
  std::string value = std::move(run->stdout_data);
  StripOneLineBreak(value);
  if (value.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(Prefix(d), "command ", program, " printed nothing"));
  }
  return value;
}

}  // namespace

absl::StatusOr<std::string> ReadVariable(const config::VariableConfig& definition,
                                         const EnvLookup& env,
                                         const std::set<std::string>& withheld_env,
                                         const CancelToken* cancel) {
  const CancelToken never_cancelled;
  switch (definition.source) {
    case config::VariableSource::kEnv:
      return ReadEnv(definition, env);
    case config::VariableSource::kFile:
      return ReadFile(definition);
    case config::VariableSource::kCommand:
      return ReadCommand(definition, withheld_env, cancel != nullptr ? *cancel : never_cancelled);
  }
  return absl::InvalidArgumentError(absl::StrCat(Prefix(definition), "unknown source"));
}

}  // namespace raw::vars
