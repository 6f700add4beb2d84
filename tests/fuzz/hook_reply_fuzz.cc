// Fuzz target: arbitrary bytes as a hook command's stdout. ParseHookReply
// must accept or refuse without crashing, and a refusal — which quotes the
// hostile output back to the user and into the session's notices — must be
// valid UTF-8 and bounded in size whatever the output was.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/utf8.h"
#include "daemon/hooks/hook_reply.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<raw::hooks::HookReply> reply = raw::hooks::ParseHookReply(text);
  if (reply.ok()) {
    if (raw::ValidUtf8Prefix(reply->reason) != reply->reason.size() ||
        raw::ValidUtf8Prefix(reply->additional_context) != reply->additional_context.size()) {
      std::fprintf(stderr, "hook_reply_fuzz: an accepted reply holds invalid UTF-8\n");
      std::abort();
    }
    return 0;
  }
  const std::string message(reply.status().message());
  if (raw::ValidUtf8Prefix(message) != message.size() || message.size() > 4096 + size / 8 + 512) {
    std::fprintf(stderr, "hook_reply_fuzz: the error is invalid UTF-8 or unbounded\n");
    std::abort();
  }
  return 0;
}
