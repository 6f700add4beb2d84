// Fuzz target: arbitrary bytes as one framed message from an MCP server (a
// stdio line, an SSE data field or an HTTP body). ParseMessages must accept
// or refuse without crashing, and what it accepts must be what its kind
// promises: requests carry a method and a string or integer id,
// notifications a method and no id, responses and error responses an id.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "daemon/mcp/json_rpc.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "mcp_message_fuzz", what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace mcp = raw::mcp;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<mcp::Message>> messages = mcp::ParseMessages(text);
  if (!messages.ok()) return 0;
  for (const mcp::Message& m : *messages) {
    const bool id_ok = m.id.is_string() || m.id.is_number_integer();
    switch (m.kind) {
      case mcp::MessageKind::kRequest:
        Check(!m.method.empty() && id_ok, "a request without a method or a valid id");
        break;
      case mcp::MessageKind::kNotification:
        Check(!m.method.empty() && m.id.is_null(), "a notification without a method, or with an id");
        break;
      case mcp::MessageKind::kResponse:
      case mcp::MessageKind::kErrorResponse:
        Check(id_ok || m.id.is_null(), "a response whose id is neither a string, an integer nor null");
        break;
    }
  }
  return 0;
}
