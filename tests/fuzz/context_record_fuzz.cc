// Fuzz target: arbitrary bytes as a stored model-context row (a damaged or
// hostile file). A row that decodes holds only valid UTF-8 and encodes into
// a record that decodes to the same item; the encoding of that item is
// stable.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "common/utf8.h"
#include "daemon/events/context_record.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "context_record_fuzz", what); }

bool Valid(const std::string& s) { return raw::ValidUtf8Prefix(s) == s.size(); }

struct AllValid {
  bool operator()(const raw::events::UserText& p) const { return Valid(p.text) && Valid(p.turn_id); }
  bool operator()(const raw::events::AssistantTurn& p) const {
    bool ok = Valid(p.text) && Valid(p.reasoning);
    for (const auto& c : p.tool_calls) ok = ok && Valid(c.call_id) && Valid(c.name) && Valid(c.arguments);
    for (const auto& b : p.opaque) {
      ok = ok && Valid(b.provider) && Valid(b.kind) && Valid(b.id) && Valid(b.data);
    }
    return ok;
  }
  bool operator()(const raw::events::ToolOutcome& p) const {
    return Valid(p.call_id) && Valid(p.name) && Valid(p.content);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<raw::events::ContextItem> item = raw::events::DecodeContextRecord(bytes);
  if (!item.ok()) {
    const std::string message(item.status().message());
    Check(!message.empty() && Valid(message), "a refusal is empty or not valid UTF-8");
    return 0;
  }
  Check(std::visit(AllValid{}, *item), "a decoded item holds text that is not valid UTF-8");
  const std::string record = raw::events::EncodeContextRecord(*item);
  absl::StatusOr<raw::events::ContextItem> again = raw::events::DecodeContextRecord(record);
  Check(again.ok(), "the record of a decoded item does not decode");
  Check(*again == *item, "the record of a decoded item decodes to another item");
  Check(raw::events::EncodeContextRecord(*again) == record, "the encoding is not stable");
  return 0;
}
