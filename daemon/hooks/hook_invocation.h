// HookInvocation: one run of one hook's command, and how it ended, in the
// terms of the hook contract (docs/hooks.md): a reply (exit 0 with empty or
// well-formed JSON stdout), a block (exit 2, stderr as the reason), a
// failure (any other exit, a signal, a timeout, a start error, malformed
// stdout; `failure` says which, specifically) or a cancellation.
//
// The command runs through RunSubprocess in the session's working directory
// (its program found on PATH or at its absolute path; a relative program
// path, a relative script of an interpreter, or a relative argument the
// config could not resolve (config/script_args.h), is a failure, never
// looked up in that directory) with the JSON
// document on stdin and RAW_HOOK_NAME, RAW_HOOK_EVENT and
// RAW_SESSION_ID added to the daemon's environment, less the names in
// HookContext::withheld_env.
// Thread-safety: stateless; blocks the calling thread until the hook ends.
#pragma once

#include <string>

#include "common/cancel_token.h"
#include "daemon/config/config.h"
#include "daemon/hooks/hook_reply.h"
#include "daemon/hooks/hook_runner.h"

namespace raw::hooks {

struct HookInvocation {
  enum class Ending { kReplied, kBlocked, kFailed, kCancelled };
  Ending ending = Ending::kReplied;
  HookReply reply;            // kReplied
  std::string block_reason;   // kBlocked: stderr, trimmed (may be empty)
  // kFailed: e.g. "exited with code 1: <first line of stderr>", "was killed
  // by SIGSEGV", "timed out after 5 s", "printed malformed output: stdout is
  // not JSON: \"...\"", "could not start: program ... not found on PATH".
  std::string failure;
};

HookInvocation InvokeHook(const config::HookConfig& hook, const std::string& input_json,
                          const HookContext& context, const CancelToken& cancel);

}  // namespace raw::hooks
