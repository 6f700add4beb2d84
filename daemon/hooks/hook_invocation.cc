#include "daemon/hooks/hook_invocation.h"

#include <string.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/subprocess.h"
#include "daemon/config/script_args.h"

namespace raw::hooks {
namespace {

constexpr int64_t kMaxStdoutBytes = 1 << 20;
// Longest stderr line quoted in a failure, and longest block reason.
constexpr size_t kStderrLineBytes = 200;
constexpr size_t kBlockReasonBytes = 4000;
constexpr int kBlockExitCode = 2;

std::string Seconds(int64_t ms) { return absl::StrCat(static_cast<double>(ms) / 1000.0, " s"); }

// The first non-blank line of `text`, trimmed and capped.
std::string FirstLine(const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    if (line.size() > kStderrLineBytes) return absl::StrCat(line.substr(0, kStderrLineBytes), "...");
    return std::string(line);
  }
  return "";
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", sig);
}

HookInvocation Failed(std::string failure) {
  HookInvocation inv;
  inv.ending = HookInvocation::Ending::kFailed;
  inv.failure = std::move(failure);
  return inv;
}

}  // namespace

HookInvocation InvokeHook(const config::HookConfig& hook, const std::string& input_json,
                          const HookContext& context, const CancelToken& cancel) {
  // The config resolves a program path against its own directory; one
  // still relative here would be taken from the session's working
  // directory, which the project controls, so it is never run.
  if (!hook.command.empty() && hook.command[0].find('/') != std::string::npos &&
      hook.command[0][0] != '/') {
    return Failed(absl::StrCat("could not start: program \"", hook.command[0],
                               "\" is a relative path, which would be taken from the session's "
                               "working directory"));
  }
  // So is the script an interpreter runs (`["sh", "guard.sh"]`), which the
  // config resolves the same way.
  for (size_t i : config::ScriptArguments(hook.command)) {
    if (hook.command[i][0] != '/') {
      return Failed(absl::StrCat("could not start: script \"", hook.command[i],
                                 "\" is a relative path, which would be taken from the session's "
                                 "working directory"));
    }
  }
  // And an argument that may name a file the command runs but is not
  // resolved (behind env -C, in env -S's string, after xargs).
  const std::vector<config::UnresolvedArgument> unresolved =
      config::UnresolvedArguments(hook.command);
  if (!unresolved.empty()) {
    return Failed(absl::StrCat("could not start: \"", hook.command[unresolved.front().index],
                               "\" is a relative path ", unresolved.front().reason,
                               ", which would be taken from the session's working directory"));
  }
  SubprocessOptions options;
  options.argv = hook.command;
  options.cwd = context.cwd;
  options.stdin_data = input_json;
  options.env = {{"RAW_HOOK_NAME", hook.name},
                 {"RAW_HOOK_EVENT", HookEventName(hook.event)},
                 {"RAW_SESSION_ID", context.session_id}};
  options.withheld_env = context.withheld_env;
  options.timeout_ms = hook.timeout_ms;
  options.max_output_bytes = kMaxStdoutBytes;
  absl::StatusOr<SubprocessResult> run = RunSubprocess(options, cancel);
  if (!run.ok()) return Failed(absl::StrCat("could not start: ", run.status().message()));

  // Known secrets are hidden before anything is cut from what the hook
  // printed: the store hides them only in what is kept, and a cut through
  // one would keep its first bytes.
  if (context.redact) run->stderr_data = context.redact(run->stderr_data);
  HookInvocation inv;
  if (run->cancelled) {
    inv.ending = HookInvocation::Ending::kCancelled;
    return inv;
  }
  if (run->timed_out) {
    return Failed(absl::StrCat("timed out after ", Seconds(hook.timeout_ms),
                               " and was killed with its process group"));
  }
  if (run->term_signal.has_value()) {
    std::string line = FirstLine(run->stderr_data);
    return Failed(absl::StrCat("was killed by ", SignalName(*run->term_signal),
                               line.empty() ? "" : absl::StrCat(" (stderr: ", line, ")")));
  }
  const int code = run->exit_code.value_or(-1);
  if (code == kBlockExitCode) {
    inv.ending = HookInvocation::Ending::kBlocked;
    absl::string_view reason = absl::StripAsciiWhitespace(run->stderr_data);
    inv.block_reason = reason.size() > kBlockReasonBytes
                           ? absl::StrCat(reason.substr(0, kBlockReasonBytes), "...")
                           : std::string(reason);
    return inv;
  }
  if (code != 0) {
    std::string line = FirstLine(run->stderr_data);
    return Failed(absl::StrCat("exited with code ", code,
                               line.empty() ? " (nothing on stderr)" : absl::StrCat(": ", line)));
  }
  if (run->stdout_truncated) {
    return Failed(absl::StrCat("printed malformed output: stdout is longer than ",
                               kMaxStdoutBytes, " bytes"));
  }
  absl::StatusOr<HookReply> reply = ParseHookReply(run->stdout_data);
  if (!reply.ok()) {
    // The error quotes what the hook printed: quoted from the text with the
    // secrets hidden (the reply itself is read as printed).
    absl::Status why = reply.status();
    if (context.redact) {
      absl::StatusOr<HookReply> shown = ParseHookReply(context.redact(run->stdout_data));
      why = shown.ok() ? absl::InvalidArgumentError("stdout is not a valid reply") : shown.status();
    }
    return Failed(absl::StrCat("printed malformed output: ", why.message()));
  }
  inv.reply = std::move(*reply);
  return inv;
}

}  // namespace raw::hooks
